//go:build unix

package fileperm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

const modesEnforced = true

func checkOwner(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s (mode %04o) belongs to uid %d, not to you (uid %d); refusing to use it", path, fi.Mode().Perm(), st.Uid, uid)
	}
	return nil
}

// openNoFollow opens path for reading without following a final symbolic
// link, and without blocking should it be a FIFO swapped in after Lstat.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, FileMode)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
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
