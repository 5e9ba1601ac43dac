//go:build windows

package fileperm

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// Windows does not map Unix permission bits onto ACLs; the user profile's
// ACL protects the config directory.
const modesEnforced = false

func checkOwner(string, fs.FileInfo) error { return nil }

// openNoFollow opens path after the caller's Lstat found no link; the
// SameFile check that follows catches a swap.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
}

func syncDir(string) {}

func lockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
}

func unlockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}
