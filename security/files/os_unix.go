//go:build unix

package files

import (
	"io/fs"
	"os"
	"syscall"
)

// openNonblock keeps an open from blocking on a FIFO swapped in for a file
// after its inspection; the check that follows refuses it.
const openNonblock = syscall.O_NONBLOCK

func link(fi fs.FileInfo) bool { return fi.Mode()&fs.ModeSymlink != 0 }

// renameRetrying is renameAt: a Unix rename is never refused for a reader
// holding the file, as a Windows one is (os_windows.go).
func renameRetrying(r *os.Root, old, new string) error { return renameAt(r, old, new) }

// OpenNoFollow opens path for reading, not through a final symbolic link
// (O_NOFOLLOW), and without blocking should it be a FIFO swapped in after
// the caller's inspection.
func OpenNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// longName is for Windows' 8.3 short names; Unix has none.
func longName(_, name string) string { return name }

// owned reports whether fi is owned by the user the bridge runs as, or,
// with orRoot, by root.
func owned(fi fs.FileInfo, orRoot bool) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (int(st.Uid) == os.Geteuid() || orRoot && st.Uid == 0)
}
