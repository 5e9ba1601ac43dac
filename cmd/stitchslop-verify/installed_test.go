package main

import (
	"errors"
	"os"
	"path/filepath"
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
