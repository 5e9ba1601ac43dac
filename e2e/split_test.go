//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

var bridgePidRE = regexp.MustCompile(`listening on 127\.0\.0\.1:\d+ for \S+ \(pid (\d+)\)`)

// TestDemo_KilledDemoTakesItsBridge: stitchslop demo runs its bridge as a
// child (stitchslop-bridge --demo). Killed with SIGKILL, the demo cannot
// stop it; the bridge stops by itself when its stdin, the demo's pipe,
// ends, removes its session file, and leaves no process holding the port.
func TestDemo_KilledDemoTakesItsBridge(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	port := freePort(t)
	d := startDemo(t, port, dir)
	m := bridgePidRE.FindStringSubmatch(d.stderr.String())
	if m == nil {
		t.Fatalf("the demo's stderr names no bridge pid:\n%s", d.stderr)
	}
	pid, _ := strconv.Atoi(m[1])
	if pid == d.cmd.Process.Pid {
		t.Fatalf("the bridge's pid is the demo's own (%d): the demo runs no bridge process of its own", pid)
	}
	d.kill(t)
	// Not our child: no exit to wait on, so its existence is looked for
	// until the guard.
	deadline := time.Now().Add(guard)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the demo's bridge (pid %d) still runs %v after the demo was killed", pid, guard)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, "session-"+strconv.Itoa(port)+".json")); err == nil {
		t.Errorf("the demo's bridge left its session file")
	}
}
