// Package fileperm keeps the bridge's secrets on disk readable by the user
// alone, never half-written, never lost to a concurrent writer, and never
// silently replaced. It mitigates THREAT_MODEL.md:
//
//   - T10 (other-user): the config directory is 0700 and every file in it
//     0600 on create (EnsureDir, WriteFile, Lock). An existing directory or
//     file with looser bits is reported by path and mode through Warn, then
//     tightened if it is the user's own (CheckFile, EnsureDir).
//   - T13 (bad-config): a symbolic link, a non-regular file, or an object of
//     another owner is refused with an error naming its path and mode,
//     never repaired, read or written through: acting on it would act on
//     someone else's object. Reads open without following links and check
//     that the file opened is the one inspected; a file over
//     limits.ConfigFile is refused. KeepAside sets a corrupt file aside
//     under a new name instead of letting it be overwritten.
//   - T14 (lost-update): WriteFile is atomic (temp file in the same
//     directory, fsync, rename, fsync of the directory): a crash or a
//     failed write leaves the old file or the new one, never a mix, and no
//     temp file. Lock serialises read-modify-write cycles between
//     processes (two bridges pairing at once on one config dir).
//
// File modes stop other local users. They do not stop another process of
// the same user (T11), which can read, replace or delete anything the user
// can, hold the lock forever, or ptrace the bridge: nothing on disk can
// stop it, and THREAT_MODEL.md says so. Root is not stopped either. On
// Windows the modes are not enforced by the OS the same way; the profile
// directory's ACL is what protects the files, and owner checks are skipped.
package fileperm

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/limits"
)

const (
	// DirMode is the mode of the config directory.
	DirMode fs.FileMode = 0o700
	// FileMode is the mode of every file the bridge writes there.
	FileMode fs.FileMode = 0o600
	// CorruptSuffix starts the suffix KeepAside adds to a file's name,
	// followed by a UTC timestamp (CorruptTimeFormat).
	CorruptSuffix = ".corrupt-"
	// CorruptTimeFormat is the time layout in a name made by KeepAside.
	CorruptTimeFormat = "20060102T150405Z"
)

// Test hooks, swapped in t.Cleanup: who "we" are, the clock, and the two
// steps of WriteFile whose failure must leave the old file intact.
var (
	getuid   = os.Getuid
	now      = time.Now
	syncFile = (*os.File).Sync
	rename   = os.Rename
)

// Warn receives a sentence about something repaired. The caller decides
// where it goes (stderr, with the "warning:" prefix).
type Warn func(msg string)

// EnsureDir creates dir with DirMode if it does not exist, or checks and
// repairs an existing one: a symbolic link, a non-directory or another
// user's directory is refused; looser bits than DirMode are reported and
// tightened.
func EnsureDir(dir string, warn Warn) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, DirMode); err != nil {
			return fmt.Errorf("creating config directory %s: %w", dir, err)
		}
		// MkdirAll applies the umask; make the mode exact.
		if err := os.Chmod(dir, DirMode); err != nil && modesEnforced {
			return fmt.Errorf("setting mode of config directory %s: %w", dir, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("config directory %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("config directory %s is a symbolic link (mode %v); refusing to use it (point --config-dir at the real directory)", dir, fi.Mode())
	}
	if !fi.IsDir() {
		return fmt.Errorf("config directory %s exists but is not a directory (mode %v)", dir, fi.Mode())
	}
	f, err := openNoFollow(dir)
	if err != nil {
		return fmt.Errorf("config directory %s: %w", dir, err)
	}
	defer f.Close()
	return checkOpened(f, dir, fi, DirMode, warn)
}

// CheckFile checks an existing file: not a symlink, a regular file, the
// user's own, no bits beyond FileMode (tightened with a warning naming path
// and mode). A file that does not exist is fine.
func CheckFile(path string, warn Warn) error {
	f, fi, err := openChecked(path, warn)
	if f != nil {
		f.Close()
	}
	if fi == nil && err == nil {
		return nil // does not exist
	}
	return err
}

// openChecked is CheckFile keeping the file open: it inspects path without
// following links, opens it without following links, and checks that what
// it opened is what it inspected, so a file swapped in between is refused.
// A missing file returns (nil, nil, nil).
func openChecked(path string, warn Warn) (*os.File, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fi, fmt.Errorf("%s is a symbolic link (mode %v); refusing to read or write through it", path, fi.Mode())
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%s is not a regular file (mode %v); refusing to use it", path, fi.Mode())
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, fi, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkOpened(f, path, fi, FileMode, warn); err != nil {
		f.Close()
		return nil, fi, err
	}
	return f, fi, nil
}

// checkOpened checks the opened f against the inspected fi, its owner, and
// its mode, tightening a loose mode through the descriptor (never the path,
// which could have been swapped).
func checkOpened(f *os.File, path string, fi fs.FileInfo, want fs.FileMode, warn Warn) error {
	ofi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !os.SameFile(fi, ofi) {
		return fmt.Errorf("%s changed while it was being checked; refusing to use it", path)
	}
	if err := checkOwner(path, ofi); err != nil {
		return err
	}
	got := ofi.Mode().Perm()
	if !modesEnforced || got&^want == 0 {
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

// ReadFile checks path as CheckFile does and reads it, refusing a file over
// limits.ConfigFile bytes. A missing file returns (nil, nil).
func ReadFile(path string, warn Warn) ([]byte, error) {
	f, fi, err := openChecked(path, warn)
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

// WriteFile replaces path with data atomically, with mode FileMode: a temp
// file in the same directory, fsync, rename over path, fsync of the
// directory. If it fails, path keeps its old content and no temp file is
// left. A symbolic link at path is replaced, never written through.
func WriteFile(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	// CreateTemp opens with O_EXCL and mode 0600 before the umask.
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				f.Close()
			}
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(FileMode); err != nil && modesEnforced {
		return fmt.Errorf("writing %s: setting mode: %w", path, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = syncFile(f); err != nil {
		return fmt.Errorf("writing %s: flushing to disk: %w", path, err)
	}
	closed = true
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: replacing the old file: %w", path, err)
	}
	// The rename is done; a failed directory sync only weakens durability
	// across a power cut, so it is not reported as a failed write.
	syncDir(dir)
	return nil
}

// Lock takes an exclusive inter-process lock tied to path (on the file
// path+".lock", created 0600, never followed through a symbolic link) and
// returns the function that releases it; calling that more than once is
// harmless. It blocks until the lock is free. The OS releases the lock if
// the holder dies, so a crashed bridge cannot wedge another.
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
	base := path + CorruptSuffix + now().UTC().Format(CorruptTimeFormat)
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
			if rerr := os.Rename(path, cand); rerr != nil {
				return "", fmt.Errorf("keeping %s aside: %w", path, rerr)
			}
			syncDir(filepath.Dir(path))
			return cand, nil
		}
		if err := os.Remove(path); err != nil {
			os.Remove(cand)
			return "", fmt.Errorf("keeping %s aside: %w", path, err)
		}
		syncDir(filepath.Dir(path))
		return cand, nil
	}
	return "", fmt.Errorf("keeping %s aside: too many files named %s*", path, base)
}
