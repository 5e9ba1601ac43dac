//go:build unix

package fileperm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// mkdirPrivate uses Mkdir, which fails on a symlink already there (MkdirAll
// would take one to a directory for the directory).
func mkdirPrivate(dir string) error { return os.Mkdir(dir, DirMode) }

// setCreatedMode: Mkdir applied the umask.
func setCreatedMode(f *os.File) error { return f.Chmod(DirMode) }

// createPrivate creates path exclusively; Chmod makes its mode exactly
// FileMode (OpenFile applied the umask) before any byte is written.
func createPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(FileMode); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("setting mode: %w", err)
	}
	return f, nil
}

// JudgesAccess says Judge judges access: modes and owners, here.
const JudgesAccess = true

// owner is the uid owning fi's object; -1 if the system does not say.
func owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// accessFault judges fi's owner, and its mode against want.
func accessFault(fi fs.FileInfo, want fs.FileMode) Fault {
	if o := owner(fi); o >= 0 && o != getuid() {
		return NotYours
	}
	if fi.Mode().Perm()&^want != 0 {
		return Loose
	}
	return Fine
}

// checkAccess refuses another uid's object and tightens bits beyond want
// through f.
func checkAccess(f *os.File, path string, fi fs.FileInfo, want fs.FileMode, warn Warn) error {
	got := fi.Mode().Perm()
	switch accessFault(fi, want) {
	case NotYours:
		return fmt.Errorf("%s (mode %04o) belongs to uid %d, not to you (uid %d); refusing to use it", path, got, owner(fi), getuid())
	case Fine:
		return nil
	}
	if err := f.Chmod(want); err != nil {
		return fmt.Errorf("%s has mode %04o, looser than %04o, and could not be repaired: %w", path, got, want, err)
	}
	if warn != nil {
		warn(fmt.Sprintf("%s had mode %04o, looser than %04o; repaired to %04o", path, got, want, want))
	}
	return nil
}

// openDirNoFollow opens the directory path, refusing a final symbolic link
// (O_NOFOLLOW) and anything but a directory (O_DIRECTORY).
func openDirNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}

func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, FileMode)
}

func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
