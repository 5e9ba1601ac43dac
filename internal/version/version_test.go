package version

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Self reports the SHA-256 of the very file this process runs from.
func TestSelfHashesTheExecutable(t *testing.T) {
	path, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	id := Self(time.Minute)
	if id.SHA256 != hex.EncodeToString(sum[:]) || id.SHA256Error != "" {
		t.Errorf("Self() = sha256 %q, error %q; want %x, none", id.SHA256, id.SHA256Error, sum)
	}
	if id.Name != "stitchslop-bridge" || id.OS == "" || id.Arch == "" || id.Version == "" {
		t.Errorf("Self() = %+v, want name, version, os and arch", id)
	}
}

// A hash that is not done within the bound is reported as NotYet, never
// guessed; once done, it is handed out.
func TestHasherBound(t *testing.T) {
	h := newHasher()
	release := make(chan struct{})
	h.start(func() (string, string) { <-release; return "abc", "" })
	if sum, err := h.result(time.Millisecond); sum != "" || err != NotYet {
		t.Errorf("result before the hash is done = %q, %q; want \"\", %q", sum, err, NotYet)
	}
	close(release)
	if sum, err := h.result(time.Minute); sum != "abc" || err != "" {
		t.Errorf("result once done = %q, %q; want \"abc\", \"\"", sum, err)
	}
	h.start(func() (string, string) { return "again", "" })
	if sum, _ := h.result(time.Minute); sum != "abc" {
		t.Errorf("a second start hashed again: %q, want the first hash", sum)
	}
}

// An executable that cannot be found or read is reported in words that
// name no path (the page sees them), not a failure.
func TestHashErrorNamesNoPath(t *testing.T) {
	old := executable
	t.Cleanup(func() { executable = old })
	secret := filepath.Join(t.TempDir(), "home-of-someone", "stitchslop-bridge")
	for _, tt := range []struct {
		name string
		exe  func() (string, error)
		want string
	}{
		{"unreadable", func() (string, error) { return secret, nil }, "the executable cannot be read: "},
		{"unknown", func() (string, error) {
			return "", &os.PathError{Op: "readlink", Path: secret, Err: errors.New("gone")}
		}, "the executable's path is unknown: gone"},
	} {
		executable = tt.exe
		sum, msg := hashExecutable()
		if sum != "" || !strings.HasPrefix(msg, tt.want) || strings.Contains(msg, "home-of-someone") {
			t.Errorf("%s: hashExecutable() = %q, %q; want no sum and %q..., without the path", tt.name, sum, msg, tt.want)
		}
	}
}
