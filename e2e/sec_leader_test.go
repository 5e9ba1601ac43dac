package e2e

// What comes back from another bridge is untrusted too (issue 19). A
// follower (protocol.md §7.13) relays its
// leader's /call answers to the model, and the shell verbs read whatever
// the process on a session file's port sends. These tests play that
// process: an HTTP server on loopback in the test process, found by a
// session file in the config dir that names this process, which holds the
// port, so the peer check passes as it would for a real bridge.

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeLeader serves a bridge's control plane for testOrigin with a tab
// attached that lists defaultTools. call answers POST /call for a command;
// status, when set, answers GET /status instead of the usual answer.
type fakeLeader struct {
	call   func(command string) []byte
	status func(w io.Writer)
	wait   func(w io.Writer) // nil: a tab is attached
}

// start listens on a free loopback port, writes the session file for it
// in dir, and returns the port.
func (fl *fakeLeader) start(t *testing.T, dir string) int {
	t.Helper()
	key := randHex(32)
	return serveAsBridge(t, dir, key, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-stitchslop-key") != key {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/status":
			if fl.status != nil {
				fl.status(w)
				return
			}
			w.Write(mustJSON(map[string]any{"ok": true, "connected": true, "origin": testOrigin, "protocol": 1, "tools": []string{"render.png", "scene.describe"}}))
		case "/wait":
			if fl.wait != nil {
				fl.wait(w)
				return
			}
			w.Write(mustJSON(map[string]any{"ok": true, "connected": true, "origin": testOrigin, "tools": []string{"render.png", "scene.describe"}}))
		case "/tools":
			w.Write(mustJSON(map[string]any{"ok": true, "tools": defaultTools}))
		case "/call":
			var req struct {
				Command string `json:"command"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			w.Write(fl.call(req.Command))
			w.Write([]byte("\n"))
		default:
			w.WriteHeader(http.StatusUpgradeRequired)
		}
	}))
}

// serveAsBridge serves h on a free loopback port as a bridge would be
// found there: a session file in dir names the port, the key and this
// process's pid. It returns the port.
func serveAsBridge(t *testing.T, dir, key string, h http.Handler) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sess := mustJSON(sessionFile{Port: port, Key: key, Origin: testOrigin, PID: os.Getpid(), Protocol: 1, StartedAt: "2026-01-01T00:00:00.000Z"})
	if err := os.WriteFile(sessionPath(dir, port), sess, 0o600); err != nil {
		t.Fatal(err)
	}
	return port
}

// describeAnswer is the leader's answer to the greeting's scene.describe.
var describeAnswer = []byte(`{"id":1,"ok":true,"say":"The design has 3 shapes.","shapes":3}`)

// follower starts a lazy MCP bridge on dir, with a port of its own to
// take should it find no leader, and asks it to reach the tab.
func follower(t *testing.T, dir string) (*bridge, toolResult) {
	t.Helper()
	b := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true,
		args: []string{"--lazy", "--port", strconv.Itoa(freePort(t))}})
	b.rpc.initialize()
	return b, b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 2})
}

// A leader's /call answer with a raw newline inside a string (not JSON,
// which has a page's frame refused) is not relayed: the call is a
// bad_reply bridge error, and stdout stays one JSON-RPC message a line.
func TestSec_FollowerRefusesInvalidLeaderReply(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	leader := &fakeLeader{call: func(command string) []byte {
		if command == "render.png" {
			return []byte("{\"id\":2,\"ok\":true,\"dataUrl\":\"data:image/png;base64,iVBO\nRw0K\"}")
		}
		return describeAnswer
	}}
	port := leader.start(t, dir)
	b, r := follower(t, dir)
	if r.IsError || !strings.Contains(r.text(), "3 shapes") {
		t.Fatalf("wait_for_connection through the fake leader: %q, want the tab described; stderr:\n%s", r.text(), b.stderr)
	}
	if !strings.Contains(b.stderr.String(), "following the bridge on port "+strconv.Itoa(port)) {
		t.Fatalf("the bridge is not following the fake leader; stderr:\n%s", b.stderr)
	}
	from := b.rpc.bad.len()
	r = b.rpc.toolCall("render.png", map[string]any{})
	_, env := r.envelope(t)
	if !r.IsError || env["ok"] != false || env["error"] != "bad_reply" {
		t.Errorf("render.png answered by the leader with a raw newline in a string: %.300q, want a bad_reply bridge error", r.text())
	}
	if bad := b.rpc.bad.all()[from:]; len(bad) > 0 {
		t.Errorf("stdout lines that are not JSON-RPC after the leader's reply: %q", bad)
	}
	b.mustRun()
}

// hugeStatus writes a valid /status answer of over 65 MiB, more than any
// bridge sends, as a leader that wants the reader's memory would.
func hugeStatus(w io.Writer) {
	io.WriteString(w, `{"ok":true,"connected":true,"origin":"`+testOrigin+`","protocol":1,"tools":[],"message":"`)
	chunk := strings.Repeat("x", 64<<10)
	for range 65<<20/len(chunk) + 1 {
		if _, err := io.WriteString(w, chunk); err != nil {
			return
		}
	}
	io.WriteString(w, `"}`)
}

// The shell's status verb stops reading an answer past the frame limit:
// exit 1 with too_large, not the whole body held and printed.
func TestSec_CLIRefusesHugeAnswer(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	(&fakeLeader{status: hugeStatus}).start(t, dir)
	start := time.Now()
	r := runCLI(t, "--config-dir", dir, "status")
	if r.code != 1 || len(r.stdout) > 64<<10 {
		t.Fatalf("status against a 65 MiB answer: exit %d, %d bytes on stdout (stderr %.300q), want exit 1 and a short error", r.code, len(r.stdout), r.stderr)
	}
	if doc := r.doc(t); doc["error"] != "too_large" {
		t.Errorf("status against a 65 MiB answer: %v, want error too_large", doc)
	}
	t.Logf("refused in %v", time.Since(start))
}

// A follower looking for a leader does not take one whose /status is over
// the frame limit: it stops reading it, and binds a port of its own.
func TestSec_FollowerRefusesHugeLeaderStatus(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	(&fakeLeader{status: hugeStatus, call: func(string) []byte { return describeAnswer }}).start(t, dir)
	b := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true,
		args: []string{"--lazy", "--port", strconv.Itoa(freePort(t))}})
	b.rpc.initialize()
	// The guard is the harness's, tripled: the follower reads 64 MiB of the
	// answer before it stops, which under the race detector on two busy
	// cores has taken 7 to 11 s. It bounds a hang; nothing waits on it.
	b.rpc.toolCallWithin("wait_for_connection", map[string]any{"timeoutSeconds": 2}, 3*guard)
	b.awaitListening()
	if strings.Contains(b.stderr.String(), "following the bridge on port") {
		t.Errorf("the bridge followed a leader whose /status is 65 MiB; stderr:\n%s", b.stderr)
	}
	b.mustRun()
}
