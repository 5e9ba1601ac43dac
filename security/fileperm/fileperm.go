// Package fileperm keeps the bridge's secrets on disk readable by the user
// alone, never half-written, never lost to a concurrent writer, and never
// silently replaced. It mitigates THREAT_MODEL.md:
//
//   - T10 (other-user): the config directory and every file in it are the
//     user's alone from the moment each is created (EnsureDir, WriteFile,
//     Lock), and an existing one that is not is repaired if it is the
//     user's own, with a warning through Warn naming its path and what was
//     loose, or refused if it is not (CheckFile, EnsureDir). On Unix that
//     means mode 0700 for the directory and 0600 for files. On Windows it
//     means an owner-only security descriptor: owner the process token's
//     user, and a protected DACL (nothing inherited from the parent) with
//     one entry, full control for that user; in SDDL
//     "O:<user>D:P(A;OICI;FA;;;<user>)" for the directory, whose entry files
//     later created in it inherit, and "O:<user>D:P(A;;FA;;;<user>)" for a
//     file. A new object has it from birth: it is passed to CreateDirectory
//     and CreateFile, not applied afterwards. An existing object whose DACL
//     is missing, not protected, or grants anything to anyone else (SYSTEM
//     and Administrators included; deny entries are fine) gets that DACL if
//     its owner is the token's user or default owner, else is refused with
//     an error naming the path and both principals.
//   - T13 (bad-config): a symbolic link, a non-regular file, or an object of
//     another owner is refused with an error naming its path and mode (its
//     owner, on Windows), never repaired, read or written through: acting
//     on it would act on someone else's object. Reads open without
//     following links (on Windows shared for deletion, so another bridge
//     can rename a new file over one being read) and check the file opened,
//     never the path again; a file over limits.ConfigFile is refused. A config dir EnsureDir creates is checked again after the
//     mkdir and its mode set through the handle opened with O_NOFOLLOW, so
//     another user swapping in a symlink meanwhile is refused, and the
//     link's target never chmodded. KeepAside sets a corrupt
//     file aside under a new name instead of letting it be overwritten.
//   - T14 (lost-update): WriteFile is atomic, through security/files'
//     Pending, the one writer that replaces files (temp file in the same
//     directory, fsync, rename, fsync of the directory): a crash or a
//     failed write leaves the old file or the new one, never a mix, and no
//     temp file. Lock serialises read-modify-write cycles between
//     processes (two bridges pairing at once on one config dir).
//
// Modes and DACLs stop other local users. They do not stop another process
// of the same user (T11), which can read, replace or delete anything the
// user can, hold the lock forever, or ptrace or debug the bridge: nothing
// on disk can stop it, and THREAT_MODEL.md says so. Root is not stopped
// either, nor on Windows SYSTEM or an elevated administrator, which read
// any file through backup or take-ownership privileges whatever its DACL.
//
// Not enforced on Windows: the parents EnsureDir creates for the config
// directory keep the ACL they inherit; a repair rewrites the DACL only,
// never the owner, the SACL or the integrity label; the directory is not
// fsynced after a rename; the mode constants mean nothing. Not tested on a
// real Windows machine when this was written: the rule that judges a
// descriptor (acl.go) is tested on every OS, and the Windows code is
// compiled and vetted for windows/amd64, but the tests that create, read
// back and repair real descriptors (acl_windows_test.go) run on Windows
// only, in CI's windows job.
package fileperm

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
)

const (
	// DirMode is the mode of the config directory.
	DirMode fs.FileMode = 0o700
	// FileMode is the mode of every file the bridge writes there.
	FileMode fs.FileMode = 0o600
	// CorruptSuffix starts the suffix KeepAside adds to a file's name,
	// followed by a UTC timestamp (corruptTimeFormat).
	CorruptSuffix = ".corrupt-"
	// corruptTimeFormat is the time layout in a name made by KeepAside.
	corruptTimeFormat = "20060102T150405Z"
)

// The OS hooks, defined once in fileperm_unix.go and once in
// fileperm_windows.go and held to one signature by their calls here, which
// both builds compile (CI vets windows/amd64):
//
//   - mkdirPrivate(dir) creates dir, whose parent exists, the user's alone
//     from birth. An error wraps fs.ErrExist if dir appeared meanwhile, to
//     be checked like any existing one.
//   - createPrivate(path) creates path exclusively (files.CreateWith), the
//     file the user's alone from birth.
//   - checkAccess(f, path, fi, want, warn) checks that f, opened from path
//     and described by fi, is the user's and no one else's, and repairs it
//     if it is the user's (want: the mode it should have on Unix).
//   - openDirNoFollow(path) opens the directory path, not through a final
//     link.
//   - setCreatedMode(f) gives a directory EnsureDir just made, opened as f,
//     exactly DirMode (mkdir applies the umask); nothing on Windows, where
//     the descriptor was given at creation.
//   - openLockFile(path) opens or creates path read-write; a created one is
//     the user's alone from birth.
//   - lockFile(f) takes an exclusive lock on f, blocking; unlockFile(f)
//     drops it.

// Test hooks, swapped in t.Cleanup: who "we" are, and the clock. (The
// steps of WriteFile whose failure must leave the old file intact are
// security/files' to test.)
var (
	getuid = os.Getuid
	now    = time.Now
)

// Warn receives a sentence about something repaired. The caller decides
// where it goes (stderr, with the "warning:" prefix).
type Warn func(msg string)

// EnsureDir creates dir with DirMode (an owner-only DACL on Windows) if it
// does not exist, or checks and repairs an existing one: a symbolic link, a
// non-directory or another user's directory is refused; looser bits than
// DirMode (a looser DACL) are reported and tightened. A directory it
// creates is checked again after the mkdir, like an existing one, and its
// mode set through the opened handle: another user flipping dir between
// nothing and a symlink (a --config-dir in a shared sticky folder) makes
// it fail, never accept the link or chmod its target. It creates missing
// parents too, but never the user's home directory: a dir inside a home
// (os.UserHomeDir: $HOME on Unix) that does not exist is an error naming
// the home, since HOME pointing nowhere is a mistake to report, and
// creating it would leave a home directory where none belongs.
func EnsureDir(dir string, warn Warn) error {
	f, _, err := openChecked(dir, true, warn)
	if f == nil && err == nil { // it does not exist
		if err := homeMissing(dir); err != nil {
			return err
		}
		// The parents keep what they inherit (mode 0700 less the umask on
		// Unix); only the config dir itself is private.
		err = os.MkdirAll(filepath.Dir(filepath.Clean(dir)), DirMode)
		if err == nil {
			err = mkdirPrivate(dir)
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating config directory %s: %w", dir, err)
		}
		// Made by us, or by another process meanwhile: either way it is
		// checked like any other, since between the mkdir and now anyone
		// who may write its parent can have put something else there.
		created := err == nil
		if f, _, err = openChecked(dir, true, warn); f == nil && err == nil {
			err = fmt.Errorf("config directory %s: %w", dir, fs.ErrNotExist)
		}
		if err == nil && created {
			if err = setCreatedMode(f); err != nil {
				err = fmt.Errorf("creating config directory %s: setting mode: %w", dir, err)
			}
		}
	}
	if f != nil {
		f.Close()
	}
	return err
}

// userHome is the user's home directory; a test hook.
var userHome = os.UserHomeDir

// homeMissing reports dir, about to be created, inside a home directory
// that does not exist. No home known (HOME unset) is not its business.
func homeMissing(dir string) error {
	home, err := userHome()
	if err != nil || home == "" {
		return nil
	}
	rel, err := filepath.Rel(home, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil // not inside the home
	}
	if _, err := os.Lstat(home); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("creating config directory %s: the home directory %s does not exist, and the bridge does not create one; point HOME at your home directory, or choose the directory with --config-dir", dir, home)
	}
	return nil
}

// CheckFile checks an existing file: not a symlink, a regular file, the
// user's own, no bits beyond FileMode, or on Windows no DACL beyond owner-only
// (tightened with a warning naming path and mode, or principals). A file
// that does not exist is fine.
func CheckFile(path string, warn Warn) error {
	f, _, err := openChecked(path, false, warn) // nil, nil, nil if it does not exist
	if f != nil {
		f.Close()
	}
	return err
}

// openChecked is CheckFile keeping the file open, and EnsureDir's check of
// a directory (dir). It opens path first, without following a final link
// (on Windows shared for deletion, so a writer can rename a new file over
// one being read), and then checks only what it opened, never the path
// again: a directory (dir) or a regular file, the user's own, its mode or
// DACL (checkAccess), repaired through the open object. An object swapped
// in at any moment is either the one checked or not opened at all, a link
// is never accepted nor its target's mode changed, and a reader that meets
// another bridge's rename reads the old file or the new one, never refuses
// it. A missing path returns (nil, nil, nil).
func openChecked(path string, dir bool, warn Warn) (*os.File, fs.FileInfo, error) {
	what, want, open := "", FileMode, files.OpenNoFollow
	if dir {
		what, want, open = "config directory ", DirMode, openDirNoFollow
	}
	f, err := open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		// O_NOFOLLOW refused a link, O_DIRECTORY a file, or it is a socket:
		// what is there says which, for the message. Nothing was opened.
		if fi, lerr := os.Lstat(path); lerr == nil {
			if err := kindErr(path, fi, dir); err != nil {
				return nil, fi, err
			}
		}
		return nil, nil, fmt.Errorf("%s%s: %w", what, path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	} else if err = kindErr(path, fi, dir); err == nil {
		err = checkAccess(f, path, fi, want, warn)
	}
	if err != nil {
		f.Close()
		return nil, fi, err
	}
	return f, fi, nil
}

// kindErr refuses fi, what is at path, unless it is a directory (dir) or a
// regular file.
func kindErr(path string, fi fs.FileInfo, dir bool) error {
	switch kindFault(fi, dir) {
	case Link:
		if dir {
			return fmt.Errorf("config directory %s is a symbolic link (mode %v); refusing to use it (point --config-dir at the real directory)", path, fi.Mode())
		}
		return fmt.Errorf("%s is a symbolic link (mode %v); refusing to read or write through it", path, fi.Mode())
	case WrongKind:
		if dir {
			return fmt.Errorf("config directory %s exists but is not a directory (mode %v)", path, fi.Mode())
		}
		return fmt.Errorf("%s is not a regular file (mode %v); refusing to use it", path, fi.Mode())
	}
	return nil
}

// Fault is what fileperm finds wrong with the config directory or one of
// its files: the one judgement EnsureDir, CheckFile and ReadFile act on and
// Judge reports.
type Fault int

const (
	Fine      Fault = iota
	Link            // a symbolic link: refused
	WrongKind       // not a directory, or not a regular file: refused
	NotYours        // another user's: refused
	Loose           // bits beyond DirMode or FileMode: tightened, with a warning, when opened
)

// Verdict is Judge's judgement of what is at a path.
type Verdict struct {
	Fault Fault
	Info  fs.FileInfo // what is there, not followed through a link
	Owner int         // the uid owning it; -1 where the system names none
}

// Judge says what EnsureDir (dir) or CheckFile (a file) would refuse or
// repair in what is at path, and changes nothing: for a report, such as the
// doctor's. Its access is judged where it is a mode and an owner
// (JudgesAccess); on Windows, where it is an owner-only DACL that the
// bridge checks and repairs on open, only the kind is. The error is
// os.Lstat's: fs.ErrNotExist when nothing is there.
func Judge(path string, dir bool) (Verdict, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Fault: kindFault(fi, dir), Info: fi, Owner: owner(fi)}
	if v.Fault == Fine {
		want := FileMode
		if dir {
			want = DirMode
		}
		v.Fault = accessFault(fi, want)
	}
	return v, nil
}

// kindFault judges the kind of fi: a link, or not a directory (dir) or a
// regular file, is refused.
func kindFault(fi fs.FileInfo, dir bool) Fault {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return Link
	case dir && !fi.IsDir(), !dir && !fi.Mode().IsRegular():
		return WrongKind
	}
	return Fine
}

// ReadFile checks path as CheckFile does and reads it, refusing a file over
// limits.ConfigFile bytes. A missing file returns (nil, nil).
func ReadFile(path string, warn Warn) ([]byte, error) {
	f, fi, err := openChecked(path, false, warn)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, nil
	}
	defer f.Close()
	if fi.Size() > limits.ConfigFile {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d a config file may be; refusing to read it", path, fi.Size(), limits.ConfigFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, limits.ConfigFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > limits.ConfigFile {
		return nil, fmt.Errorf("%s is more than the %d bytes a config file may be; refusing to read it", path, limits.ConfigFile)
	}
	return b, nil
}

// WriteFile replaces path with data atomically, with mode FileMode (an
// owner-only DACL on Windows, given before any byte is written), through
// security/files' Pending, the one writer that replaces files: a temp file
// in the same directory, fsync, rename over path, fsync of the directory.
// If it fails, path keeps its old content and no temp file is left. A
// symbolic link at path is replaced, never written through.
func WriteFile(path string, data []byte) error {
	p, err := files.CreateWith(path, createPrivate)
	if err != nil {
		return fmt.Errorf("writing %s: creating a file in %s: %w", path, filepath.Dir(path), err)
	}
	if _, err := p.Write(data); err != nil {
		p.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// Commit flushes the file, renames it over path (retrying a Windows
	// reader's sharing violation) and flushes the directory; a failed
	// directory flush only weakens durability across a power cut, and is
	// not reported as a failed write.
	if err := p.Commit(true); err != nil {
		return fmt.Errorf("writing %s: replacing the old file: %w", path, err)
	}
	return nil
}

// Lock takes an exclusive inter-process lock tied to path (on the file
// path+".lock", created 0600 or owner-only, never followed through a
// symbolic link) and returns the function that releases it; calling that
// more than once is harmless. It blocks until the lock is free. The OS
// releases the lock if the holder dies, so a crashed bridge cannot wedge
// another.
func Lock(path string) (unlock func(), err error) {
	lp := path + ".lock"
	if err := CheckFile(lp, nil); err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	f, err := openLockFile(lp)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			unlockFile(f)
			f.Close()
		})
	}, nil
}

// KeepAside moves a file that could not be parsed out of the way, to
// path+".corrupt-<UTC timestamp>" (with "-2", "-3", … added if that name is
// taken; an existing file is never overwritten), and returns the new path.
// The caller reports it, so the user can recover what was in it, and only
// then writes a fresh file: a corrupt pairing.json is never silently
// replaced. The file keeps its content and mode.
func KeepAside(path string) (newPath string, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("keeping %s aside: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("keeping %s aside: not a regular file (mode %v)", path, fi.Mode())
	}
	base := path + CorruptSuffix + now().UTC().Format(corruptTimeFormat)
	for i := 1; i <= 100; i++ {
		cand := base
		if i > 1 {
			cand = base + "-" + strconv.Itoa(i)
		}
		err := os.Link(path, cand) // fails if cand exists: no overwrite
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// A file system without hard links: check, then rename. The
			// config dir is the user's alone, so nobody else races us.
			if _, serr := os.Lstat(cand); serr == nil {
				continue
			}
			err = os.Rename(path, cand)
		} else if err = os.Remove(path); err != nil {
			os.Remove(cand)
		}
		if err != nil {
			return "", fmt.Errorf("keeping %s aside: %w", path, err)
		}
		// Flush the new name to disk, as far as the OS allows (Windows does
		// not flush a folder; the error is dropped).
		if d, err := os.Open(filepath.Dir(path)); err == nil {
			d.Sync()
			d.Close()
		}
		return cand, nil
	}
	return "", fmt.Errorf("keeping %s aside: too many files named %s*", path, base)
}
