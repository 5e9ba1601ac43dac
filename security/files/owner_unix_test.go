//go:build unix

package files

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user another local user's files are given to here.
const nobody = 65534

// sharedTmp makes a sticky world-writable folder, as /tmp is, for the
// tests of another local user (THREAT_MODEL.md T16, other user); giving a
// file away needs root.
func sharedTmp(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	shared := filepath.Join(tempDir(t), "tmp")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return shared
}

// TestSec_ForeignLinkNotFollowed: another user's symbolic link in a
// sticky world-writable folder, pointing at the user's own project, is
// not followed (the kernel's fs.protected_symlinks would not follow it;
// the walk, which reads links itself, must not either): nothing of the
// project is replaced, and Prepare refuses before the call.
func TestSec_ForeignLinkNotFollowed(t *testing.T) {
	shared := sharedTmp(t)
	victim := filepath.Join(tempDir(t), "project")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(victim, "logo.stitchslop.png"), []byte("the user's own"))
	link := filepath.Join(shared, "stitch-export")
	symlink(t, victim, link)
	if err := os.Lchown(link, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	const want = "a symbolic link another user owns"
	if err := Prepare(link); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Prepare(another user's link) = %v, want it saying %q", err, want)
	}
	if p, err := (&Batch{Dir: link, Overwrite: true}).Save("logo.png", pngBytes); err == nil {
		t.Errorf("Batch.Save through another user's link = %q, want it refused", p)
	}
	if _, err := Read(filepath.Join(link, "logo.stitchslop.png"), DataURL); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read through another user's link = %v, want it saying %q", err, want)
	}
	if b, _ := os.ReadFile(filepath.Join(victim, "logo.stitchslop.png")); string(b) != "the user's own" {
		t.Errorf("the project's file now holds %q", b)
	}
}

// TestSec_ForeignFolderRefused: a folder another user made (before the
// walk's Mkdir, or at any time) is not written into, whether the agent
// named it or the walk was to make it: the user's files go only into
// folders the user owns, which no one else can rename or replace in.
func TestSec_ForeignFolderRefused(t *testing.T) {
	shared := sharedTmp(t)
	theirs := filepath.Join(shared, "designs")
	if err := os.Mkdir(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	const want = "a folder another user owns"
	if err := Prepare(theirs); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Prepare(another user's folder) = %v, want it saying %q", err, want)
	}
	if p, err := (&Batch{Dir: theirs}).Save("rose.dst", []byte("LA:")); err == nil {
		t.Errorf("Batch.Save into another user's folder = %q, want it refused", p)
	}
	if err := CheckOut(filepath.Join(theirs, "x.png"), false); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckOut into another user's folder = %v, want it saying %q", err, want)
	}
	if ents, _ := os.ReadDir(theirs); len(ents) != 0 {
		t.Errorf("another user's folder now holds %v", ents)
	}
	// A folder the walk makes is the user's; one of ours under theirs is ours.
	mine := filepath.Join(shared, "mine", "sub")
	if err := Prepare(mine); err != nil {
		t.Errorf("Prepare(%s) = %v, want it made", mine, err)
	}
}

// TestSec_SavedToIsResolved: a save through the user's own link reports
// the path the file was really written at, not the link's.
func TestSec_SavedToIsResolved(t *testing.T) {
	real := tempDir(t)
	link := filepath.Join(tempDir(t), "link")
	symlink(t, real, link)
	p, err := (&Batch{Dir: link}).Save("rose.dst", []byte("LA:"))
	if want := filepath.Join(real, "rose.stitchslop.dst"); err != nil || p != want {
		t.Errorf("Batch.Save through a link = %q, %v; want %q", p, err, want)
	}
}

// TestSec_OverwriteOnlyReplacesRegularFiles: THREAT_MODEL A5, never over
// a non-regular file: with overwrite, a FIFO or a symbolic link at the
// name is refused and left as it was, never replaced nor written through.
func TestSec_OverwriteOnlyReplacesRegularFiles(t *testing.T) {
	dir := tempDir(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "rose.stitchslop.dst"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(tempDir(t), "passwd")
	write(t, target, []byte("root:x:0:0"))
	symlink(t, target, filepath.Join(dir, "lily.stitchslop.dst"))
	b := &Batch{Dir: dir, Overwrite: true}
	for _, n := range []string{"rose.dst", "lily.dst"} {
		built := strings.TrimSuffix(n, ".dst") + ".stitchslop.dst"
		before, _ := os.Lstat(filepath.Join(dir, built))
		if p, err := b.Save(n, []byte("LA:")); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
			t.Errorf("Batch.Save(%s) with overwrite over a %v = %q, %v; want it refused", n, before.Mode().Type(), p, err)
		}
		if after, err := os.Lstat(filepath.Join(dir, built)); err != nil || after.Mode() != before.Mode() {
			t.Errorf("%s is now %v, %v; want the %v left", built, after, err, before.Mode())
		}
	}
	if got, _ := os.ReadFile(target); string(got) != "root:x:0:0" {
		t.Errorf("the link's target now holds %q", got)
	}
}
