//go:build windows

package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/windows"
)

const openNonblock = 0

// link reports whether fi, from Lstat, is a symbolic link or a junction
// (mount point), the reparse points a path is redirected through: Go
// reports a junction as irregular and not a directory, and a walk must
// follow it itself. Other reparse points keep their kind: a folder synced
// by OneDrive is irregular and a directory, and is walked as one.
func link(fi fs.FileInfo) bool {
	m := fi.Mode()
	return m&fs.ModeSymlink != 0 || m&fs.ModeIrregular != 0 && !m.IsDir()
}

// renameRetries and renameBackoff bound how long Commit waits for a reader
// that opened the target without FILE_SHARE_DELETE (an antivirus, an
// editor) to let go of it.
const (
	renameRetries = 20
	renameBackoff = 10 * time.Millisecond
)

// renameRetrying renames old over new in r, retrying while another process
// has the file open without FILE_SHARE_DELETE.
func renameRetrying(r *os.Root, old, new string) error {
	for i := 0; ; i++ {
		err := renameAt(r, old, new)
		if err == nil || i == renameRetries || !sharingViolation(err) {
			return err
		}
		time.Sleep(renameBackoff)
	}
}

func sharingViolation(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// OpenNoFollow opens path for reading, not through a final reparse point
// (FILE_FLAG_OPEN_REPARSE_POINT), a folder too (FILE_FLAG_BACKUP_SEMANTICS),
// and shared for reading, writing and deleting. os.Open does not share
// delete, so while a bridge read pairing.json another could not rename a
// new one over it ("Access is denied"); with FILE_SHARE_DELETE the rename
// replaces the name and this handle keeps reading the old file.
func OpenNoFollow(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING,
		windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// longName returns the long name of name in the folder dir, which may be
// an 8.3 short name (SSH~1 for .ssh), or name itself if it cannot tell. A
// short name's mapping to a long one belongs to the folder's owner, so
// asking by path is no race another user can win.
func longName(dir, name string) string {
	p, err := windows.UTF16PtrFromString(filepath.Join(dir, name))
	if err != nil {
		return name
	}
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetLongPathName(p, &buf[0], uint32(len(buf)))
	if err != nil || n == 0 || int(n) > len(buf) {
		return name
	}
	return filepath.Base(windows.UTF16ToString(buf[:n]))
}

// owned is true on Windows: a folder's or a link's owner is not consulted
// there (THREAT_MODEL.md T16).
func owned(fs.FileInfo, bool) bool { return true }
