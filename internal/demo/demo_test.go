package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/setup"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

// Header names below are written from the spec (CSP, Fetch Metadata), not
// taken from the code under test.

const testPagePort = 40123

func newState(t *testing.T, ports ...int) *state {
	t.Helper()
	files, err := fs.Sub(static, "static")
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) == 0 {
		ports = []int{8787, 8788, 8789, 8790}
	}
	s, err := buildState(files, testPagePort, ports, &tokens{first: firstToken}, ui.NewLogger(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const firstToken = "tok_00112233445566778899aabbccddeeff"

func do(s *state, method, target, host string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	req.Host = host
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.guarded().ServeHTTP(rec, req)
	return rec
}

var self = "127.0.0.1:" + strconv.Itoa(testPagePort)

func TestHeadersOnEveryAnswer(t *testing.T) {
	s := newState(t)
	s.listening(8788)
	for _, tt := range []struct{ method, target, host string }{
		{"GET", "/", self},
		{"GET", "/app.js", self},
		{"GET", "/demo/token", self},
		{"GET", "/nope", self},
		{"POST", "/", self},
		{"GET", "/", "evil.example:" + strconv.Itoa(testPagePort)},
	} {
		t.Run(tt.method+" "+tt.target+" "+tt.host, func(t *testing.T) {
			rec := do(s, tt.method, tt.target, tt.host, nil)
			h := rec.Header()
			if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
			}
			c := h.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'",
				"connect-src 'self' ws://127.0.0.1:8787 ws://127.0.0.1:8788 ws://127.0.0.1:8789 ws://127.0.0.1:8790;"} {
				if !strings.Contains(c, want) {
					t.Errorf("Content-Security-Policy = %q, want it to hold %q", c, want)
				}
			}
			for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:"} {
				if strings.Contains(c, bad) {
					t.Errorf("Content-Security-Policy = %q, want no %q", c, bad)
				}
			}
		})
	}
}

// A pinned port is the only one the page may dial.
func TestCSPNamesExactlyTheBridgePorts(t *testing.T) {
	for _, tt := range []struct {
		ports []int
		want  string
	}{
		{[]int{9123}, "connect-src 'self' ws://127.0.0.1:9123;"},
		{[]int{8797, 8798}, "connect-src 'self' ws://127.0.0.1:8797 ws://127.0.0.1:8798;"},
	} {
		got := csp(tt.ports)
		if !strings.Contains(got, tt.want) || strings.Count(got, "ws://") != len(tt.ports) {
			t.Errorf("csp(%v) = %q, want connect-src exactly %q", tt.ports, got, tt.want)
		}
	}
}

func TestHostRefused(t *testing.T) {
	s := newState(t)
	for _, host := range []string{
		"evil.example:" + strconv.Itoa(testPagePort),
		"127.0.0.1:1",
		"127.0.0.1",
		"127.1:" + strconv.Itoa(testPagePort),
		"",
	} {
		for _, target := range []string{"/", "/demo/token"} {
			if rec := do(s, "GET", target, host, nil); rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), "tok_") {
				t.Errorf("GET %s with Host %q = %d %q, want 403 and no token", target, host, rec.Code, rec.Body)
			}
		}
	}
}

// The bridge admits the page as 127.0.0.1 only: opened as localhost it is
// sent there.
func TestLocalhostRedirected(t *testing.T) {
	s := newState(t)
	s.listening(8787)
	rec := do(s, "GET", "/", "localhost:"+strconv.Itoa(testPagePort), nil)
	if rec.Code != http.StatusTemporaryRedirect || rec.Header().Get("Location") != "http://"+self+"/" {
		t.Errorf("GET / as localhost = %d Location %q, want 307 to http://%s/", rec.Code, rec.Header().Get("Location"), self)
	}
	rec = do(s, "GET", "/demo/token", "localhost:"+strconv.Itoa(testPagePort), nil)
	if rec.Code != http.StatusTemporaryRedirect || rec.Header().Get("Location") != "http://"+self+"/demo/token" || strings.Contains(rec.Body.String(), "tok_") {
		t.Errorf("GET /demo/token as localhost = %d Location %q %q, want 307 to http://%s/demo/token and no token", rec.Code, rec.Header().Get("Location"), rec.Body, self)
	}
}

func TestNotFound(t *testing.T) {
	s := newState(t)
	for _, target := range []string{"/nope", "/static/app.js", "/demo/", "/demo/token/x", "/app.js/", "/.git/config", "/demo.go"} {
		if rec := do(s, "GET", target, self, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", target, rec.Code)
		}
	}
}

func TestMethods(t *testing.T) {
	s := newState(t)
	s.listening(8787)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		for _, target := range []string{"/", "/demo/token"} {
			rec := do(s, m, target, self, nil)
			if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" || strings.Contains(rec.Body.String(), "tok_") {
				t.Errorf("%s %s = %d Allow %q, want 405 with Allow \"GET, HEAD\" and no token", m, target, rec.Code, rec.Header().Get("Allow"))
			}
		}
	}
	if rec := do(s, "HEAD", "/", self, nil); rec.Code != http.StatusOK {
		t.Errorf("HEAD / = %d, want 200", rec.Code)
	}
}

func TestFilesServed(t *testing.T) {
	s := newState(t)
	for _, tt := range []struct{ target, ctype, holds string }{
		{"/", "text/html", `<script src="/app.js"`},
		{"/app.js", "javascript", "scene.describe"},
		{"/style.css", "text/css", "canvas"},
	} {
		rec := do(s, "GET", tt.target, self, nil)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Type"), tt.ctype) || !strings.Contains(rec.Body.String(), tt.holds) {
			t.Errorf("GET %s = %d %q, want 200, a %s holding %q", tt.target, rec.Code, rec.Header().Get("Content-Type"), tt.ctype, tt.holds)
		}
	}
}

func TestTokenEndpoint(t *testing.T) {
	s := newState(t, 9001, 9002, 9003)
	rec := do(s, "GET", "/demo/token", self, map[string]string{TokenHeader: "1"})
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || strings.Contains(rec.Body.String(), "tok_") {
		t.Fatalf("GET /demo/token before the bridge listens = %d %q, want 503 with Retry-After and no token", rec.Code, rec.Body)
	}
	s.listening(9002)
	var armed []string
	s.tokens.arm = func(_ context.Context, tok string) error {
		armed = append(armed, tok)
		return nil
	}
	seen := map[string]bool{}
	for i, fetchSite := range []string{"", "same-origin", "same-origin"} {
		rec := do(s, "GET", "/demo/token", self, map[string]string{"Sec-Fetch-Site": fetchSite, TokenHeader: "1"})
		var got struct {
			Token string `json:"token"`
			Port  int    `json:"port"`
			Ports []int  `json:"ports"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("GET /demo/token with Sec-Fetch-Site %q = %d %q (%v), want 200 JSON", fetchSite, rec.Code, rec.Body, err)
		}
		// The first load gets the token the bridge started with, each
		// later one a fresh token, armed at the bridge before it is served.
		want := got.Token == firstToken
		if i > 0 {
			want = !seen[got.Token] && len(armed) == i && armed[i-1] == got.Token
		}
		seen[got.Token] = true
		if !want || got.Port != 9002 || !slices.Equal(got.Ports, []int{9002, 9001, 9003}) || rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("GET /demo/token #%d = %+v (armed %q), want a token of its own, armed, port 9002, ports [9002 9001 9003], no-store", i+1, got, armed)
		}
	}
	for _, fetchSite := range []string{"cross-site", "same-site", "none", "Same-Origin"} {
		rec := do(s, "GET", "/demo/token", self, map[string]string{"Sec-Fetch-Site": fetchSite, TokenHeader: "1"})
		if rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), "tok_") || len(armed) != 2 {
			t.Errorf("GET /demo/token with Sec-Fetch-Site %q = %d %q (armed %d), want 403 and no token armed", fetchSite, rec.Code, rec.Body, len(armed))
		}
	}
	s.tokens.arm = func(context.Context, string) error { return errors.New("no bridge") }
	if rec := do(s, "GET", "/demo/token", self, map[string]string{TokenHeader: "1"}); rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), "tok_") {
		t.Errorf("GET /demo/token when arming fails = %d %q, want 503 and no token", rec.Code, rec.Body)
	}
}

// The page runs under the CSP: no inline script or style, no eval, no
// markup built from strings.
func TestPageFitsTheCSP(t *testing.T) {
	read := func(name string) string {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	html := read("index.html")
	for _, re := range []string{`<script(?:\s[^>]*)?>[^<]*\S[^<]*</script>`, `<script(?:(?!src=)[^>])*>`, `<style`, `\sstyle=`, `\son[a-z]+=`, `javascript:`, `https?://`} {
		if strings.Contains(re, "?!") {
			// Go's regexp has no lookahead: every script tag must carry src.
			for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(html, -1) {
				if !strings.Contains(tag, `src="/`) {
					t.Errorf("index.html: %s has no same-origin src", tag)
				}
			}
			continue
		}
		if m := regexp.MustCompile(re).FindString(html); m != "" {
			t.Errorf("index.html holds %q, which the CSP forbids or which reaches off the page", m)
		}
	}
	// The SVG namespace is a name, not a place the page reaches.
	js := strings.ReplaceAll(read("app.js"), `"http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"eval(", "new Function", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "setAttribute(\"style", "https://", "http://"} {
		if strings.Contains(js, bad) {
			t.Errorf("app.js holds %q", bad)
		}
	}
	if strings.Contains(read("style.css"), "@import") || strings.Contains(read("style.css"), "url(") {
		t.Errorf("style.css loads something else")
	}
}

func TestHintsNameConfigDirOnlyWhenGiven(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want bool
	}{
		{Options{ConfigDir: "/home/u/.stitchslop", DefaultConfigDir: true}, false},
		{Options{ConfigDir: "/tmp/demo dir"}, true},
	} {
		var buf bytes.Buffer
		tell(ui.NewLogger(&buf), "http://127.0.0.1:5000", 8799, tt.o)
		out := buf.String()
		if got := strings.Contains(out, "--config-dir"); got != tt.want {
			t.Errorf("tell(%+v) names --config-dir = %v, want %v; hints:\n%s", tt.o, got, tt.want, out)
		}
		if tt.want && !strings.Contains(out, `--config-dir '/tmp/demo dir' --port 8799 call scene.describe`) {
			t.Errorf("tell(%+v): hints do not quote the dir; hints:\n%s", tt.o, out)
		}
		if tt.want && !strings.Contains(out, "--lazy --origin http://127.0.0.1:5000 --config-dir '/tmp/demo dir'") {
			t.Errorf("tell(%+v): the agent's command does not name the dir, so it would not find the demo's bridge; hints:\n%s", tt.o, out)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/usr/bin/stitchslop-bridge", "/usr/bin/stitchslop-bridge"},
		{"/tmp/a b", "'/tmp/a b'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"$(rm -rf ~)", "'$(rm -rf ~)'"},
	} {
		if got := setup.QuotePosix(tt.in); got != tt.want {
			t.Errorf("setup.QuotePosix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Run end to end: the token endpoint answers once the bridge listens, with
// its port; the config dir gets no pairing.
func TestRun(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	bridgePort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := filepath.Join(t.TempDir(), "cfg")
	type readyAt struct {
		url  string
		port int
	}
	readyc := make(chan readyAt, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logBuf syncBuffer
	go func() {
		done <- Run(ctx, Options{Bridge: testBridge, ConfigDir: dir, Ports: []int{bridgePort}, Log: ui.NewLogger(&logBuf),
			Ready: func(u string, p int) { readyc <- readyAt{u, p} }})
	}()
	var r readyAt
	select {
	case r = <-readyc:
	case err := <-done:
		cancel()
		t.Fatalf("Run returned %v before it was ready; log:\n%s", err, logBuf.String())
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatalf("Run was not ready within 10s; log:\n%s", logBuf.String())
	}
	if r.port != bridgePort || !strings.HasPrefix(r.url, "http://127.0.0.1:") {
		t.Errorf("Ready(%q, %d), want a 127.0.0.1 page and bridge port %d", r.url, r.port, bridgePort)
	}
	req, _ := http.NewRequest(http.MethodGet, r.url+"demo/token", nil)
	req.Header.Set(TokenHeader, "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var tok struct {
		Token string `json:"token"`
		Port  int    `json:"port"`
		Ports []int  `json:"ports"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || !regexp.MustCompile(`^tok_[0-9a-f]{32}$`).MatchString(tok.Token) ||
		tok.Port != bridgePort || !slices.Equal(tok.Ports, []int{bridgePort}) {
		t.Errorf("GET /demo/token = %q, want a token, port %d and ports [%d]", body, bridgePort, bridgePort)
	}
	if resp.Header.Get("Content-Security-Policy") != csp([]int{bridgePort}) {
		t.Errorf("CSP = %q, want connect-src to name only port %d", resp.Header.Get("Content-Security-Policy"), bridgePort)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of cancel")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "pairing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("pairing.json after the demo = %q, %v; want none written", b, err)
	}
	if strings.Contains(logBuf.String(), tok.Token) {
		t.Errorf("the demo's log holds its token")
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestPageDeclaresItsIcon: the page names its icon (an empty data URL,
// which its CSP's img-src allows), so a browser asks for no /favicon.ico,
// which the server does not have (404 in the console).
func TestPageDeclaresItsIcon(t *testing.T) {
	rec := do(newState(t), "GET", "/", self, nil)
	if body := rec.Body.String(); rec.Code != 200 || !strings.Contains(body, `<link rel="icon" href="data:,">`) {
		t.Errorf("GET / = %d, with no <link rel=\"icon\" href=\"data:,\">:\n%s", rec.Code, body)
	}
	if !strings.Contains(csp(nil), "img-src 'self' data:") {
		t.Errorf("csp = %q, want img-src to allow the data: icon", csp(nil))
	}
}
