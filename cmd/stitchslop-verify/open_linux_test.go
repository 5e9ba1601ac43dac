//go:build linux

package main

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// openRegular refuses what is not a regular file before it opens it: an
// inotify watch on a FIFO, which reports every open of it as the open
// happens, sees none, directly or through a link. The old openRegular
// opened first (a link to /dev/ptmx allocated a terminal that way) and
// refused after.
func TestOpenRegularOpensNoDevice(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "checksums.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	in, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer syscall.Close(in)
	if _, err := syscall.InotifyAddWatch(in, fifo, syscall.IN_OPEN); err != nil {
		t.Skipf("inotify watch: %v", err)
	}
	for _, p := range []string{fifo, link} {
		if f, err := openRegular(p); !errors.Is(err, errNotRegular) {
			if f != nil {
				f.Close()
			}
			t.Errorf("openRegular(%s) = %v, want errNotRegular", p, err)
		}
	}
	buf := make([]byte, 4096)
	if n, err := syscall.Read(in, buf); !errors.Is(err, syscall.EAGAIN) {
		t.Errorf("inotify after openRegular: read %d bytes (%v), want no event: the FIFO was opened", n, err)
	}
	// The watch works: an open of the FIFO is seen.
	if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
	if n, err := syscall.Read(in, buf); err != nil || n == 0 {
		t.Errorf("inotify saw no open of the FIFO by the test itself (%v): the check proves nothing", err)
	}
}

// A regular file is opened, and the handle is that file's.
func TestOpenRegularOpensAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "checksums.txt")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := openRegular(p)
	if err != nil {
		t.Fatalf("openRegular(a regular file) = %v", err)
	}
	f.Close()
}
