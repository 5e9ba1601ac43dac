package e2e

// A flood of refusals is counted on stderr, not written line by line
// (issues 27 and 29): the first of each reason is written at once, the
// rest as one line with their count, here at the bridge's exit.

import (
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
