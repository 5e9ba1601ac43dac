//go:build unix

package files

import (
	"os"
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
			path, err := Save(dir, "x.dst", []byte("LA:"), overwrite)
			if err != nil {
				t.Fatalf("Save(dir, %q, %v) under umask %03o = %v, want nil", "x.dst", overwrite, umask, err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != want {
				t.Errorf("Save(dir, %q, %v) under umask %03o = mode %v, want %v", "x.dst", overwrite, umask, fi.Mode(), want)
			}
		}
	}
}
