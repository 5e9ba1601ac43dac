//go:build windows

package fileperm

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// Mode bits mean nothing here: access is the owner-only security
// descriptor of acl_windows.go, given to the directory and every file as
// they are created, and checked on every existing one.

func mkdirPrivate(dir string) error {
	dir = filepath.Clean(dir)
	sa, err := privateAttributes(true)
	if err != nil {
		return err
	}
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return err
	}
	if err := windows.CreateDirectory(p, sa); err != nil {
		return &fs.PathError{Op: "mkdir", Path: dir, Err: err} // fs.ErrExist if it appeared
	}
	return nil
}

// createPrivate creates path exclusively with the owner-only descriptor
// given by CreateFile itself, so no other principal can open the file even
// before its first byte.
func createPrivate(path string) (*os.File, error) { return createFile(path, windows.CREATE_NEW) }

func openLockFile(path string) (*os.File, error) { return createFile(path, windows.OPEN_ALWAYS) }

// createFile opens name read-write, not through a final reparse point,
// shared as os.OpenFile shares; a file it creates gets the owner-only
// descriptor (privateAttributes), one it opens keeps its own.
func createFile(name string, disposition uint32) (*os.File, error) {
	sa, err := privateAttributes(false)
	if err != nil {
		return nil, err
	}
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, sa, disposition,
		windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// JudgesAccess says Judge judges the kind only here: access is the DACL,
// which checkAccess checks and repairs on open.
const JudgesAccess = false

// owner: a Windows owner is a SID, not a uid.
func owner(fs.FileInfo) int { return -1 }

// accessFault: see JudgesAccess.
func accessFault(fs.FileInfo, fs.FileMode) Fault { return Fine }

func checkAccess(f *os.File, path string, fi fs.FileInfo, _ fs.FileMode, warn Warn) error {
	tok, err := currentToken()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s, err := readSecInfo(windows.Handle(f.Fd()))
	if err != nil {
		return fmt.Errorf("%s: reading its security descriptor: %w", path, err)
	}
	me := token{user: tok.user.String(), defaultOwner: tok.owner.String()}
	return checkACL(path, s, me, principalName, func() error { return repairDACL(path, fi, tok.user) }, warn)
}

// openDirNoFollow is files.OpenNoFollow, which opens folders too, not
// through a final reparse point.
func openDirNoFollow(path string) (*os.File, error) { return files.OpenNoFollow(path) }

// setCreatedMode: the owner-only descriptor was given by CreateDirectory.
func setCreatedMode(*os.File) error { return nil }

func lockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
}

func unlockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}
