//go:build unix

package fileperm

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestEnsureDirCreates(t *testing.T) {
	skipNoModes(t)
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "a", ".stitchslop")
	var w warnings
	if err := EnsureDir(dir, w.warn); err != nil {
		t.Fatalf("EnsureDir(%q) = %v, want nil", dir, err)
	}
	if got := mode(t, dir); got != 0o700 {
		t.Errorf("EnsureDir(%q): mode %04o, want 0700", dir, got)
	}
	if len(w) != 0 {
		t.Errorf("EnsureDir(%q) warned %q on create, want nothing", dir, w)
	}
}

func TestCheckFileRefuses(t *testing.T) {
	skipNoModes(t)
	tmp := t.TempDir()
	target := filepath.Join(tmp, "target")
	writeRaw(t, target, "secret", 0o644)
	link := filepath.Join(tmp, "pairing.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(tmp, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(tmp, "dir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
		other            bool
	}{
		{"symlink", link, "symbolic link", false},
		{"fifo", fifo, "not a regular file", false},
		{"directory", sub, "not a regular file", false},
		{"another owner", target, "belongs to uid", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.other {
				otherOwner(t)
			}
			var w warnings
			err := CheckFile(tt.path, w.warn)
			if err == nil || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "mode") {
				t.Errorf("CheckFile(%q) = %v, want an error naming the path, its mode and %q", tt.path, err, tt.want)
			}
			if b, err := ReadFile(tt.path, w.warn); err == nil || b != nil {
				t.Errorf("ReadFile(%q) = %q, %v; want nil and an error", tt.path, b, err)
			}
			if len(w) != 0 {
				t.Errorf("CheckFile(%q) warned %q, want a refusal only", tt.path, w)
			}
		})
	}
	if got := mode(t, target); got != 0o644 {
		t.Errorf("symlink target's mode changed to %04o, want 0644 (never repaired through a link)", got)
	}
}

func TestWriteFileNew(t *testing.T) {
	skipNoModes(t)
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := t.TempDir()
	path := filepath.Join(dir, "pairing.json")
	if err := WriteFile(path, []byte("hello")); err != nil {
		t.Fatalf("WriteFile(%q) = %v", path, err)
	}
	if got := mode(t, path); got != 0o600 {
		t.Errorf("WriteFile(%q): mode %04o, want 0600", path, got)
	}
	checkOnly(t, dir, path, "hello")
}
