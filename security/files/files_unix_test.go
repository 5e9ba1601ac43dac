//go:build unix

package files

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSaveModeUnderUmask: a saved file, created or replaced, has mode 0666
// less the umask, as any file the user's programs create: never executable,
// never more open than the user asked for.
func TestSaveModeUnderUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	for _, umask := range []int{0o022, 0o027, 0o077, 0} {
		syscall.Umask(umask)
		dir := tempDir(t)
		want := os.FileMode(0o666 &^ umask)
		for _, overwrite := range []bool{false, true, true} { // create, then replace twice
			path, _, err := save(dir, "x.dst", content{data: []byte("LA:")}, overwrite)
			if err != nil {
				t.Fatalf("save(dir, %q, %v) under umask %03o = %v, want nil", "x.dst", overwrite, umask, err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != want {
				t.Errorf("save(dir, %q, %v) under umask %03o = mode %v, want %v", "x.dst", overwrite, umask, fi.Mode(), want)
			}
		}
	}
}

// TestSaveCreatesFolders: Save makes the missing folders of its directory
// as mkdir -p does, each 0777 less the umask, and writes the file there.
func TestSaveCreatesFolders(t *testing.T) {
	old := syscall.Umask(0o027)
	t.Cleanup(func() { syscall.Umask(old) })
	root := tempDir(t)
	dir := filepath.Join(root, "exports", "2026", "june")
	path, _, err := save(dir, "x.dst", content{data: []byte("LA:")}, false)
	if err != nil || path != filepath.Join(dir, "x.dst") {
		t.Fatalf("Save(%q, %q) = %q, %v; want %q, nil", dir, "x.dst", path, err, filepath.Join(dir, "x.dst"))
	}
	for _, d := range []string{"exports", "exports/2026", "exports/2026/june"} {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d)))
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o750 {
			t.Errorf("Save created %s as %v, %v; want a folder of mode 0750 (0777 less umask 027)", d, fi.Mode(), err)
		}
	}
}
