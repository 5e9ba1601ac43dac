package e2e

// THREAT_MODEL T17: the demo's page server hands a token only to the
// page's own script, at a person's pace, and its page keeps other sites
// and earlier holders of its origin out.

import (
	"crypto/sha512"
	"encoding/base64"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// A request for a token without the page's header (a plain client, or an
// old browser's cross-site request, which sends no Sec-Fetch-Site), or
// with an Origin that is not the page's, is refused (403) and arms
// nothing; the page's own request gets one. The old page server armed a
// token for any request without Sec-Fetch-Site.
func TestT17_DemoTokenOnlyForItsPage(t *testing.T) {
	d := startDemo(t, freePort(t), filepath.Join(t.TempDir(), "cfg"))
	from := d.stderr.lines.len()
	for _, tt := range []struct {
		name string
		hdr  map[string]string
	}{
		{"no header", nil},
		{"another origin", map[string]string{"X-Stitchslop-Demo": "1", "Origin": "http://evil.example"}},
		{"an opaque origin", map[string]string{"X-Stitchslop-Demo": "1", "Origin": "null"}},
		{"cross-site", map[string]string{"X-Stitchslop-Demo": "1", "Sec-Fetch-Site": "cross-site"}},
	} {
		resp := demoTokenRequest(t, d, tt.hdr)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "tok_") {
			t.Errorf("%s: GET /demo/token = %d %q, want 403 and no token", tt.name, resp.StatusCode, body)
		}
	}
	for _, l := range d.stderr.lines.all()[from:] {
		if strings.Contains(l, "armed a token") {
			t.Errorf("a refused request armed a token: %s", l)
		}
	}
	resp := demoTokenRequest(t, d, map[string]string{"X-Stitchslop-Demo": "1", "Origin": d.site(), "Sec-Fetch-Site": "same-origin"})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "tok_") {
		t.Errorf("the page's own request: %d %q, want 200 and a token", resp.StatusCode, body)
	}
	if resp.Header.Get("Cross-Origin-Resource-Policy") != "same-origin" {
		t.Errorf("/demo/token Cross-Origin-Resource-Policy = %q, want same-origin", resp.Header.Get("Cross-Origin-Resource-Policy"))
	}
}

// The page: no opener keeps a handle on it (COOP), it clears what its
// origin held (Clear-Site-Data), and it loads its script and style only
// with the bytes this demo serves (Subresource Integrity, checked here
// against the files as served).
func TestT17_DemoPageKeepsOthersOut(t *testing.T) {
	d := startDemo(t, freePort(t), filepath.Join(t.TempDir(), "cfg"))
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(d.site() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, page := get("/")
	if got := resp.Header.Get("Cross-Origin-Opener-Policy"); got != "same-origin" {
		t.Errorf("GET / Cross-Origin-Opener-Policy = %q, want same-origin", got)
	}
	if got := resp.Header.Get("Clear-Site-Data"); got != `"cache", "storage"` {
		t.Errorf(`GET / Clear-Site-Data = %q, want "cache", "storage"`, got)
	}
	for _, name := range []string{"/app.js", "/style.css"} {
		_, file := get(name)
		sum := sha512.Sum384([]byte(file))
		want := `"` + name + `" integrity="sha384-` + base64.StdEncoding.EncodeToString(sum[:]) + `"`
		if !strings.Contains(page, want) {
			t.Errorf("GET / does not load %s by the hash of the file served (%s):\n%s", name, want, page)
		}
	}
}

// A flood of loads arms at most a person's pace of tokens (the rest are
// told 429), so the person's own token is not pushed out of the few the
// bridge keeps, and it writes two lines about arming, not one a load. The
// old demo armed 12,000 tokens in 12 s, and wrote 12,000 lines.
func TestT17_DemoTokenFloodBoundedAndCounted(t *testing.T) {
	d := startDemo(t, freePort(t), filepath.Join(t.TempDir(), "cfg"))
	const n = 200
	armed, refused := 0, 0
	for range n {
		resp := demoTokenRequest(t, d, demoPageHeader)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			armed++
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("load %d: GET /demo/token = %d", armed+refused+1, resp.StatusCode)
		}
	}
	if refused == 0 || armed > n/2 {
		t.Errorf("%d loads at once: %d given a token, %d refused; want most refused", n, armed, refused)
	}
	if code := d.stop(t); code != 0 {
		t.Errorf("demo exit after Ctrl-C: %d, want 0; stderr:\n%s", code, d.stderr)
	}
	var lines []string
	for _, l := range d.stderr.lines.all() {
		if strings.Contains(l, "armed a token") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 2 || len(lines) == 2 && !strings.Contains(lines[1], " more time") {
		t.Errorf("%d tokens armed wrote %d lines about it, want the first and one count:\n%s", armed, len(lines), strings.Join(lines, "\n"))
	}
}
