package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRoot writes the repository files an archive holds beside the binary
// (filesInArchive) under a temporary root, and returns the root and their
// contents by path in the archive.
func fakeRoot(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	root := t.TempDir()
	files := map[string][]byte{}
	for _, f := range filesInArchive {
		content := []byte("contents of " + f.src + "\n")
		p := filepath.Join(root, f.src)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		files[f.path] = content
	}
	return root, files
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeTarGz writes files (name -> content) as a tar.gz at path.
func writeTarGz(t *testing.T, path string, files map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(content)
	}
	tw.Close()
	gz.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeZip writes entries, in order, as a zip at path; an entry named
// like the bundle's binary gets mode 0755.
func writeZip(t *testing.T, path string, names []string, files map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o644)
		if strings.HasPrefix(name, "server/") {
			h.SetMode(0o755)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[name])
	}
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The raw binary checksums.txt lists is the one in every archive, byte for
// byte: an archive whose binary differs by one byte fails the check.
func TestCheckArchiveBinaryIsTheRawBinary(t *testing.T) {
	root, docs := fakeRoot(t)
	raw := []byte("\x7fELF the released binary")
	toolRaw := []byte("\x7fELF the released stitchslop")
	for _, tt := range rawBinaryCases(raw) {
		t.Run(tt.name, func(t *testing.T) {
			for _, goos := range []string{"linux", "windows"} {
				files := map[string][]byte{}
				for k, v := range docs {
					files[k] = v
				}
				bin, toolBin, name := "stitchslop-bridge", "stitchslop", "a_"+goos+".tar.gz"
				if goos == "windows" {
					bin, toolBin, name = bin+".exe", toolBin+".exe", "a_"+goos+".zip"
				}
				files[bin] = tt.binary
				files[toolBin] = toolRaw
				path := filepath.Join(t.TempDir(), name)
				if goos == "windows" {
					var names []string
					for n := range files {
						names = append(names, n)
					}
					writeZip(t, path, names, files)
				} else {
					writeTarGz(t, path, files)
				}
				err := checkArchive(root, artifact{Name: name, Path: path, GOOS: goos}, sha(raw), sha(toolRaw))
				if tt.wantErr == "" && err != nil {
					t.Errorf("checkArchive(%s) = %v, want nil", goos, err)
				}
				if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
					t.Errorf("checkArchive(%s) = %v, want an error containing %q", goos, err, tt.wantErr)
				}
			}
		})
	}
}

// Every MCP Bundle holds the raw binary byte for byte: one whose binary
// differs by one byte fails the check.
func TestCheckBundleBinaryIsTheRawBinary(t *testing.T) {
	root, _ := fakeRoot(t)
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte("\x7fELF the released binary")
	manifest := []byte(`{"version":"1.2.3","server":{"entry_point":"server/stitchslop-bridge"},"compatibility":{"platforms":["linux"]}}`)
	for _, tt := range rawBinaryCases(raw) {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "b.mcpb")
			writeZip(t, path, []string{"LICENSE", "manifest.json", "server/stitchslop-bridge"},
				map[string][]byte{"LICENSE": license, "manifest.json": manifest, "server/stitchslop-bridge": tt.binary})
			err := checkBundle(root, artifact{Name: "b.mcpb", Path: path, GOOS: "linux"}, sha(raw), "1.2.3")
			if tt.wantErr == "" && err != nil {
				t.Errorf("checkBundle = %v, want nil", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("checkBundle = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// rawBinaryCase is a binary a release file may hold, and the error its
// check must give ("" for none).
type rawBinaryCase struct {
	name    string
	binary  []byte
	wantErr string
}

// rawBinaryCases are the raw binary itself, which passes, and the same
// bytes with the last one changed, which fail naming raw's SHA-256.
func rawBinaryCases(raw []byte) []rawBinaryCase {
	return []rawBinaryCase{
		{"the raw binary", raw, ""},
		{"one byte changed", append(append([]byte{}, raw[:len(raw)-1]...), 'X'), "want the released binary's " + sha(raw)},
	}
}
