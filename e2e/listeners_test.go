//go:build linux

package e2e

// THREAT_MODEL T10 and T17: every socket the binary accepts on is checked
// for its owner, and other users' listeners on the ports the tab dials are
// found on 127.0.0.1 and [::1], at start and later. These run helpers as
// uid 65534 (nobody), so they need root; elsewhere they skip and say why.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// squatAt listens on addr ("[::1]:8787") as nobody until the test ends.
func squatAt(t *testing.T, run func(...string) *exec.Cmd, addr string) {
	t.Helper()
	cmd := run("listen", addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the squatter: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the squatter on %s did not start: %q", addr, line)
	}
}

// freeBoth returns a port free on 127.0.0.1 and on [::1] a moment ago, or
// skips the test where [::1] cannot be bound.
func freeBoth(t *testing.T) int {
	t.Helper()
	for range 20 {
		p := freePort(t)
		l, err := net.Listen("tcp", net.JoinHostPort("::1", strconv.Itoa(p)))
		if err == nil {
			l.Close()
			return p
		}
		if !strings.Contains(err.Error(), "address already in use") {
			t.Skipf("cannot listen on [::1] here: %v", err)
		}
	}
	t.Fatal("found no port free on both loopback addresses")
	return 0
}

// squattersOf is /status's squatters as "ADDRESS PORT uid UID" strings.
func squattersOf(st map[string]any) []string {
	var out []string
	list, _ := st["squatters"].([]any)
	for _, s := range list {
		m, _ := s.(map[string]any)
		out = append(out, fmt.Sprintf("%v %v uid %v", m["address"], m["port"], m["uid"]))
	}
	return out
}

// The demo's page server is peer-checked like the bridge: nobody asking
// for the one-time token gets its connection closed unread, while the
// owner is answered.
func TestT17_OtherUserCannotFetchDemoToken(t *testing.T) {
	run := otherUser(t)
	d := startDemo(t, freePort(t), filepath.Join(t.TempDir(), "cfg"))
	u := strings.TrimSuffix(d.pageURL, "/")
	port := u[strings.LastIndex(u, ":")+1:]
	cmd := run("request", port)
	cmd.Stdin = strings.NewReader("GET /demo/token HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the other user's request: %v %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "closed" {
		t.Errorf("uid 65534 asking for the demo's token: got %q, want the connection closed unread", got)
	}
	resp := demoTokenRequest(t, d, demoPageHeader)
	defer resp.Body.Close()
	var tok struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&tok); resp.StatusCode != 200 || err != nil || tok.Token == "" {
		t.Errorf("the owner asking for the token: HTTP %d, %v, %+v; want 200 and a token", resp.StatusCode, err, tok)
	}
	if _, _, ok := d.stderr.lines.await(0, guard, func(l string) bool {
		return strings.Contains(l, "another local user") && strings.Contains(l, "uid 65534")
	}); !ok {
		t.Errorf("the demo's stderr does not name the refused user:\n%s", d.stderr)
	}
}

// A listener of nobody on [::1] at a port the bridge would use: as the
// only port, the bridge refuses to start and says why; as the first of a
// list, the bridge skips it and says so; on a later port of the list, the
// bridge starts and reports it on stderr and in /status.
func TestT10_V6SquatterAtStart(t *testing.T) {
	run := otherUser(t)
	t.Run("the only port", func(t *testing.T) {
		p := freeBoth(t)
		squatAt(t, run, fmt.Sprintf("[::1]:%d", p))
		b := startBridge(t, bridgeOpts{port: p, token: newToken(), expectExit: true})
		if code := b.awaitExit(); code != 2 {
			t.Fatalf("exit %d with [::1]:%d squatted, want 2; stderr:\n%s", code, p, b.stderr)
		}
		if s := b.stderr.String(); !strings.Contains(s, fmt.Sprintf("[::1]:%d (uid 65534)", p)) || !strings.Contains(s, "hint:") {
			t.Errorf("stderr does not name the address, the user and the fix:\n%s", s)
		}
	})
	t.Run("the first of a list", func(t *testing.T) {
		p1, p2 := freeBoth(t), freeBoth(t)
		squatAt(t, run, fmt.Sprintf("[::1]:%d", p1))
		b := startBridge(t, bridgeOpts{port: -1, token: newToken(), args: []string{"--port", fmt.Sprintf("%d,%d", p1, p2)}})
		if b.port != p2 {
			t.Fatalf("listening on %d, want %d (past the shared %d); stderr:\n%s", b.port, p2, p1, b.stderr)
		}
		if !b.awaitLine(fmt.Sprintf("[::1]:%d (uid 65534)", p1)) {
			t.Errorf("stderr does not say why %d was skipped:\n%s", p1, b.stderr)
		}
		_, st := b.ctl("GET", "/status", nil)
		if got, want := squattersOf(st), []string{fmt.Sprintf("::1 %d uid 65534", p1)}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("/status squatters = %v, want %v", got, want)
		}
	})
	t.Run("a later port", func(t *testing.T) {
		p1, p2 := freeBoth(t), freeBoth(t)
		squatAt(t, run, fmt.Sprintf("127.0.0.1:%d", p2))
		b := startBridge(t, bridgeOpts{port: -1, token: newToken(), args: []string{"--port", fmt.Sprintf("%d,%d", p1, p2)}})
		if b.port != p1 {
			t.Fatalf("listening on %d, want %d", b.port, p1)
		}
		if !b.awaitLine(fmt.Sprintf("port %d on 127.0.0.1 is held by a listener of another user (uid 65534)", p2)) {
			t.Errorf("stderr does not report the squatter on %d:\n%s", p2, b.stderr)
		}
		_, st := b.ctl("GET", "/status", nil)
		if got, want := squattersOf(st), []string{fmt.Sprintf("127.0.0.1 %d uid 65534", p2)}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("/status squatters = %v, want %v", got, want)
		}
	})
}

// A squatter that arrives while the bridge serves, on [::1] at the
// bridge's own port, is reported within a look: on stderr, in /status,
// to the agent in connection_status, and by doctor.
func TestT10_SquatterArrivingLaterReported(t *testing.T) {
	run := otherUser(t)
	p1, p2 := freeBoth(t), freeBoth(t)
	b := startBridge(t, bridgeOpts{port: -1, token: newToken(), mcp: true, timings: "squat=50ms",
		args: []string{"--port", fmt.Sprintf("%d,%d", p1, p2)}})
	b.rpc.initialize()
	if _, st := b.ctl("GET", "/status", nil); len(squattersOf(st)) != 0 || st["squatters"] == nil {
		t.Fatalf("/status squatters before any squatter = %v, want an empty list", st["squatters"])
	}
	from := b.stderr.lines.len()
	squatAt(t, run, fmt.Sprintf("[::1]:%d", b.port))
	want := fmt.Sprintf("[::1]:%d (uid 65534)", b.port)
	if _, _, ok := b.stderr.lines.await(from, guard, func(l string) bool { return strings.Contains(l, want) }); !ok {
		t.Fatalf("no stderr line names %s; stderr:\n%s", want, b.stderr)
	}
	_, st := b.ctl("GET", "/status", nil)
	if got, w := squattersOf(st), []string{fmt.Sprintf("::1 %d uid 65534", b.port)}; fmt.Sprint(got) != fmt.Sprint(w) {
		t.Errorf("/status squatters = %v, want %v", got, w)
	}
	if cs := b.rpc.toolCall("connection_status", map[string]any{}).text(); !strings.Contains(cs, fmt.Sprintf("[::1]:%d", b.port)) || !strings.Contains(cs, "another user") {
		t.Errorf("connection_status = %s, want it to name [::1]:%d and another user", cs, b.port)
	}
	doc := runCLI(t, "--config-dir", b.configDir, "--port", fmt.Sprintf("%d,%d", p1, p2), "doctor", "--json").doc(t)
	found := false
	for _, f := range doc["findings"].([]any) {
		m := f.(map[string]any)
		if m["check"] == "squatter" && m["subject"] == fmt.Sprintf("[::1]:%d", b.port) && m["severity"] == "problem" {
			found = true
		}
	}
	if !found {
		t.Errorf("doctor --json findings = %v, want a squatter problem for [::1]:%d", doc["findings"], b.port)
	}
}
