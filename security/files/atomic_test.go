package files

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

func swap[T any](t *testing.T, p *T, v T) {
	t.Helper()
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

// pending writes data through a Pending for path and commits it.
func pending(t *testing.T, path string, data []byte, replace bool) error {
	t.Helper()
	p, err := CreateWith(path, nil)
	if err != nil {
		t.Fatalf("CreateWith(%q) = %v", path, err)
	}
	if _, err := p.Write(data); err != nil {
		t.Fatalf("Pending.Write = %v", err)
	}
	return p.Commit(replace)
}

// A Pending puts a whole file in place, replacing the old one, or only
// where nothing is, and leaves no temporary file either way.
func TestPendingCommit(t *testing.T) {
	dir := tempDir(t)
	path := filepath.Join(dir, "out.png")
	if err := pending(t, path, []byte("one"), false); err != nil {
		t.Fatalf("Commit(false) of a new file = %v", err)
	}
	if err := pending(t, path, []byte("two"), false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Commit(false) over a file = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("Commit(false) over a file changed it to %q", b)
	}
	if err := pending(t, path, []byte("three"), true); err != nil {
		t.Errorf("Commit(true) = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "three" {
		t.Errorf("Commit(true) left %q, want three", b)
	}
	p, _ := CreateWith(path, nil)
	p.Write([]byte("four"))
	p.Abort()
	if got := tree(t, dir); !reflect.DeepEqual(got, []string{"out.png"}) {
		t.Errorf("after commits and an abort the folder holds %q, want out.png alone", got)
	}
}

// A failed flush or rename leaves the old file as it was and no
// temporary file.
func TestPendingFailureKeepsOld(t *testing.T) {
	boom := errors.New("disk on fire")
	for name, breakIt := range map[string]func(t *testing.T){
		"fsync fails":  func(t *testing.T) { swap(t, &syncFile, func(*os.File) error { return boom }) },
		"rename fails": func(t *testing.T) { swap(t, &renameAt, func(*os.Root, string, string) error { return boom }) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := tempDir(t)
			path := filepath.Join(dir, "pairing.json")
			write(t, path, []byte("old"))
			breakIt(t)
			if err := pending(t, path, []byte("new"), true); !errors.Is(err, boom) {
				t.Errorf("Commit(true) = %v, want %v", err, boom)
			}
			if got := tree(t, dir); !reflect.DeepEqual(got, []string{"pairing.json"}) {
				t.Errorf("a failed commit left %q, want pairing.json alone", got)
			}
			if b, _ := os.ReadFile(path); string(b) != "old" {
				t.Errorf("a failed commit changed the file to %q", b)
			}
		})
	}
}

// On a file system without hard links, Commit(false) copies into a file
// created exclusively, and one that appears meanwhile is not replaced.
func TestPendingWithoutHardLinks(t *testing.T) {
	swap(t, &linkAt, func(*os.Root, string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} })
	dir := tempDir(t)
	path := filepath.Join(dir, "out.png")
	if err := pending(t, path, pngBytes, false); err != nil {
		t.Fatalf("Commit(false) without hard links = %v", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, pngBytes) {
		t.Errorf("Commit(false) without hard links wrote %q, want the image", b)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, []string{"out.png"}) {
		t.Errorf("Commit(false) without hard links left %q, want out.png alone", got)
	}

	swap(t, &linkAt, func(_ *os.Root, _, name string) error {
		os.WriteFile(filepath.Join(dir, name), []byte("theirs"), 0o644)
		return &os.LinkError{Op: "link", Err: syscall.EXDEV}
	})
	raced := filepath.Join(dir, "raced.png")
	if err := pending(t, raced, pngBytes, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Commit(false) raced without hard links = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(raced); string(b) != "theirs" {
		t.Errorf("Commit(false) raced without hard links: the file holds %q, want it untouched", b)
	}
}

// A copy that fails leaves neither the file nor the temporary file.
func TestPendingFailedCopy(t *testing.T) {
	swap(t, &linkAt, func(*os.Root, string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} })
	swap(t, &copyFile, func(dst io.Writer, src io.Reader) (int64, error) {
		n, _ := io.CopyN(dst, src, 3)
		return n, errors.New("disk full")
	})
	dir := tempDir(t)
	if err := pending(t, filepath.Join(dir, "out.png"), pngBytes, false); err == nil || err.Error() != "disk full" {
		t.Errorf("Commit(false) with a failed copy = %v, want disk full", err)
	}
	if got := tree(t, dir); len(got) != 0 {
		t.Errorf("Commit(false) with a failed copy left %q, want nothing", got)
	}
}

// A file held open by a reader through OpenNoFollow is replaced, and the
// reader keeps reading the old one. On Windows this needs the reader's
// FILE_SHARE_DELETE: os.Open's handle makes the rename fail with "Access
// is denied", as it did between two bridges sharing pairing.json.
func TestPendingReplacesFileHeldOpen(t *testing.T) {
	dir := tempDir(t)
	path := filepath.Join(dir, "pairing.json")
	write(t, path, []byte("old"))
	f, err := OpenNoFollow(path)
	if err != nil {
		t.Fatalf("OpenNoFollow(%q) = %v", path, err)
	}
	defer f.Close()
	if err := pending(t, path, []byte("new"), true); err != nil {
		t.Fatalf("Commit(true) while a reader holds the file = %v, want it replaced", err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "old" {
		t.Errorf("the reader read %q, %v; want the old file", b, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("after the commit the file holds %q, want new", b)
	}
}
