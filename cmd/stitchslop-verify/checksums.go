package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// parseChecksums reads the sha256sum format GoReleaser writes:
// "<64 lowercase hex>  <name>" per line ("<hex> *<name>" is accepted too).
// Names must be plain file names; a name listed twice is an error even with
// the same digest, because a signed file should never be ambiguous.
func parseChecksums(data []byte) (map[string]string, error) {
	sums := make(map[string]string)
	lines := bytes.Split(data, []byte("\n"))
	for i, raw := range lines {
		line := strings.TrimSuffix(string(raw), "\r")
		if line == "" {
			if i == len(lines)-1 {
				break
			}
			return nil, fmt.Errorf("line %d: empty line", i+1)
		}
		if len(line) < 64+2+1 {
			return nil, fmt.Errorf("line %d: too short for \"<sha256>  <name>\"", i+1)
		}
		digest, sep, name := line[:64], line[64:66], line[66:]
		if sep != "  " && sep != " *" {
			return nil, fmt.Errorf("line %d: want two spaces after the digest", i+1)
		}
		if !isLowerHex(digest) {
			return nil, fmt.Errorf("line %d: digest is not 64 lowercase hex digits", i+1)
		}
		if name != filepath.Base(name) || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
			return nil, fmt.Errorf("line %d: name is not a plain file name", i+1)
		}
		if !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
			// A release's names are plain text; a control character (a
			// stray CR, an escape) would also reach the terminal in the
			// verdict lines.
			return nil, fmt.Errorf("line %d: name holds a control character or is not UTF-8", i+1)
		}
		if _, dup := sums[name]; dup {
			return nil, fmt.Errorf("line %d: a name listed twice", i+1)
		}
		sums[name] = digest
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("no entries")
	}
	return sums, nil
}

func isLowerHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// checkArtifacts compares each artifact, by its base name, with the verified
// checksums. It checks all of them, prints one line per artifact on stdout,
// and returns the first failure (with a count of the others).
func checkArtifacts(ctx context.Context, sums map[string]string, checksumsPath string, artifacts []string, in inputs, stdout io.Writer) error {
	var first *verifyError
	failed := 0
	for _, path := range artifacts {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := filepath.Base(path)
		err := checkArtifact(ctx, sums, checksumsPath, path, in.file(path), name)
		if err == nil {
			fmt.Fprintf(stdout, "%s: OK\n", name)
			continue
		}
		fmt.Fprintf(stdout, "%s: FAILED\n", name)
		failed++
		if first == nil {
			first = err
		}
	}
	if first == nil {
		return nil
	}
	if failed > 1 {
		first.hints = append(first.hints, fmt.Sprintf("%d artifacts failed in all; see the FAILED lines on stdout", failed))
	}
	return first
}

func checkArtifact(ctx context.Context, sums map[string]string, checksumsPath, path string, f *os.File, name string) *verifyError {
	want, ok := sums[name]
	if !ok {
		return newError(exitNotListed, []string{"keep the file name exactly as downloaded; only release archives, binaries, SBOMs and MCP Bundles (.mcpb) are listed"},
			"%s is not listed in %s", name, filepath.Base(checksumsPath))
	}
	got, err := sha256Of(ctx, f)
	if err != nil {
		return newError(exitMissingFile, nil, "%s: %v", path, err)
	}
	if got != want {
		return newError(exitChecksumMismatch, []string{"the download is corrupt or was altered: delete it and download it again"},
			"%s: sha256 %s does not match %s (%s)", name, got, filepath.Base(checksumsPath), want)
	}
	return nil
}

// errNotRegular is openRegular's refusal of anything but a regular file.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path once, if it is a regular file, and checks that
// what it opened is that file; every file the verifier reads comes from
// here (openInputs). It looks before it opens: a device, a FIFO or a
// directory (a link to /dev/ptmx, which allocates a terminal when opened)
// is refused unopened. The open cannot block on a FIFO swapped in between
// (O_NONBLOCK on unix; Windows ignores the flag, and opening a pipe there
// does not wait for a writer) nor make a terminal the process's own
// (O_NOCTTY), and the Fstat of what was opened must be the file looked at
// (os.SameFile), so a swap is refused too. Whatever is checked or hashed
// after this reads from the handle, never the path.
func openRegular(path string) (*os.File, error) {
	looked, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !looked.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(looked, fi) {
		f.Close()
		return nil, errNotRegular
	}
	return f, nil
}

// sha256Of hashes f from its start. It stops when ctx ends, between
// chunks, so a large file does not outlast Ctrl-C.
func sha256Of(ctx context.Context, f *os.File) (string, error) {
	h := sha256.New()
	r := io.NewSectionReader(f, 0, 1<<62)
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := r.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
