package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const darwinBinary = "stitchslop-bridge_1.2.3_darwin_arm64"

// installBinary writes content as an installed stitchslop-bridge in a
// directory of its own, away from the release files, and returns its path.
func installBinary(t *testing.T, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bin", "stitchslop-bridge")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, content, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// signedRelease is a fake release whose checksums.txt the release workflow
// signed.
func signedRelease(t *testing.T) *release {
	t.Helper()
	vs := newVirtualSigstore(t)
	useVirtualSigstore(t, vs)
	r := newRelease(t)
	r.write(t, "checksums.txt.sigstore.json", mintBundle(t, vs, goodSAN, goodIssuer, r.checksums))
	return r
}

// TestInstalled: --installed says which raw release binary an installed
// file is, byte for byte, or that it is none; its name and what it would
// say of itself play no part.
func TestInstalled(t *testing.T) {
	tests := []struct {
		name       string
		content    func(r *release) []byte
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{
			name:       "a release binary",
			content:    func(r *release) []byte { return r.artifacts[darwinBinary] },
			wantCode:   exitOK,
			wantStdout: []string{"checksums.txt: signature OK", ": OK: byte for byte " + darwinBinary + ", release 1.2.3, darwin/arm64\n"},
		},
		{
			name:       "a build from source, or an altered binary",
			content:    func(*release) []byte { return []byte("pretend raw binary, rebuilt\n") },
			wantCode:   exitChecksumMismatch,
			wantStdout: []string{": NOT A RELEASE BINARY of this checksums.txt (sha256 "},
			wantStderr: []string{"is none of the 1 release binaries listed in checksums.txt", "hint: a build from source"},
		},
		{
			// Only raw binaries count: a file that is an archive of the
			// release is no installed release binary.
			name:       "an archive's bytes",
			content:    func(r *release) []byte { return r.artifacts[linuxTarball] },
			wantCode:   exitChecksumMismatch,
			wantStdout: []string{"NOT A RELEASE BINARY"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := signedRelease(t)
			bin := installBinary(t, tt.content(r))
			args := []string{"--installed", bin, "--checksums", r.path("checksums.txt")}
			wantRun(t, args, tt.wantCode, tt.wantStdout, tt.wantStderr)
		})
	}
}

// With no path, --installed checks the stitchslop-bridge on PATH, against
// the checksums.txt in the working directory.
func TestInstalledOnPath(t *testing.T) {
	r := signedRelease(t)
	bin := installBinary(t, r.artifacts[darwinBinary])
	old := findInstalled
	t.Cleanup(func() { findInstalled = old })
	findInstalled = func() (string, error) { return bin, nil }
	t.Chdir(r.dir)
	wantRun(t, []string{"--installed"}, exitOK, []string{bin + ": OK: byte for byte " + darwinBinary}, nil)

	findInstalled = func() (string, error) { return "", errors.New("not found") }
	wantRun(t, []string{"--installed"}, exitMissingFile, nil, []string{"error: no stitchslop-bridge on PATH", "hint: give the installed binary's path"})
}

func TestInstalledUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--installed", "a", "b"},
		{"--installed", "a", "--manifest", "release-manifest.json"},
	} {
		wantRun(t, args, exitUsage, nil, []string{"stitchslop-verify: error: "})
	}
}

// withChecksums replaces r's checksums.txt with lines and signs it.
func withChecksums(t *testing.T, lines ...string) *release {
	t.Helper()
	vs := newVirtualSigstore(t)
	useVirtualSigstore(t, vs)
	r := newRelease(t)
	r.checksums = []byte(strings.Join(lines, ""))
	r.write(t, "checksums.txt", r.checksums)
	r.write(t, "checksums.txt.sigstore.json", mintBundle(t, vs, goodSAN, goodIssuer, r.checksums))
	return r
}

func sumLine(content []byte, name string) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:]) + "  " + name + "\n"
}

// TestInstalledTargetFromHeader: one digest listed under two raw-binary
// names of different targets gives one verdict, every run: the target the
// binary's own header names. Bytes listed only under another target are no
// release binary, and the error says why.
func TestInstalledTargetFromHeader(t *testing.T) {
	linux := fakeExecutable(t, "linux", "amd64", "pretend linux binary\n")
	r := withChecksums(t,
		sumLine(linux, "stitchslop-bridge_1.2.3_darwin_arm64"),
		sumLine(linux, "stitchslop-bridge_1.2.3_linux_amd64"),
		sumLine(linux, "stitchslop-bridge_1.2.3_windows_amd64.exe"),
	)
	bin := installBinary(t, linux)
	args := []string{"--installed", bin, "--checksums", r.path("checksums.txt")}
	for range 20 {
		stdout, _ := wantRun(t, args, exitOK, []string{": OK: byte for byte stitchslop-bridge_1.2.3_linux_amd64, release 1.2.3, linux/amd64\n"}, nil)
		if strings.Contains(stdout, "darwin") || strings.Contains(stdout, "windows") {
			t.Fatalf("stdout = %q, names a target the header does not", stdout)
		}
	}

	r = withChecksums(t, sumLine(linux, "stitchslop-bridge_1.2.3_darwin_arm64"))
	args = []string{"--installed", bin, "--checksums", r.path("checksums.txt")}
	wantRun(t, args, exitChecksumMismatch, []string{"NOT A RELEASE BINARY"},
		[]string{"only as stitchslop-bridge_1.2.3_darwin_arm64, but its header says linux/amd64"})

	// Without an executable header, no line's target can be the file's.
	plain := []byte("no header at all\n")
	r = withChecksums(t, sumLine(plain, "stitchslop-bridge_1.2.3_linux_amd64"))
	bin = installBinary(t, plain)
	args = []string{"--installed", bin, "--checksums", r.path("checksums.txt")}
	wantRun(t, args, exitChecksumMismatch, []string{"NOT A RELEASE BINARY"},
		[]string{"but it has no ELF, Mach-O or PE executable header"})
}

// TestInstalledTargetSameTwice: two lines of the binary's own target are
// taken in sorted order; the first is the verdict, the other is named.
func TestInstalledTargetSameTwice(t *testing.T) {
	darwin := fakeExecutable(t, "darwin", "arm64", "pretend darwin binary\n")
	r := withChecksums(t,
		sumLine(darwin, "stitchslop-bridge_1.2.4_darwin_arm64"),
		sumLine(darwin, "stitchslop-bridge_1.2.3_darwin_arm64"),
	)
	bin := installBinary(t, darwin)
	args := []string{"--installed", bin, "--checksums", r.path("checksums.txt")}
	for range 20 {
		wantRun(t, args, exitOK, []string{
			": OK: byte for byte stitchslop-bridge_1.2.3_darwin_arm64, release 1.2.3, darwin/arm64\n",
			": also listed as stitchslop-bridge_1.2.4_darwin_arm64\n",
		}, nil)
	}
}

// TestInstalledNameEscaped: a signed name's bidi override reaches the
// terminal as an escape, never as itself.
func TestInstalledNameEscaped(t *testing.T) {
	darwin := fakeExecutable(t, "darwin", "arm64", "pretend darwin binary\n")
	r := withChecksums(t, sumLine(darwin, "stitchslop-bridge_1.2.3\u202egnp.exe_darwin_arm64"))
	bin := installBinary(t, darwin)
	args := []string{"--installed", bin, "--checksums", r.path("checksums.txt")}
	stdout, stderr := wantRun(t, args, exitOK, []string{`byte for byte stitchslop-bridge_1.2.3\u202egnp.exe_darwin_arm64, release 1.2.3\u202egnp.exe, darwin/arm64`}, nil)
	if strings.ContainsRune(stdout+stderr, '\u202e') {
		t.Fatalf("output holds U+202E raw:\nstdout: %q\nstderr: %q", stdout, stderr)
	}
}
