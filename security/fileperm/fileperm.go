// Package fileperm keeps the bridge's secrets on disk readable by the user
// alone, never half-written, never lost to a concurrent writer, and never
// silently replaced. It mitigates THREAT_MODEL.md:
//
//   - T10 (other-user): the config directory and its files are the user's
//     alone from birth (0700 and 0600 on Unix; on Windows a protected
//     owner-only DACL passed to CreateDirectory and CreateFile, not applied
//     afterwards). An existing one that is looser is repaired with a Warn
//     if the user owns it, else refused.
//   - T13 (bad-config): a symbolic link, a non-regular file or another
//     owner's object is refused, never repaired, read or written through
//     (openChecked). KeepAside sets a corrupt file aside rather than
//     overwrite it.
//   - T14 (lost-update): WriteFile is atomic (security/files' Pending), and
//     Lock serialises read-modify-write cycles between processes.
//
// It does not stop another process of the same user (T11), root, SYSTEM or
// an elevated administrator. On Windows the parents EnsureDir creates keep
// their inherited ACL, a repair rewrites the DACL only, and the real
// descriptors are tested only in CI's Windows job.
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
	CorruptSuffix     = ".corrupt-"
	corruptTimeFormat = "20060102T150405Z"
)

// Test hooks: who "we" are, and the clock.
var (
	getuid = os.Getuid
	now    = time.Now
)

// Warn receives a sentence about something repaired.
type Warn func(msg string)

// EnsureDir creates dir with DirMode, or checks and repairs an existing
// one. It never creates a missing home directory: HOME pointing nowhere is
// a mistake to report.
func EnsureDir(dir string, warn Warn) error {
	f, _, err := openChecked(dir, true, warn)
	if f == nil && err == nil { // it does not exist
		if err := homeMissing(dir); err != nil {
			return err
		}
		// Only the config dir itself is private; parents keep the umask's.
		err = os.MkdirAll(filepath.Dir(filepath.Clean(dir)), DirMode)
		if err == nil {
			err = mkdirPrivate(dir)
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating config directory %s: %w", dir, err)
		}
		// Whoever made it, anyone who may write its parent can have swapped
		// in a symlink since: check it like any other, and set the mode
		// through the opened handle, never by path.
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

// CheckFile checks an existing file as ReadFile does; a missing one is fine.
func CheckFile(path string, warn Warn) error {
	f, _, err := openChecked(path, false, warn) // nil, nil, nil if it does not exist
	if f != nil {
		f.Close()
	}
	return err
}

// openChecked opens path without following a final link (on Windows shared
// for deletion, so another bridge can rename over it) and checks only what
// it opened, never the path again: an object swapped in is either the one
// checked or not opened at all. A missing path returns (nil, nil, nil).
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

// Fault is the one judgement the checks act on and Judge reports.
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

// Judge says what EnsureDir (dir) or CheckFile would refuse or repair at
// path, changing nothing, for a report such as the doctor's. Access is
// judged only where JudgesAccess. The error is os.Lstat's.
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

// WriteFile replaces path with data atomically, private from birth; a
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
	if err := p.Commit(true); err != nil {
		return fmt.Errorf("writing %s: replacing the old file: %w", path, err)
	}
	return nil
}

// Lock blocks until it holds an exclusive inter-process lock on
// path+".lock" and returns its release, which is safe to call twice. The OS
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

// KeepAside moves a file that could not be parsed to a new
// path+CorruptSuffix name, never over an existing file, and returns it, so
// a corrupt pairing.json is never silently replaced.
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
		if d, err := os.Open(filepath.Dir(path)); err == nil {
			d.Sync()
			d.Close()
		}
		return cand, nil
	}
	return "", fmt.Errorf("keeping %s aside: too many files named %s*", path, base)
}
