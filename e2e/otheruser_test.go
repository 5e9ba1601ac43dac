//go:build linux

package e2e

// THREAT_MODEL T10: another local user. These tests run a helper as uid
// 65534 (nobody), so they need root; elsewhere they skip and say why.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const nobody = 65534

// otherUser builds the helper into a directory nobody can read and
// returns a function that runs it as nobody.
func otherUser(t *testing.T) func(args ...string) *exec.Cmd {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root, to run a process as another user (uid 65534)")
	}
	dir, err := os.MkdirTemp("", "stitchslop-otheruser-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "otheruser")
	build := exec.Command("go", "build", "-o", bin, "./testdata/otheruser")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the other user's helper: %v\n%s", err, out)
	}
	return func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		return cmd
	}
}

// squat listens on port as nobody until the test ends (squatAt, on the
// helper's default address).
func squat(t *testing.T, run func(...string) *exec.Cmd, port int) {
	t.Helper()
	squatAt(t, run, fmt.Sprint(port))
}

// A listener of another user on a port the tab tries first makes the
// bridge refuse to start, naming the port and the user, instead of moving
// on to the next port behind it.
func TestT10_SquatterRefusesStart(t *testing.T) {
	run := otherUser(t)
	t.Run("the first default port", func(t *testing.T) {
		ports, env := scanPorts(t)
		squat(t, run, ports[0])
		b := startBridge(t, bridgeOpts{port: -1, token: newToken(), expectExit: true, env: env})
		if code := b.awaitExit(); code != 2 {
			t.Fatalf("exit %d with %d squatted, want 2; stderr:\n%s", code, ports[0], b.stderr)
		}
		if s := b.stderr.String(); !strings.Contains(s, fmt.Sprint(ports[0])) || !strings.Contains(s, "uid 65534") || !strings.Contains(s, "hint:") {
			t.Errorf("stderr does not name the port, the user and the fix:\n%s", s)
		}
	})
	t.Run("a pinned port", func(t *testing.T) {
		port := freePort(t)
		squat(t, run, port)
		b := startBridge(t, bridgeOpts{port: port, token: newToken(), expectExit: true})
		if code := b.awaitExit(); code != 2 || !strings.Contains(b.stderr.String(), "uid 65534") {
			t.Fatalf("exit %d, stderr:\n%s\nwant 2 naming uid 65534", code, b.stderr)
		}
	})
}

// Another user holding a valid secret and the session key gets nothing: the
// page side and the control plane close its connection before reading it,
// while the same secret and key work for the owner.
func TestT10_OtherUserRefused(t *testing.T) {
	run := otherUser(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir})
	key := b.session().Key
	host := fmt.Sprintf("127.0.0.1:%d", b.port)
	ask := func(request string) string {
		cmd := run("request", fmt.Sprint(b.port))
		cmd.Stdin = strings.NewReader(request)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the other user's request: %v %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	upgrade := "GET / HTTP/1.1\r\nHost: " + host + "\r\nOrigin: " + testOrigin + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if got := ask(upgrade); got != "closed" {
		t.Errorf("the other user's upgrade: got %q, want the connection closed unread", got)
	}
	if got := ask("GET /status HTTP/1.1\r\nHost: " + host + "\r\nx-stitchslop-key: " + key + "\r\n\r\n"); got != "closed" {
		t.Errorf("the other user's /status with the key: got %q, want the connection closed unread", got)
	}
	if _, _, ok := b.stderr.lines.await(0, guard, func(l string) bool {
		return strings.Contains(l, "another local user") && strings.Contains(l, "uid 65534")
	}); !ok {
		t.Errorf("no log line names the other user; stderr:\n%s", b.stderr)
	}
	// The owner, with the same secret and key.
	connectPage(t, b, map[string]any{"secret": secret})
	if status, st := b.ctl("GET", "/status", nil); status != 200 || st["connected"] != true {
		t.Fatalf("the owner's /status: %d %v", status, st)
	}
}
