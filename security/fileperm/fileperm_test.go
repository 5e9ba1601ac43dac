package fileperm

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/limits"
)

func skipNoModes(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Unix file modes are not enforced on Windows")
	}
}

// warnings collects what a function under test reports.
type warnings []string

func (w *warnings) warn(msg string) { *w = append(*w, msg) }

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func writeRaw(t *testing.T, path, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // beat the umask
		t.Fatal(err)
	}
}

// otherOwner makes every file look as if it belonged to someone else, by
// changing who "we" are.
func otherOwner(t *testing.T) {
	t.Helper()
	old := getuid
	t.Cleanup(func() { getuid = old })
	getuid = func() int { return old() + 1 }
}

func TestEnsureDirExisting(t *testing.T) {
	skipNoModes(t)
	tests := []struct {
		name     string
		perm     fs.FileMode
		wantWarn string // substring; "" means no warning
	}{
		{"exact", 0o700, ""},
		{"tighter", 0o500, ""},
		{"group readable", 0o750, "had mode 0750"},
		{"world open", 0o777, "had mode 0777"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cfg")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tt.perm); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o700) })
			var w warnings
			if err := EnsureDir(dir, w.warn); err != nil {
				t.Fatalf("EnsureDir(%q) = %v, want nil", dir, err)
			}
			want := tt.perm
			if tt.wantWarn != "" {
				want = 0o700
			}
			if got := mode(t, dir); got != want {
				t.Errorf("EnsureDir(%q): mode %04o, want %04o", dir, got, want)
			}
			checkWarning(t, w, dir, tt.wantWarn)
		})
	}
}

func checkWarning(t *testing.T, w warnings, path, want string) {
	t.Helper()
	if want == "" {
		if len(w) != 0 {
			t.Errorf("warnings = %q, want none", w)
		}
		return
	}
	if len(w) != 1 || !strings.Contains(w[0], path) || !strings.Contains(w[0], want) || !strings.Contains(w[0], "repaired to 0") {
		t.Errorf("warnings = %q, want one naming %s and %q", w, path, want)
	}
}

func TestEnsureDirRefuses(t *testing.T) {
	skipNoModes(t)
	tmp := t.TempDir()
	real := filepath.Join(tmp, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(real, 0o755)
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "file")
	writeRaw(t, file, "x", 0o600)

	tests := []struct {
		name, path, want string
		other            bool
	}{
		{"symlink", link, "symbolic link", false},
		{"not a directory", file, "not a directory", false},
		{"another owner", real, "belongs to uid", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.other {
				otherOwner(t)
			}
			var w warnings
			err := EnsureDir(tt.path, w.warn)
			if err == nil || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("EnsureDir(%q) = %v, want an error naming the path and %q", tt.path, err, tt.want)
			}
			if !strings.Contains(err.Error(), "mode") {
				t.Errorf("EnsureDir(%q) = %v, want the mode in the error", tt.path, err)
			}
			if len(w) != 0 {
				t.Errorf("EnsureDir(%q) warned %q, want a refusal only", tt.path, w)
			}
		})
	}
	// Nothing was repaired through the link or on the other's directory.
	if got := mode(t, real); got != 0o755 {
		t.Errorf("refused directory's mode changed to %04o, want 0755", got)
	}
}

func TestCheckFile(t *testing.T) {
	skipNoModes(t)
	tests := []struct {
		name     string
		perm     fs.FileMode
		wantWarn string
	}{
		{"exact", 0o600, ""},
		{"tighter", 0o400, ""},
		{"group readable", 0o640, "had mode 0640"},
		{"world readable", 0o644, "had mode 0644"},
		{"world writable", 0o666, "had mode 0666"},
		{"executable", 0o700, "had mode 0700"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pairing.json")
			writeRaw(t, path, "{}", tt.perm)
			var w warnings
			if err := CheckFile(path, w.warn); err != nil {
				t.Fatalf("CheckFile(%q) = %v, want nil", path, err)
			}
			want := tt.perm
			if tt.wantWarn != "" {
				want = 0o600
			}
			if got := mode(t, path); got != want {
				t.Errorf("CheckFile(%q): mode %04o, want %04o", path, got, want)
			}
			checkWarning(t, w, path, tt.wantWarn)
		})
	}
}

func TestCheckFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pairing.json")
	if err := CheckFile(path, nil); err != nil {
		t.Errorf("CheckFile(%q) = %v, want nil for a missing file", path, err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckFile(%q) created the file", path)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pairing.json")
	b, err := ReadFile(path, nil)
	if b != nil || err != nil {
		t.Errorf("ReadFile(missing) = %q, %v; want nil, nil", b, err)
	}
	writeRaw(t, path, `{"a":1}`, 0o600)
	b, err = ReadFile(path, nil)
	if string(b) != `{"a":1}` || err != nil {
		t.Errorf("ReadFile(%q) = %q, %v; want %q, nil", path, b, err, `{"a":1}`)
	}
}

func TestReadFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pairing.json")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(limits.ConfigFile + 1); err != nil { // sparse: cheap
		t.Fatal(err)
	}
	f.Close()
	b, err := ReadFile(path, nil)
	if err == nil || b != nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadFile(%d-byte file) = %d bytes, %v; want a refusal naming the path", limits.ConfigFile+1, len(b), err)
	}
}

// checkOnly asserts path holds content and is the only file in dir: no
// temp file left behind.
func checkOnly(t *testing.T, dir, path, content string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != content {
		t.Errorf("%s holds %q (err %v), want %q", path, b, err, content)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if filepath.Join(dir, e.Name()) != path {
			t.Errorf("stray file %s left in %s", e.Name(), dir)
		}
	}
}

func TestWriteFileReplaces(t *testing.T) {
	skipNoModes(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "pairing.json")
	writeRaw(t, path, "old content", 0o644)
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatalf("WriteFile(%q) = %v", path, err)
	}
	if got := mode(t, path); got != 0o600 {
		t.Errorf("WriteFile(%q) over a 0644 file: mode %04o, want 0600", path, got)
	}
	checkOnly(t, dir, path, "new")
}

func TestWriteFileMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "pairing.json")
	if err := WriteFile(path, []byte("x")); err == nil {
		t.Errorf("WriteFile(%q) = nil, want an error", path)
	}
}

func TestWriteFileReplacesSymlink(t *testing.T) {
	skipNoModes(t)
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	writeRaw(t, target, "not yours", 0o644)
	path := filepath.Join(dir, "pairing.json")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("ours")); err != nil {
		t.Fatalf("WriteFile(%q) = %v", path, err)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("WriteFile(%q) left %v, want a regular file", path, fi.Mode())
	}
	if b, _ := os.ReadFile(target); string(b) != "not yours" {
		t.Errorf("WriteFile wrote through a symlink: target holds %q", b)
	}
}

func TestKeepAside(t *testing.T) {
	skipNoModes(t)
	fixed := time.Date(2026, 11, 2, 9, 14, 55, 120e6, time.FixedZone("CET", 3600))
	old := now
	t.Cleanup(func() { now = old })
	now = func() time.Time { return fixed }

	dir := t.TempDir()
	path := filepath.Join(dir, "pairing.json")
	// Written from the spec: path + ".corrupt-" + UTC timestamp.
	want1 := path + ".corrupt-20261102T081455Z"
	want2 := want1 + "-2"
	for i, want := range []string{want1, want2} {
		content := "{not json " + strconv.Itoa(i)
		writeRaw(t, path, content, 0o600)
		got, err := KeepAside(path)
		if err != nil || got != want {
			t.Fatalf("KeepAside(%q) = %q, %v; want %q, nil", path, got, err, want)
		}
		if b, err := os.ReadFile(got); err != nil || string(b) != content {
			t.Errorf("kept-aside file %s holds %q (err %v), want %q", got, b, err, content)
		}
		if m := mode(t, got); m != 0o600 {
			t.Errorf("kept-aside file %s: mode %04o, want 0600", got, m)
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("KeepAside(%q) left the original in place", path)
		}
	}
	// The first one was not overwritten by the second.
	if b, _ := os.ReadFile(want1); string(b) != "{not json 0" {
		t.Errorf("%s holds %q, want %q (never overwritten)", want1, b, "{not json 0")
	}
}

func TestKeepAsideRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := KeepAside(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("KeepAside(missing) = nil error, want one")
	}
	if runtime.GOOS == "windows" {
		return
	}
	target := filepath.Join(dir, "target")
	writeRaw(t, target, "x", 0o600)
	link := filepath.Join(dir, "pairing.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if got, err := KeepAside(link); err == nil {
		t.Errorf("KeepAside(symlink) = %q, nil; want an error", got)
	}
}

func TestLockFile(t *testing.T) {
	skipNoModes(t)
	path := filepath.Join(t.TempDir(), "pairing.json")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatalf("Lock(%q) = %v", path, err)
	}
	if got := mode(t, path+".lock"); got != 0o600 {
		t.Errorf("lock file mode %04o, want 0600", got)
	}
	unlock()
	unlock() // harmless twice
	// Free again: a second Lock returns at once.
	unlock, err = Lock(path)
	if err != nil {
		t.Fatalf("Lock(%q) after unlock = %v", path, err)
	}
	unlock()
}

func TestLockRefusesSymlink(t *testing.T) {
	skipNoModes(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	writeRaw(t, target, "", 0o644)
	path := filepath.Join(dir, "pairing.json")
	if err := os.Symlink(target, path+".lock"); err != nil {
		t.Fatal(err)
	}
	if unlock, err := Lock(path); err == nil {
		unlock()
		t.Errorf("Lock(%q) with a symlinked lock file = nil, want an error", path)
	}
}

// lockChildEnv switches the test binary into the child role of
// TestLockSerialisesProcesses: its value is the counter file.
const lockChildEnv = "STITCHSLOP_FILEPERM_LOCK_CHILD"

// increments is how many read-modify-write cycles each process does.
const increments = 50

// TestLockSerialisesProcesses runs two copies of this test binary, each
// adding 1 to a counter file 50 times under Lock with ReadFile and
// WriteFile. Without the lock, overlapping cycles lose updates; with it the
// counter ends at exactly 100.
func TestLockSerialisesProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter")
	if err := WriteFile(path, []byte("0")); err != nil {
		t.Fatal(err)
	}
	const procs = 2
	cmds := make([]*exec.Cmd, procs)
	outs := make([]strings.Builder, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockChildProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), lockChildEnv+"="+path)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v\n%s", i, err, outs[i].String())
		}
	}
	b, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), strconv.Itoa(procs*increments); got != want {
		t.Errorf("counter after %d processes x %d locked increments = %s, want %s", procs, increments, got, want)
	}
}

// TestLockChildProcess is the child role of TestLockSerialisesProcesses; it
// does nothing unless lockChildEnv is set.
func TestLockChildProcess(t *testing.T) {
	path := os.Getenv(lockChildEnv)
	if path == "" {
		return
	}
	for i := 0; i < increments; i++ {
		unlock, err := Lock(path)
		if err != nil {
			t.Fatalf("Lock(%q) = %v", path, err)
		}
		b, err := ReadFile(path, nil)
		if err != nil {
			unlock()
			t.Fatalf("ReadFile(%q) = %v", path, err)
		}
		n, err := strconv.Atoi(string(b))
		if err != nil {
			unlock()
			t.Fatalf("counter %q: %v", b, err)
		}
		if err := WriteFile(path, []byte(strconv.Itoa(n+1))); err != nil {
			unlock()
			t.Fatalf("WriteFile(%q) = %v", path, err)
		}
		unlock()
	}
}

// A config dir inside a home that does not exist is refused, naming the
// home, and nothing is created; elsewhere missing parents are created.
func TestEnsureDirMissingHome(t *testing.T) {
	base := t.TempDir()
	gone := filepath.Join(base, "gone", "home")
	tests := []struct {
		name    string
		home    string
		dir     string
		wantErr bool
	}{
		{"inside a missing home", gone, filepath.Join(gone, ".stitchslop"), true},
		{"the missing home itself", gone, gone, true},
		{"outside a missing home", gone, filepath.Join(base, "elsewhere", "cfg"), false},
		{"inside an existing home", base, filepath.Join(base, "deeper", ".stitchslop"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := userHome
			t.Cleanup(func() { userHome = old })
			userHome = func() (string, error) { return tt.home, nil }
			err := EnsureDir(tt.dir, nil)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.home) || !strings.Contains(err.Error(), "does not exist") {
					t.Errorf("EnsureDir(%q) with home %q = %v, want an error naming the missing home", tt.dir, tt.home, err)
				}
				if _, serr := os.Lstat(filepath.Dir(tt.home)); !errors.Is(serr, fs.ErrNotExist) {
					t.Errorf("EnsureDir(%q) created %s, want nothing created", tt.dir, filepath.Dir(tt.home))
				}
				return
			}
			if err != nil {
				t.Errorf("EnsureDir(%q) with home %q = %v, want nil", tt.dir, tt.home, err)
			}
		})
	}
}

// A reader sharing the file with a writer that replaces it (as bridges
// sharing a config dir do on every pairing) always reads a whole file, old
// or new, and never fails because the file changed between its check and
// its opening.
func TestReadFileWhileReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pairing.json")
	writeRaw(t, path, "0", 0o600)
	const reads = 3000
	stop := make(chan struct{})
	wrote := make(chan int)
	go func() {
		n := 0
		defer func() { wrote <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			n++
			if err := WriteFile(path, []byte(strconv.Itoa(n))); err != nil {
				t.Errorf("WriteFile(%q) = %v", path, err)
				return
			}
		}
	}()
	for i := range reads {
		b, err := ReadFile(path, nil)
		if err != nil {
			t.Errorf("ReadFile(%q) while it is replaced, read %d = %v, want the old file or the new one", path, i, err)
			break
		}
		if _, err := strconv.Atoi(string(b)); err != nil {
			t.Errorf("ReadFile(%q) = %q, want a whole file", path, b)
			break
		}
	}
	close(stop)
	t.Logf("%d reads while the file was replaced %d times", reads, <-wrote)
}

// A writer replaces pairing.json while a reader holds it open the way
// ReadFile opens it, and the reader goes on reading the old file. On
// Windows this fails with "Access is denied" unless the reader's handle
// shares delete (files.OpenNoFollow); it is the case behind
// TestReadFileWhileReplaced failing under Wine.
func TestWriteFileWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pairing.json")
	writeRaw(t, path, "old", 0o600)
	f, _, err := openChecked(path, false, nil)
	if err != nil || f == nil {
		t.Fatalf("openChecked(%q) = %v, %v", path, f, err)
	}
	defer f.Close()
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatalf("WriteFile(%q) while a reader holds it = %v, want it replaced", path, err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "old" {
		t.Errorf("the reader read %q, %v; want the old file", b, err)
	}
	if b, err := ReadFile(path, nil); err != nil || string(b) != "new" {
		t.Errorf("ReadFile(%q) after the write = %q, %v; want new", path, b, err)
	}
}
