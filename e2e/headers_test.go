package e2e

import (
	"net/http"
	"strconv"
	"testing"
)

// Every HTTP answer on the port, whoever it goes to and whatever it says,
// carries a deny-all Content-Security-Policy and nosniff, so a browser can
// neither run nor sniff anything the bridge sends (THREAT_MODEL T4).
func TestSpec4_3_SecurityHeadersOnEveryAnswer(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	key := b.session().Key
	host := "127.0.0.1:" + itoa(b.port)
	cases := []struct {
		name, method, path, host string
		hdr                      http.Header
		status                   int
	}{
		{"status", "GET", "/status", "", keyHeader(key), 200},
		{"no key", "GET", "/status", "", nil, 401},
		{"not a route", "GET", "/", "", nil, 426},
		{"foreign Host", "GET", "/status", "evil.example", keyHeader(key), 403},
		{"from a browser", "GET", "/status", host, originHeader(testOrigin), 403},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, "http://127.0.0.1:"+itoa(b.port)+c.path, nil)
		for k, v := range c.hdr {
			req.Header[k] = v
		}
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: HTTP %d, want %d", c.name, resp.StatusCode, c.status)
		}
		if got := resp.Header.Get("Content-Security-Policy"); got != "default-src 'none'; frame-ancestors 'none'" {
			t.Errorf("%s: Content-Security-Policy %q, want deny-all", c.name, got)
		}
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", c.name, got)
		}
	}
	// A refused upgrade too.
	h := originHeader("https://evil.example")
	_, resp, err := dialWS(b.port, h)
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("upgrade from another origin: %v, want 403", err)
	}
	if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("refused upgrade: headers %v, want the CSP and nosniff", resp.Header)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
