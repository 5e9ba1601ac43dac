package demo

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/throttle"
)

// THREAT_MODEL T17: /demo/token mints a token only for the page's own
// script. A request without the page's header (a plain client, an old
// browser's cross-site request that sends no Sec-Fetch-Site), or with an
// Origin other than the page's, is refused before anything is armed. The
// old page server armed a token for each of them.
func TestSec_TokenOnlyForThePagesScript(t *testing.T) {
	s := newState(t)
	s.listening(8788)
	armed := 0
	s.tokens.first = ""
	s.tokens.arm = func(context.Context, string) error { armed++; return nil }
	for _, tt := range []struct {
		name string
		hdr  map[string]string
	}{
		{"no header", nil},
		{"no header, same-origin", map[string]string{"Sec-Fetch-Site": "same-origin"}},
		{"header of another value", map[string]string{TokenHeader: "yes"}},
		{"another origin", map[string]string{TokenHeader: "1", "Origin": "http://evil.example"}},
		{"another port", map[string]string{TokenHeader: "1", "Origin": "http://127.0.0.1:1"}},
		{"localhost", map[string]string{TokenHeader: "1", "Origin": "http://localhost:" + strconv.Itoa(testPagePort)}},
		{"opaque origin", map[string]string{TokenHeader: "1", "Origin": "null"}},
	} {
		rec := do(s, "GET", "/demo/token", self, tt.hdr)
		if rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), "tok_") || armed != 0 {
			t.Errorf("%s: GET /demo/token = %d %q (%d armed), want 403 and nothing armed", tt.name, rec.Code, rec.Body, armed)
		}
	}
	for _, hdr := range []map[string]string{{TokenHeader: "1"}, {TokenHeader: "1", "Origin": s.site, "Sec-Fetch-Site": "same-origin"}} {
		if rec := do(s, "GET", "/demo/token", self, hdr); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "tok_") {
			t.Errorf("GET /demo/token with %v = %d %q, want 200 and a token", hdr, rec.Code, rec.Body)
		}
	}
	if armed != 2 {
		t.Errorf("%d tokens armed for the page's two loads, want 2", armed)
	}
}

// A flood of loads cannot push the person's token out of the few the
// bridge keeps per site, nor fill the terminal: past a person's pace the
// page server refuses (429, Retry-After) and arms nothing, and says so
// once. The old one armed 12,000 tokens in 12 s.
func TestSec_TokenMintingThrottled(t *testing.T) {
	var logBuf syncBuffer
	s := newState(t)
	s.log = ui.NewLogger(&logBuf)
	s.listening(8788)
	armed := 0
	s.tokens.arm = func(context.Context, string) error { armed++; return nil }
	refused := 0
	const n = 500
	for range n {
		rec := do(s, "GET", "/demo/token", self, map[string]string{TokenHeader: "1"})
		switch rec.Code {
		case http.StatusOK:
		case http.StatusTooManyRequests:
			refused++
			if rec.Header().Get("Retry-After") == "" || strings.Contains(rec.Body.String(), "tok_") {
				t.Fatalf("a load over the budget: %q, Retry-After %q; want no token and a Retry-After", rec.Body, rec.Header().Get("Retry-After"))
			}
		default:
			t.Fatalf("GET /demo/token = %d %q", rec.Code, rec.Body)
		}
	}
	// The first token is the bridge's own; the rest are armed. A slow
	// machine refills a few units while the loop runs.
	if refused == 0 || armed > throttle.Burst+throttle.PerSecond {
		t.Errorf("%d loads at once: %d armed, %d refused; want at most about %d armed", n, armed, refused, throttle.Burst)
	}
	if c := strings.Count(logBuf.String(), "faster than a person"); c != 1 {
		t.Errorf("the throttle was logged %d times, want once:\n%s", c, logBuf.String())
	}
}

// Every answer of the page server keeps other sites out: no opener keeps a
// handle on the page (Cross-Origin-Opener-Policy), no other site may load
// an answer (Cross-Origin-Resource-Policy); the page clears what its
// origin held before it runs. None of these was sent before.
func TestSec_CrossOriginHeaders(t *testing.T) {
	s := newState(t)
	s.listening(8788)
	for _, target := range []string{"/", "/app.js", "/style.css", "/demo/token", "/nope"} {
		h := do(s, "GET", target, self, map[string]string{TokenHeader: "1"}).Header()
		if h.Get("Cross-Origin-Opener-Policy") != "same-origin" || h.Get("Cross-Origin-Resource-Policy") != "same-origin" {
			t.Errorf("GET %s: COOP %q, CORP %q; want same-origin both", target, h.Get("Cross-Origin-Opener-Policy"), h.Get("Cross-Origin-Resource-Policy"))
		}
	}
	if got := do(s, "GET", "/", self, nil).Header().Get("Clear-Site-Data"); got != `"cache", "storage"` {
		t.Errorf(`GET / Clear-Site-Data = %q, want "cache", "storage"`, got)
	}
	if got := do(s, "GET", "/index.html", self, nil); got.Code != http.StatusMovedPermanently || got.Header().Get("Location") != "/" {
		t.Errorf("GET /index.html = %d to %q, want 301 to /", got.Code, got.Header().Get("Location"))
	}
}

// The page loads its script and style only with the bytes the demo serves
// (Subresource Integrity): a copy of app.js another program planted in the
// browser's cache for this origin does not run. The hashes are computed
// here from the embedded files, as a browser does.
func TestSec_PageNamesItsFilesByHash(t *testing.T) {
	body := do(newState(t), "GET", "/", self, nil).Body.String()
	for _, name := range []string{"app.js", "style.css"} {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha512.Sum384(b)
		want := `"/` + name + `" integrity="sha384-` + base64.StdEncoding.EncodeToString(sum[:]) + `"`
		if !strings.Contains(body, want) {
			t.Errorf("GET / does not load %s with its hash (%s):\n%s", name, want, body)
		}
	}
	if strings.Contains(body, "{{") {
		t.Errorf("GET / still holds a placeholder:\n%s", body)
	}
}

// THREAT_MODEL T17: the demo's pairing folder is in the config dir, which
// fileperm.EnsureDir has checked, 0700; a later demo removes the folders
// of demos that are dead (by their pid), and keeps a live demo's, a link
// and anything else. The old folder was made in TMPDIR, where another user
// of a world-writable one could put a link in its place.
func TestSec_PairingFolderInTheConfigDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	log := ui.NewLogger(io.Discard)
	// A pid that was alive and is not now: a child that has exited.
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	target := t.TempDir()
	mine := filepath.Join(target, "keep")
	os.WriteFile(mine, nil, 0o600)
	for _, d := range []string{"demo-" + dead + "-0011", "demo-" + strconv.Itoa(os.Getppid()) + "-0022", "demo-x-0033", "notes"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, d, "pairing.json"), []byte("{}"), 0o600)
	}
	if err := os.Symlink(target, filepath.Join(dir, "demo-"+dead+"-0044")); err != nil {
		t.Fatal(err)
	}
	p, err := pairingFolder(dir, log)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(p) != dir || !strings.HasPrefix(filepath.Base(p), "demo-"+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("pairing folder %s, want demo-%d-* in %s", p, os.Getpid(), dir)
	}
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("pairing folder %s: %v, %v; want a directory, 0700", p, fi, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "demo-"+dead+"-0011")); err == nil {
		t.Errorf("the folder of a dead demo (pid %s) was kept", dead)
	}
	for _, kept := range []string{"demo-" + strconv.Itoa(os.Getppid()) + "-0022", "demo-x-0033", "notes", "demo-" + dead + "-0044"} {
		if _, err := os.Lstat(filepath.Join(dir, kept)); err != nil {
			t.Errorf("%s was removed (%v), want it kept", kept, err)
		}
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file a link pointed at was removed: %v", err)
	}
}
