package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Reliability under faults (issue 13): each test injects one fault and
// checks that the bridge stays correct, its callers get answers, and
// nothing is lost or left behind. docs/reliability.md lists them.

// maxUnauth is the pre-auth socket cap, written from THREAT_MODEL.md, not
// imported.
const maxUnauth = 16

// TestRel_UnauthCapEvictsOldest: with the pre-auth cap full of idle
// upgrades, a genuine tab still attaches at once: the oldest idle socket is
// closed to make room, not the newcomer refused with 503.
func TestRel_UnauthCapEvictsOldest(t *testing.T) {
	t.Parallel()
	tok := newToken()
	// A handshake deadline far past guard: a socket closed here was
	// evicted, not timed out.
	b := startBridge(t, bridgeOpts{token: tok, timings: "auth=5m"})
	idle := make([]*websocket.Conn, 0, maxUnauth)
	for i := range maxUnauth {
		c, _, err := dialWS(b.port, originHeader(testOrigin))
		if err != nil {
			t.Fatalf("idle socket %d of %d: %v", i+1, maxUnauth, err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	connectPage(t, b, map[string]any{"token": tok})
	b.awaitConnected(true)
	// The oldest idle socket made room. The bridge counts a socket before
	// it answers its upgrade, and each was dialled after the one before had
	// its answer, so the oldest is the first dialled.
	idle[0].SetReadDeadline(time.Now().Add(guard))
	if _, _, err := idle[0].ReadMessage(); err == nil || isTimeout(err) {
		t.Errorf("oldest idle socket after a tab came with the cap full: read %v, want it closed by the bridge", err)
	}
	// Many more idle sockets come and go; the attached tab keeps working.
	for i := range 3 * maxUnauth {
		c, _, err := dialWS(b.port, originHeader(testOrigin))
		if err != nil {
			t.Fatalf("idle socket %d past the cap: %v, want it upgraded (the oldest closed instead)", i+1, err)
		}
		defer c.Close()
	}
	if _, env := b.ctl("POST", "/call", map[string]any{"command": "scene.describe", "args": map[string]any{}}); env["ok"] != true {
		t.Errorf("/call with %d idle sockets around: got %v, want the page's answer", 4*maxUnauth, env)
	}
	b.mustRun()
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}

// closeCode reads from c until the bridge ends the connection and returns
// the close code it sent (1006 when the socket dropped without one).
func closeCode(t *testing.T, c *websocket.Conn) int {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(guard))
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		if isTimeout(err) {
			t.Fatalf("page socket still open after %v, want it closed", guard)
		}
		return websocket.CloseAbnormalClosure
	}
}

// rawPage attaches a tab that the test reads itself: a bare connection
// after a good handshake.
func rawPage(t *testing.T, port int, cred map[string]any) *websocket.Conn {
	t.Helper()
	c, _, err := dialWS(port, originHeader(testOrigin))
	if err != nil {
		t.Fatalf("dial page socket: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetWriteDeadline(time.Now().Add(guard))
	if err := c.WriteMessage(websocket.TextMessage, mustJSON(cred)); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(guard))
	_, hello, err := c.ReadMessage()
	if err != nil || !strings.Contains(string(hello), `"hello"`) {
		t.Fatalf("handshake reply: %q, %v; want a hello", hello, err)
	}
	c.SetReadDeadline(time.Time{})
	return c
}

// TestRel_SignalsCloseTab: SIGTERM, SIGINT and SIGHUP each stop the bridge
// with exit 0, its session file removed, and a close frame 1001 (going
// away) to the tab, not a dropped socket (1006).
func TestRel_SignalsCloseTab(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			tok := newToken()
			b := startBridge(t, bridgeOpts{token: tok})
			c := rawPage(t, b.port, map[string]any{"token": tok})
			b.awaitConnected(true)
			path := sessionPath(b.configDir, b.port)
			b.signal(sig)
			if code := closeCode(t, c); code != websocket.CloseGoingAway {
				t.Errorf("close code the tab saw after %v: got %d, want %d (going away)", sig, code, websocket.CloseGoingAway)
			}
			if code := b.awaitExit(); code != 0 {
				t.Errorf("exit code after %v: got %d, want 0; stderr:\n%s", sig, code, b.stderr)
			}
			if exists(path) {
				t.Errorf("session file %s still there after %v, want it removed", path, sig)
			}
		})
	}
}

// closedPipe returns the write end of a pipe whose reader has gone.
func closedPipe(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}

// wantCleanExit fails unless the process ended on its own (not killed by
// a signal such as SIGPIPE) with code want, and without a crash on stderr.
func wantCleanExit(t *testing.T, what string, ps *os.ProcessState, stderr string, want int) {
	t.Helper()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("%s: killed by %v, want a clean exit %d; stderr:\n%s", what, ws.Signal(), want, stderr)
	}
	if ps.ExitCode() != want {
		t.Errorf("%s: exit %d, want %d; stderr:\n%s", what, ps.ExitCode(), want, stderr)
	}
	for _, bad := range []string{"panic:", "fatal error:", "goroutine ", "DATA RACE"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("%s: stderr shows a crash (%q):\n%s", what, bad, stderr)
		}
	}
}

// TestRel_SIGPIPE: a closed stdout is a clean exit. A shell verb whose
// reader has gone ends on its own with the code its work earned (not
// killed by SIGPIPE), the listen verb stops instead of writing into the
// void, and an MCP bridge whose client died removes its session file,
// closes its tab with 1001 and exits 0.
func TestRel_SIGPIPE(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	// listen prints nothing until there is something to say (no line at
	// start): the tab hears the user, so it has a line to write.
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "voice.listen" {
			return map[string]any{"ok": true, "heard": []any{map[string]any{"text": "hello", "atMs": 1}}, "selection": []any{}}
		}
		return defaultHandler(cmd, args)
	})
	b.awaitConnected(true)
	verbs := [][]string{
		{"status"},
		{"call", "scene.describe", "{}"},
		{"listen"},
		{"--version"},
	}
	for _, v := range verbs {
		t.Run(strings.Join(v, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			args := append([]string{"--config-dir", b.configDir, "--port", strconv.Itoa(b.port)}, v...)
			cmd := exec.CommandContext(ctx, binFor(args), args...)
			cmd.Env = childEnv(t.TempDir())
			cmd.Stdout = closedPipe(t)
			var se strings.Builder
			cmd.Stderr = &se
			cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("%v with a closed stdout: still running after 30 s, want it to stop", v)
			}
			wantCleanExit(t, strings.Join(v, " ")+" with a closed stdout", cmd.ProcessState, se.String(), 0)
		})
	}

	t.Run("mcp bridge", func(t *testing.T) {
		tok := newToken()
		dir := t.TempDir() + "/cfg"
		port := freePort(t)
		cmd := exec.Command(binPath, "--origin", testOrigin, "--port", strconv.Itoa(port), "--config-dir", dir)
		cmd.Env = childEnv(t.TempDir(), "STITCHSLOP_TOKEN="+tok)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		cmd.Stdout = closedPipe(t)
		stderr := newLineLog(nil)
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); stderr.finish(); close(done) }()
		defer func() {
			select {
			case <-done:
			default:
				cmd.Process.Kill()
				<-done
			}
		}()
		if _, _, ok := stderr.lines.await(0, guard, listeningRE.MatchString); !ok {
			t.Fatalf("bridge never listened; stderr:\n%s", stderr)
		}
		c := rawPage(t, port, map[string]any{"token": tok})
		// The client writes, then dies: the answer meets a closed stdout.
		stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
		if code := closeCode(t, c); code != websocket.CloseGoingAway {
			t.Errorf("close code the tab saw when stdout closed: got %d, want %d", code, websocket.CloseGoingAway)
		}
		select {
		case <-done:
		case <-time.After(guard):
			t.Fatalf("bridge still running %v after its stdout closed; stderr:\n%s", guard, stderr)
		}
		wantCleanExit(t, "MCP bridge with a closed stdout", cmd.ProcessState, stderr.String(), 0)
		if p := sessionPath(dir, port); exists(p) {
			t.Errorf("session file %s left behind after the stdout closed, want it removed", p)
		}
	})
}
