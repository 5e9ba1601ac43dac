package e2e

// A flood of refusals is counted on stderr, not written line by line
// (issues 27 and 29): the first of each reason is written at once, the
// rest as one line with their count, here at the bridge's exit.

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestSec_RefusalFloodIsCounted(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	const n = 300
	for range n {
		if _, resp, _ := dialWS(b.port, originHeader("https://evil.example")); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatal("an upgrade from a web origin was not refused")
		}
	}
	for range n { // a rebinding page: its own host name in Host
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(b.port)+"/status", nil)
		req.Host = "rebind.example:" + strconv.Itoa(b.port)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a request naming another host: %v %v, want 403", resp, err)
		}
		resp.Body.Close()
	}
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0; stderr:\n%s", code, b.stderr)
	}
	for _, reason := range []string{"origin not allowed", "host not allowed"} {
		var lines []string
		for _, l := range b.stderr.lines.all() {
			if strings.Contains(l, reason) {
				lines = append(lines, l)
			}
		}
		if len(lines) != 2 || !strings.Contains(lines[1], "("+strconv.Itoa(n-1)+" more times in the last ") {
			t.Errorf("%d refusals for %q wrote %d stderr lines, want the first and one with the count of the rest:\n%s",
				n, reason, len(lines), strings.Join(lines[:min(len(lines), 5)], "\n"))
		}
	}
}

// Connections whose owner cannot be looked up (each gone, reset, before
// the bridge asks the kernel who made it) are refused with one warning
// and a count, not a line each (issue 29 item 9: 506 lines in the demo).
func TestSec_UncheckedOwnerFloodIsCounted(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	const n = 300
	for range n {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(b.port))
		if err != nil {
			t.Fatal(err)
		}
		c.(*net.TCPConn).SetLinger(0) // a reset, at once
		c.Close()
	}
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0; stderr:\n%s", code, b.stderr)
	}
	var lines []string
	for _, l := range b.stderr.lines.all() {
		if strings.Contains(l, "owner could not be checked") {
			lines = append(lines, l)
		}
	}
	t.Logf("%d stderr lines for %d reset connections: %q", len(lines), n, lines)
	if len(lines) > 2 || len(lines) == 2 && !strings.Contains(lines[1], " more time") {
		t.Errorf("%d reset connections wrote %d stderr lines about their owner, want the first and one count:\n%s",
			n, len(lines), strings.Join(lines[:min(len(lines), 5)], "\n"))
	}
}
