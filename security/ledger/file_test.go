package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/limits"
)

// ledgerPath is a spent-token file in a fresh 0700 directory.
func ledgerPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "spent-tokens")
}

func TestFileName(t *testing.T) {
	// Written from the documents (SECURITY.md), not from the constant.
	if FileName != "spent-tokens" {
		t.Errorf("FileName = %q, want %q", FileName, "spent-tokens")
	}
}

func TestFileBounds(t *testing.T) {
	if FileKeep < Keep {
		t.Errorf("FileKeep = %d < Keep = %d: the file would remember less than usedTokens", FileKeep, Keep)
	}
	if FileKeep >= maxFileLines {
		t.Errorf("FileKeep = %d, want it well under maxFileLines = %d", FileKeep, maxFileLines)
	}
	if maxFileLines*lineLen > limits.ConfigFile {
		t.Errorf("maxFileLines*lineLen = %d > limits.ConfigFile = %d: a full file could not be read back", maxFileLines*lineLen, limits.ConfigFile)
	}
}

func TestFileRoundTrip(t *testing.T) {
	path := ledgerPath(t)
	f, err := ReadFile(path, nil)
	if err != nil {
		t.Fatalf("ReadFile(missing) = %v, want an empty ledger", err)
	}
	if f.Len() != 0 || f.Spent(tokA) {
		t.Fatalf("ReadFile(missing): Len %d, Spent %v; want 0, false", f.Len(), f.Spent(tokA))
	}
	f.Record(tokA)
	if !f.Spent(tokA) {
		t.Error("Spent after Record = false, want true")
	}
	if err := f.Write(nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := fpA + "\n"; string(b) != want {
		t.Errorf("file content = %q, want %q", b, want)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("file mode = %04o, want 0600", fi.Mode().Perm())
		}
	}
	g, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Spent(tokA) || g.Spent("tok_other") {
		t.Errorf("re-read: Spent(%q) = %v, Spent(other) = %v; want true, false", tokA, g.Spent(tokA), g.Spent("tok_other"))
	}
	// Recording again changes nothing and writes nothing: the file is
	// replaced on every write, so the same inode proves no write happened.
	before, _ := os.Stat(path)
	g.Record(tokA)
	if err := g.Write(nil); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !os.SameFile(before, after) {
		t.Error("Write with nothing new rewrote the file, want no write at all")
	}
}

func TestFileAppendsNewestLast(t *testing.T) {
	path := ledgerPath(t)
	f, _ := ReadFile(path, nil)
	for i := range 3 {
		f.Record(fmt.Sprintf("tok_%d", i))
		if err := f.Write(nil); err != nil {
			t.Fatal(err)
		}
		f, _ = ReadFile(path, nil)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines = %q, want 3", lines)
	}
	for i, line := range lines {
		if !Spent([]string{line}, fmt.Sprintf("tok_%d", i)) {
			t.Errorf("line %d = %q, want the fingerprint of tok_%d (oldest first)", i+1, line, i)
		}
	}
}

func TestReadFileForgives(t *testing.T) {
	path := ledgerPath(t)
	content := "\n  " + strings.ToUpper(fpA) + "  \r\n\n5e884898da28047151d0e56f8dc62927\n" + fpA + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path, nil)
	if err != nil {
		t.Fatalf("ReadFile(%q) = %v, want it read", content, err)
	}
	if !f.Spent(tokA) || f.Len() != 2 {
		t.Errorf("ReadFile(%q): Spent %v, Len %d; want true, 2 (case, space, blank lines and repeats forgiven)", content, f.Spent(tokA), f.Len())
	}
}

func TestReadFileRefusesCorrupt(t *testing.T) {
	tests := []struct {
		name, content string
		line          int
	}{
		{"junk", fpA + "\nnot a fingerprint\n", 2},
		{"token in the clear", tokA + "\n", 1},
		{"short", fpA[:31] + "\n", 1},
		{"long", fpA + "0\n", 1},
		{"full sha256", fpA + fpA + "\n", 1},
		{"not hex", strings.Repeat("g", 32) + "\n", 1},
		{"torn last line", fpA + "\n" + fpA[:10], 2},
		{"two on a line", fpA + " " + fpA + "\n", 1},
		{"binary", "\x00\x01\x02", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ledgerPath(t)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path, nil)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("ReadFile(%q) = %v, want ErrCorrupt", tt.content, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, fmt.Sprintf("line %d ", tt.line)) {
				t.Errorf("ReadFile(%q) error %q, want it to name %s and line %d", tt.content, msg, path, tt.line)
			}
			if strings.Contains(msg, "0123456789ab") {
				t.Errorf("ReadFile error %q echoes the file's content", msg)
			}
		})
	}
}

func TestReadFileRefusesUnsafe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	t.Run("symlink", func(t *testing.T) {
		path := ledgerPath(t)
		target := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.WriteFile(target, []byte(fpA+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(path, nil); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadFile(symlink) = %v, want an error naming %s", err, path)
		}
	})
	t.Run("too large", func(t *testing.T) {
		path := ledgerPath(t)
		big := strings.Repeat(fpA+"\n", limits.ConfigFile/lineLen+1)
		if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(path, nil); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadFile(%d bytes) = %v, want an error naming %s", len(big), err, path)
		}
	})
	t.Run("directory", func(t *testing.T) {
		path := ledgerPath(t)
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(path, nil); err == nil {
			t.Error("ReadFile(a directory) = nil error, want one")
		}
	})
}

func TestAddSkipsNonFingerprints(t *testing.T) {
	f, _ := ReadFile(ledgerPath(t), nil)
	f.Add("", tokA, "xyz", strings.ToUpper(fpA), " "+fpA+" ")
	if f.Len() != 1 || !f.Spent(tokA) {
		t.Errorf("Add: Len %d, Spent %v; want 1, true (one valid fingerprint, normalised, once)", f.Len(), f.Spent(tokA))
	}
	if err := f.Write(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(f.Path(), nil); err != nil {
		t.Errorf("ReadFile after Write = %v, want what was written to read back", err)
	}
}

func TestWriteKeepsNewestAndPinned(t *testing.T) {
	path := ledgerPath(t)
	f, _ := ReadFile(path, nil)
	const extra = 5
	for i := range FileKeep + extra {
		f.Record(fmt.Sprintf("tok_%05d", i))
	}
	// tok_00001 is still in some usedTokens list: it must be kept.
	pinned := Record(nil, "tok_00001")
	if err := f.Write(pinned); err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != FileKeep+1 {
		t.Errorf("Len after Write = %d, want FileKeep+1 = %d (the newest FileKeep and one pinned)", g.Len(), FileKeep+1)
	}
	for i, want := range map[int]bool{0: false, 1: true, 2: false, extra - 1: false, extra: true, FileKeep + extra - 1: true} {
		if tok := fmt.Sprintf("tok_%05d", i); g.Spent(tok) != want {
			t.Errorf("Spent(%q) after compaction = %v, want %v", tok, !want, want)
		}
	}
	if g.fps[len(g.fps)-1] != Record(nil, fmt.Sprintf("tok_%05d", FileKeep+extra-1))[0] {
		t.Error("newest fingerprint is not last after compaction")
	}
}
