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

// ensureDirRaceTries bounds the EnsureDir calls TestEnsureDirRaceWithLink
// makes while the swapper runs. Its window (nothing seen, then a link) is
// narrow: on a loaded 2-core machine the code before the check after
// mkdir (MkdirAll, then chmod by path) lost it in only some runs, on the
// first tries; TestEnsureDirLinkAfterCheck is the same swap made at that
// moment every time.
const ensureDirRaceTries = 3000

// Another user flipping the config dir between nothing and a symlink to a
// directory (a --config-dir in a shared sticky folder, THREAT_MODEL T13)
// never makes EnsureDir accept the link, nor chmod the link's target.
func TestEnsureDirRaceWithLink(t *testing.T) {
	skipNoModes(t)
	tmp := t.TempDir()
	target := filepath.Join(tmp, "victim")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o755)
	dir := filepath.Join(tmp, "cfg")
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Symlink(target, dir)
			syscall.Unlink(dir) // a link; never the directory EnsureDir made
			// Longer with nothing there: the old code lost when it saw
			// nothing, then a link.
			for range 3 {
				os.Lstat(dir)
			}
		}
	}()
	defer func() { close(stop); <-done }()
	created := 0
	for i := range ensureDirRaceTries {
		err := EnsureDir(dir, nil)
		if got := mode(t, target); got != 0o755 {
			t.Fatalf("EnsureDir(%q) on try %d changed the link target's mode to %04o", dir, i+1, got)
		}
		if err != nil {
			continue
		}
		fi, lerr := os.Lstat(dir)
		if lerr != nil || !fi.IsDir() {
			t.Fatalf("EnsureDir(%q) on try %d = nil with the config dir %v, %v; want a real directory", dir, i+1, fi.Mode(), lerr)
		}
		created++
		os.Remove(dir)
	}
	t.Logf("%d of %d calls made the directory; the others refused a link", created, ensureDirRaceTries)
}

// The same swap at the one moment the old code lost it, every time: a
// symlink to a directory appears between EnsureDir's finding nothing and
// its mkdir (planted from the userHome hook, which EnsureDir calls in
// between). EnsureDir refuses it, and the target's mode is untouched.
func TestEnsureDirLinkAfterCheck(t *testing.T) {
	skipNoModes(t)
	tmp := t.TempDir()
	target := filepath.Join(tmp, "victim")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o755)
	dir := filepath.Join(tmp, "cfg")
	old := userHome
	t.Cleanup(func() { userHome = old })
	userHome = func() (string, error) {
		if err := os.Symlink(target, dir); err != nil {
			t.Error(err)
		}
		return "", nil
	}
	err := EnsureDir(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("EnsureDir(%q) with a link planted before its mkdir = %v, want a refusal of the symbolic link", dir, err)
	}
	if got := mode(t, target); got != 0o755 {
		t.Errorf("EnsureDir(%q) changed the link target's mode to %04o, want 0755", dir, got)
	}
}

// Judge gives the judgement CheckFile and EnsureDir act on, and acts on
// none of it: the doctor reports what the bridge would refuse or repair.
func TestJudgeIsTheCheckWithoutTheRepair(t *testing.T) {
	skipNoModes(t)
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good")
	writeRaw(t, good, "x", 0o600)
	loose := filepath.Join(tmp, "loose")
	writeRaw(t, loose, "x", 0o644)
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	looseDir := filepath.Join(tmp, "dir")
	if err := os.Mkdir(looseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(looseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		path  string
		dir   bool
		other bool
		want  Fault
	}{
		{"file 0600", good, false, false, Fine},
		{"file 0644", loose, false, false, Loose},
		{"link", link, false, false, Link},
		{"link as a dir", link, true, false, Link},
		{"dir as a file", looseDir, false, false, WrongKind},
		{"file as a dir", good, true, false, WrongKind},
		{"dir 0755", looseDir, true, false, Loose},
		{"another owner", good, false, true, NotYours},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.other {
				otherOwner(t)
			}
			v, err := Judge(tt.path, tt.dir)
			if err != nil || v.Fault != tt.want {
				t.Errorf("Judge(%s, dir %v) = %v, %v; want fault %v", tt.name, tt.dir, v.Fault, err, tt.want)
			}
			// CheckFile and EnsureDir agree: refused, repaired or fine.
			check := CheckFile
			if tt.dir {
				check = EnsureDir
			}
			before := mode(t, tt.path)
			var w warnings
			err = check(tt.path, w.warn)
			if refused := tt.want == Link || tt.want == WrongKind || tt.want == NotYours; refused != (err != nil) || (tt.want == Loose) != (len(w) == 1) {
				t.Errorf("Judge says %v; the check said %v and warned %q", tt.want, err, w)
			}
			if tt.want == Loose {
				os.Chmod(tt.path, before) // as it was, for the next case
			}
		})
	}
	if _, err := Judge(filepath.Join(tmp, "none"), false); !os.IsNotExist(err) {
		t.Errorf("Judge(missing) error = %v, want not-exist", err)
	}
}
