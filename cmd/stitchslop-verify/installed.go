package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// rawBinaryName is the name checksums.txt gives a raw release binary
// (.goreleaser.yaml, archives id "binary") of either program, the bridge
// or stitchslop: its version and target.
var rawBinaryName = regexp.MustCompile(`^(?:stitchslop-bridge|stitchslop)_([0-9][^_/]*)_([a-z0-9]+)_([a-z0-9]+)(\.exe)?$`)

// findInstalled is the binary --installed checks when none is named: the
// stitchslop-bridge a shell would run. A test hook.
var findInstalled = func() (string, error) { return exec.LookPath("stitchslop-bridge") }

// checkInstalled says which raw binary of the signed checksums.txt the
// installed binary at path is, byte for byte, or that it is none of them.
// The binary's own claims (--version) play no part: only its bytes count,
// and a raw-binary line counts only when the target in its name is the one
// the binary's own header (ELF, Mach-O, PE) names. Lines are taken in
// sorted order, so one checksums.txt always gives one verdict. Names from
// checksums.txt are signed but still outside bytes: they reach the terminal
// through unprintable.Escape.
func checkInstalled(ctx context.Context, sums map[string]string, checksumsPath, path string, f *os.File, stdout io.Writer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	shown := unprintable.Escape(path)
	goos, goarch, targetErr := binaryTarget(f)
	got, err := sha256Of(ctx, f)
	if err != nil {
		return newError(exitMissingFile, nil, "%s: %v", shown, err)
	}

	var names, same, other []string
	for name, sum := range sums {
		m := rawBinaryName.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		names = append(names, name)
		if sum != got {
			continue
		}
		if targetErr == nil && m[2] == goos && m[3] == goarch {
			same = append(same, name)
		} else {
			other = append(other, name)
		}
	}
	sort.Strings(same)
	sort.Strings(other)
	if len(same) > 0 {
		m := rawBinaryName.FindStringSubmatch(same[0])
		fmt.Fprintf(stdout, "%s: OK: byte for byte %s, release %s, %s/%s\n", shown, unprintable.Escape(same[0]), unprintable.Escape(m[1]), m[2], m[3])
		for _, name := range same[1:] {
			fmt.Fprintf(stdout, "%s: also listed as %s\n", shown, unprintable.Escape(name))
		}
		return nil
	}

	fmt.Fprintf(stdout, "%s: NOT A RELEASE BINARY of this checksums.txt (sha256 %s)\n", shown, got)
	if len(other) > 0 {
		var header string
		if targetErr != nil {
			header = "it has " + targetErr.Error()
		} else {
			header = fmt.Sprintf("its header says %s/%s", goos, goarch)
		}
		return newError(exitChecksumMismatch, []string{
			"a release binary's header names the target its name does; these bytes are listed under another, so this checksums.txt or the file is not what the release built",
		}, "%s (sha256 %s) is listed in %s only as %s, but %s", shown, got, filepath.Base(checksumsPath), unprintable.Escape(other[0]), header)
	}
	return newError(exitChecksumMismatch, []string{
		"it may be another release's binary: stitchslop-bridge version --json names its version; check it against that release's checksums.txt",
		"a build from source, or one a package manager built itself, differs from every release binary; reinstall from the release to get a signed one",
		"otherwise the file was altered after it was installed: replace it with a verified download",
	}, "%s (sha256 %s) is none of the %d release binaries listed in %s", shown, got, len(names), filepath.Base(checksumsPath))
}
