// Command stitchslop-verify checks downloaded stitchslop-bridge release files
// before anyone runs them.
//
// It verifies checksums.txt against its Sigstore bundle
// (checksums.txt.sigstore.json), accepting only a signature made by this
// repository's release workflow on a version tag, recorded in the Rekor
// transparency log and chained to the pinned Sigstore trusted root. It then
// checks the SHA-256 of every artifact named on the command line against the
// now-authentic checksums.txt.
//
// It is a separate binary so that the bridge itself never links sigstore-go.
// Build it from a clone of the release's tag (go install of it works only
// once the module is published):
//
//	git clone --depth 1 --branch vX.Y.Z https://github.com/stitchslop/stitchslop-bridge
//	go build -C stitchslop-bridge -o ../stitchslop-verify ./cmd/stitchslop-verify
//
// cosign and the GitHub CLI check a release too, with nothing of ours
// (docs/release.md, "Checking a download").
//
// Exit codes are listed in usageText and in docs/release.md ("Exit codes").
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- run(ctx, os.Args[1:], os.Stdout, os.Stderr) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		// Ctrl-C ends the run at once, whatever step it is in (a
		// signature check does not look at ctx). The verifier writes
		// nothing but its verdict lines, so there is nothing to undo.
		err = ctx.Err()
	}
	stop()
	os.Exit(report(os.Stderr, err))
}

// report prints err to stderr in the house format and returns the exit code.
// It is the only place that turns an error into words for the person.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "stitchslop-verify: error: interrupted")
		return exitInterrupted
	}
	var ve *verifyError
	if !errors.As(err, &ve) {
		ve = &verifyError{code: exitUsage, msg: err.Error()}
	}
	fmt.Fprintf(stderr, "stitchslop-verify: error: %s\n", ve.msg)
	for _, h := range ve.hints {
		fmt.Fprintf(stderr, "hint: %s\n", h)
	}
	return ve.code
}
