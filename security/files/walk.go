package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// maxLinks bounds the symbolic links one walk follows, as Linux does.
const maxLinks = 40

// maxRaces bounds how often a walk looks again at an entry replaced
// between its inspection and its opening: more in a row is someone
// flipping it.
const maxRaces = 8

// errChanged is wrapped by a walk that met an entry flipping faster than
// it could open it.
var errChanged = errors.New("changed while being opened")

// Test hooks: a step of the walk that opens a directory or a file, so a
// test can swap the entry between the inspection and the opening.
var (
	openDir  = (*os.Root).OpenRoot
	openFile = func(r *os.Root, name string) (*os.File, error) { return r.OpenFile(name, os.O_RDONLY|openNonblock, 0) }
)

// walked is a path opened component by component from its volume's root,
// every symbolic link resolved by the walk itself, never by the kernel:
// roots[i] is the directory named by names[:i], so roots[0] is the
// volume's root and the last is the folder the path names.
type walked struct {
	abs   string // the path walked, made absolute and clean
	vol   string
	roots []*os.Root
	names []string
}

func (w *walked) dir() *os.Root { return w.roots[len(w.roots)-1] }

// path is the resolved path of the walk's last folder.
func (w *walked) path() string {
	return w.vol + string(filepath.Separator) + strings.Join(w.names, string(filepath.Separator))
}

func (w *walked) close() {
	for _, r := range w.roots {
		r.Close()
	}
	w.roots = nil
}

// reset goes back to the root of the volume vol.
func (w *walked) reset(vol string) error {
	r, err := os.OpenRoot(vol + string(filepath.Separator))
	if err != nil {
		return err
	}
	w.close()
	w.vol, w.roots, w.names = vol, []*os.Root{r}, nil
	return nil
}

// walk opens path race-free: each component is inspected without
// following it, opened from the directory already opened, and checked to
// be the object inspected; a symbolic link the user or root owns is read
// and its target walked the same way. So the hidden-name rule applies to
// the path the object is really reached by, and an entry swapped under the
// walk makes it look again or fail. With file, the last component is a
// regular file opened for reading; without, a folder that must be the
// user's own, and with create its missing folders are made.
func walk(path string, file, create bool) (*walked, *os.File, error) {
	verb, what := "written to", "directory" // what is not done to a hidden path, and what path is
	if file {
		verb, what = "sent", "path"
	}
	if path == "" {
		return nil, nil, errors.New("files: empty " + what)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, fmt.Errorf("files: %w", err)
	}
	if h := hidden(abs); h != "" {
		return nil, nil, fmt.Errorf("files: %s: hidden files and folders are not %s (%s)", q(abs), verb, gate.Quote(h))
	}
	w := &walked{abs: abs}
	vol := filepath.VolumeName(abs)
	if err := w.reset(vol); err != nil {
		return nil, nil, fmt.Errorf("files: %w", err)
	}
	todo := split(abs[len(vol):])
	viaLink := false
	for links := 0; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			if len(w.roots) > 1 {
				w.roots[len(w.roots)-1].Close()
				w.roots, w.names = w.roots[:len(w.roots)-1], w.names[:len(w.names)-1]
			}
			continue
		}
		if strings.Contains(name, "~") {
			name = longName(w.path(), name) // SSH~1 is .ssh
		}
		if name[0] == '.' {
			w.close()
			if viaLink {
				return nil, nil, fmt.Errorf("files: %s links to %s: hidden files and folders are not %s (%s)", q(abs), q(filepath.Join(w.path(), name)), verb, gate.Quote(name))
			}
			return nil, nil, fmt.Errorf("files: %s: hidden files and folders are not %s (%s)", q(abs), verb, gate.Quote(name))
		}
		last := len(todo) == 0 && file
		sub, f, target, err := step(w.dir(), name, last, create)
		if err != nil {
			w.close()
			return nil, nil, fmt.Errorf("files: %s: %w", q(filepath.Join(w.path(), name)), err)
		}
		if sub == nil && f == nil { // a link
			if links++; links > maxLinks {
				w.close()
				return nil, nil, fmt.Errorf("files: %s: more than %d symbolic links", q(abs), maxLinks)
			}
			viaLink = true
			tvol := filepath.VolumeName(target)
			if filepath.IsAbs(target) || tvol != "" || strings.HasPrefix(target, string(filepath.Separator)) {
				if tvol == "" {
					tvol = w.vol
				}
				if err := w.reset(tvol); err != nil {
					w.close()
					return nil, nil, fmt.Errorf("files: %s: %w", q(abs), cause(err))
				}
				target = target[len(tvol):]
			}
			todo = append(split(target), todo...)
			continue
		}
		if f != nil {
			return w, f, nil
		}
		w.roots, w.names = append(w.roots, sub), append(w.names, name)
	}
	if file {
		w.close()
		return nil, nil, fmt.Errorf("files: %s is not a regular file", q(abs))
	}
	// A folder another user owns is theirs to rename and replace in.
	if fi, err := w.dir().Stat("."); err != nil || !owned(fi, false) {
		w.close()
		return nil, nil, fmt.Errorf("files: %s: a folder another user owns; files are written only into the user's own", q(abs))
	}
	return w, nil, nil
}

// q is how every error of this package shows a path: gate.QuotePath, so
// that no name in the file system writes lines of the words an error
// becomes (docs/protocol.md §7.15).
func q(path string) string { return gate.QuotePath(path) }

func split(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return os.IsPathSeparator(uint8(r)) && r < 0x80 })
}

// step opens name in r: a folder (sub), or with file a regular file (f),
// or neither when name is a symbolic link, whose target it returns. With
// create a missing folder is made.
func step(r *os.Root, name string, file, create bool) (sub *os.Root, f *os.File, target string, err error) {
	lastErr := errChanged
	for range maxRaces {
		fi, err := r.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := r.Mkdir(name, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, nil, "", cause(err)
			}
			continue // inspect what is there now, ours or not
		}
		if err != nil {
			return nil, nil, "", cause(err)
		}
		if link(fi) && !owned(fi, true) {
			// As fs.protected_symlinks, but everywhere: another user's link
			// says nothing of ours.
			return nil, nil, "", errors.New("a symbolic link another user owns; it is not followed")
		}
		if link(fi) {
			target, err := r.Readlink(name)
			if err == nil {
				return nil, nil, target, nil
			}
			if again, lerr := r.Lstat(name); lerr == nil && link(again) && os.SameFile(fi, again) {
				return nil, nil, "", cause(err) // a link or reparse point that cannot be read
			}
			continue // no longer that link
		}
		var opened fs.FileInfo
		var c io.Closer // what was opened, closed unless it is returned
		switch {
		case file && !fi.Mode().IsRegular():
			return nil, nil, "", errors.New("not a regular file")
		case file:
			if f, err = openFile(r, name); err == nil {
				c = f
				opened, err = f.Stat()
			}
		case !fi.IsDir():
			return nil, nil, "", errors.New("not a directory")
		default:
			if sub, err = openDir(r, name); err == nil {
				c = sub
				opened, err = sub.Stat(".")
			}
		}
		if err == nil && os.SameFile(fi, opened) {
			return sub, f, "", nil
		}
		if c != nil {
			c.Close()
		}
		f, sub, lastErr = nil, nil, errChanged
		if err != nil {
			lastErr = cause(err) // perhaps swapped for something that cannot be opened: look again
		}
	}
	return nil, nil, "", lastErr
}

// cause is err without os.Root's path, a name inside the folder or a
// temporary file's; the caller names the whole path.
func cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
