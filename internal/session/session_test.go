package session

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, port, pid int) string {
	t.Helper()
	if err := Write(dir, File{Port: port, Key: "k", Origin: "https://www.stitchslop.com", PID: pid, Protocol: 1, StartedAt: "x"}); err != nil {
		t.Fatal(err)
	}
	return Path(dir, port)
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestRemoveIfOurs(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, 8787, 4242)
	if removed, err := RemoveIfOurs(dir, 8787, 1111); removed || err != nil {
		t.Fatalf("RemoveIfOurs(other pid) = %v, %v; want false, nil", removed, err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("another bridge's session file was removed: %v", err)
	}
	if removed, err := RemoveIfOurs(dir, 8787, 4242); !removed || err != nil {
		t.Fatalf("RemoveIfOurs(own pid) = %v, %v; want true, nil", removed, err)
	}
	if removed, err := RemoveIfOurs(dir, 8787, 4242); removed || err != nil {
		t.Fatalf("RemoveIfOurs(no file) = %v, %v; want false, nil", removed, err)
	}
}

func TestListPrunesDeadAndKeepsLive(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pid reuse makes a dead pid unreliable to fake on Windows")
	}
	dir := t.TempDir()
	write(t, dir, 8790, os.Getpid())
	stale := write(t, dir, 8788, deadPID(t))
	write(t, dir, 8787, os.Getpid())
	if err := os.WriteFile(filepath.Join(dir, "session-8789.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, bad, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 2 || live[0].File.Port != 8787 || live[1].File.Port != 8790 {
		t.Fatalf("List = %+v, want the two live files, 8787 then 8790", live)
	}
	if len(bad) != 1 {
		t.Fatalf("List reported %d unreadable files, want 1", len(bad))
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("a dead bridge's session file was not pruned: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "session-8789.json")); err != nil {
		t.Fatalf("an unreadable session file was deleted; it should be left alone: %v", err)
	}
}

// One reader, one policy (issue 36 item 5): a file that does not parse is
// reported in the bridge's words, never with the parser's, whose text can
// quote a piece of the key (here its last character, after the object).
func TestReadDoesNotQuoteTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "session-8787.json")
	for _, content := range []string{`{"port":8787,"key":"Q","pid":1}Q`, `{"port":8787,"key":"Q`, `{"port":8787,"pid":1}`} {
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Read(p)
		var ie *InvalidError
		if !errors.As(err, &ie) || strings.Contains(strings.TrimPrefix(err.Error(), p), "Q") {
			t.Errorf("Read(%q) = %v, want an InvalidError in the bridge's words", content, err)
		}
	}
}
