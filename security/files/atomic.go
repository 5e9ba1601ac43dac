package files

import (
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The one writer that replaces files: Batch.Save, Out and fileperm's
// WriteFile all go through a Pending, in a folder opened once.

// Temporary files are hidden, so a crash leaves nothing that looks like a
// design, and shaped so doctor recognises a cut-short write.
const (
	tempPrefix = ".stitchslop-"
	tempSuffix = ".tmp"
)

// tempTries is how many random names a Pending tries before giving up: a
// collision of 130 random bits is someone planting names, not chance.
const tempTries = 4

// Test hooks: the steps of a commit whose failure must leave the old file
// as it was and no temporary file, and a file system without hard links.
var (
	syncFile = (*os.File).Sync
	renameAt = (*os.Root).Rename
	linkAt   = (*os.Root).Link
	copyFile = io.Copy
)

// A Pending is a file written under a temporary name beside its target and
// put in place whole by Commit: a failure leaves the old file, never part
// of the new one.
type Pending struct {
	dir  *os.Root // closed with the Pending
	name string   // the target's name in dir
	path string   // the target's path, for errors
	tmp  string   // the temporary file's name in dir
	f    *os.File
	want string // if set, the image type the bytes must sniff as
	head []byte // the first SniffLen bytes written, for want
}

// CreateWith starts writing path, in its existing folder, for the
// bridge's own files (security/fileperm). open must create exactly its path
// or fail with fs.ErrExist (O_EXCL); nil makes the file 0666 less the umask.
func CreateWith(path string, open func(path string) (*os.File, error)) (*Pending, error) {
	r, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, cause(err) // the caller names the folder
	}
	p, err := create(r, filepath.Base(path), path, open)
	if err != nil {
		r.Close()
	}
	return p, err
}

// create: the Pending closes r when committed or aborted.
func create(r *os.Root, name, path string, open func(string) (*os.File, error)) (*Pending, error) {
	for tries := 0; ; tries++ {
		tmp := tempPrefix + rand.Text() + tempSuffix
		var f *os.File
		var err error
		if open != nil {
			f, err = open(filepath.Join(filepath.Dir(path), tmp))
		} else {
			// O_EXCL: never an existing file, nor a symlink planted at the name.
			f, err = r.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		}
		if err == nil {
			return &Pending{dir: r, name: name, path: path, tmp: tmp, f: f}, nil
		}
		if !errors.Is(err, fs.ErrExist) || tries == tempTries {
			return nil, cause(err)
		}
	}
}

func (p *Pending) Path() string { return p.path }

// Type is the image type the bytes written sniff as, "" for none.
func (p *Pending) Type() string { return sniff(p.head) }

// Write writes to the temporary file; an error does not name it.
func (p *Pending) Write(b []byte) (int, error) {
	if k := min(SniffLen-len(p.head), len(b)); k > 0 {
		p.head = append(p.head, b[:k]...)
	}
	n, err := p.f.Write(b)
	return n, cause(err)
}

// Commit flushes the file and puts it in place. With replace it is renamed
// over the target, replacing a symbolic link rather than writing through
// it; without, a hard link (or an exclusive copy where there are none)
// makes it appear only if nothing is there, else an *ExistsError. Bytes
// that are not the image wanted are a *BytesError.
func (p *Pending) Commit(replace bool) error {
	if p.want != "" && sniff(p.head) != p.want {
		p.Abort()
		return &BytesError{Want: p.want}
	}
	defer p.dir.Close()
	err := syncFile(p.f)
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && replace {
		err = renameRetrying(p.dir, p.tmp, p.name)
	} else if err == nil {
		err = p.publish()
	}
	p.dir.Remove(p.tmp) // gone after a rename; after a link, or a failure, ours to remove
	if err == nil {
		syncDir(p.dir)
	}
	if !replace && errors.Is(err, fs.ErrExist) {
		return &ExistsError{Path: p.path}
	}
	return cause(err)
}

// publish makes the whole temporary file appear as the target, unless the
// target exists.
func (p *Pending) publish() error {
	err := linkAt(p.dir, p.tmp, p.name)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// No hard links here (FAT, exFAT, some network shares): copy.
	src, err := p.dir.Open(p.tmp)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := p.dir.OpenFile(p.name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = copyFile(dst, src)
	if err == nil {
		err = syncFile(dst)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		p.dir.Remove(p.name) // ours: created exclusively above
	}
	return err
}

// Abort drops the file; the target is left as it was.
func (p *Pending) Abort() {
	p.f.Close()
	p.dir.Remove(p.tmp)
	p.dir.Close()
}

// syncDir flushes the renames and links in r to disk, as far as the OS
// allows (Windows does not flush a folder; the error is dropped).
func syncDir(r *os.Root) {
	if d, err := r.Open("."); err == nil {
		syncFile(d)
		d.Close()
	}
}
