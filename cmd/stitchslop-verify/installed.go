package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
)

// rawBinaryName is the name checksums.txt gives a raw release binary
// (.goreleaser.yaml, archives id "binary"): its version and target.
var rawBinaryName = regexp.MustCompile(`^stitchslop-bridge_([0-9][^_/]*)_([a-z0-9]+)_([a-z0-9]+)(\.exe)?$`)

// findInstalled is the binary --installed checks when none is named: the
// stitchslop-bridge a shell would run. A test hook.
var findInstalled = func() (string, error) { return exec.LookPath("stitchslop-bridge") }

// checkInstalled says which raw binary of the signed checksums.txt the
// installed binary at path is, byte for byte, or that it is none of them.
// The binary's own claims (--version) play no part: only its bytes count.
func checkInstalled(ctx context.Context, sums map[string]string, checksumsPath, path string, stdout io.Writer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	got, err := sha256File(path)
	if err != nil {
		return newError(exitMissingFile, nil, "%s: %v", path, err)
	}
	var names []string
	for name, sum := range sums {
		if rawBinaryName.MatchString(name) {
			names = append(names, name)
			if sum == got {
				m := rawBinaryName.FindStringSubmatch(name)
				fmt.Fprintf(stdout, "%s: OK: byte for byte %s, release %s, %s/%s\n", path, name, m[1], m[2], m[3])
				return nil
			}
		}
	}
	sort.Strings(names)
	fmt.Fprintf(stdout, "%s: NOT A RELEASE BINARY of this checksums.txt (sha256 %s)\n", path, got)
	return newError(exitChecksumMismatch, []string{
		"it may be another release's binary: stitchslop-bridge version --json names its version; check it against that release's checksums.txt",
		"a build from source, or one a package manager built itself, differs from every release binary; reinstall from the release to get a signed one",
		"otherwise the file was altered after it was installed: replace it with a verified download",
	}, "%s (sha256 %s) is none of the %d release binaries listed in %s", path, got, len(names), filepath.Base(checksumsPath))
}
