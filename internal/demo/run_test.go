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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

// freePort returns a loopback port nothing listens on just now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// demoRun is a demo.Run in progress.
type demoRun struct {
	page   string // the page's URL
	site   string
	port   int // the bridge's
	cancel context.CancelFunc
	done   chan error
}

// startRun runs the demo on dir until the test stops it, and returns once
// its bridge listens.
func startRun(t *testing.T, dir string) *demoRun {
	t.Helper()
	type where struct {
		page string
		port int
	}
	ready := make(chan where, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Bridge: testBridge, ConfigDir: dir, Ports: []int{freePort(t)}, Log: ui.NewLogger(&strings.Builder{}),
			Ready: func(page string, port int) { ready <- where{page, port} }})
	}()
	select {
	case w := <-ready:
		return &demoRun{page: w.page, site: strings.TrimSuffix(w.page, "/"), port: w.port, cancel: cancel, done: done}
	case err := <-done:
		t.Fatalf("demo.Run ended before it listened: %v", err)
		return nil
	}
}

// stop stops the demo as Ctrl-C does and returns what Run returned.
func (d *demoRun) stop() error {
	d.cancel()
	return <-d.done
}

// load is one load of the page: the token /demo/token hands it.
func (d *demoRun) load(t *testing.T) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, d.page+"demo/token", nil)
	req.Header.Set(TokenHeader, "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct{ Token string }
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || tok.Token == "" {
		t.Fatalf("GET /demo/token: %v %q", err, tok.Token)
	}
	return tok.Token
}

// attach plays a browser's tab with token and no stored secret, and
// returns its socket once the bridge has said hello with a pairing secret.
func (d *demoRun) attach(t *testing.T, token string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(d.port), http.Header{"Origin": {d.site}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := c.WriteJSON(map[string]string{"token": token}); err != nil {
		t.Fatal(err)
	}
	var hello struct{ Hello, PairingSecret, Error string }
	if err := c.ReadJSON(&hello); err != nil || hello.PairingSecret == "" {
		c.Close()
		t.Fatalf("handshake with a load's token: %+v, %v; want a hello with a pairing secret", hello, err)
	}
	return c
}

// runAndPair runs the demo on dir, plays its page until the bridge has
// paired it, then stops the demo and returns what Run returned.
func runAndPair(t *testing.T, dir string) error {
	t.Helper()
	d := startRun(t, dir)
	d.attach(t, d.load(t)).Close()
	return d.stop()
}

// A config dir the demo created is gone when it stops: nothing is left of
// the demo on the machine.
func TestRunRemovesTheDirItCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "cfg")
	if err := runAndPair(t, dir); err != nil {
		t.Fatalf("demo.Run = %v, want nil after Ctrl-C", err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		entries, _ := os.ReadDir(dir)
		t.Errorf("%s left behind (%v), holding %v; want it removed", dir, err, entries)
	}
}

// A config dir that was there before keeps everything, and gets no
// pairing: the demo's are kept in a folder of their own.
func TestRunKeepsADirThatWasThere(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := runAndPair(t, dir); err != nil {
		t.Fatalf("demo.Run = %v, want nil after Ctrl-C", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("notes.txt = %q, %v; want it untouched", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "pairing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("pairing.json after the demo: %v; want none written", err)
	}
}

// THREAT_MODEL T17: pairings in the config dir are not the demo's: a
// demo runs, pairs its page and stops, and pairing.json, which holds a
// pairing of a loopback site and, written while the demo runs, one of the
// demo's own origin (a dev server's that took the port before, say), is as
// it was, byte for byte. The old demo removed a pairing of its origin at
// its start and again at its exit. No folder of the demo's is left.
func TestRunLeavesTheConfigDirsPairingsAlone(t *testing.T) {
	dir := t.TempDir()
	entry := func() map[string]any {
		return map[string]any{"secret": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MDA", "secrets": []string{"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MDA"},
			"createdAt": "2026-11-02T09:14:55.120Z", "protocol": 1, "usedTokens": []string{}}
	}
	other := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	path := filepath.Join(dir, "pairing.json")
	seeded, _ := json.Marshal(map[string]any{other: entry(), "https://www.stitchslop.com": entry()})
	if err := os.WriteFile(path, seeded, 0o600); err != nil {
		t.Fatal(err)
	}
	d := startRun(t, dir)
	seeded, _ = json.Marshal(map[string]any{d.site: entry(), other: entry(), "https://www.stitchslop.com": entry()})
	if err := os.WriteFile(path, seeded, 0o600); err != nil {
		t.Fatal(err)
	}
	if paired, err := pairing.New(dir, ui.NewLogger(io.Discard)).Paired(d.site); err != nil || !paired {
		t.Fatalf("seeded pairing of %s: paired = %v, %v", d.site, paired, err)
	}
	d.attach(t, d.load(t)).Close()
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, seeded) {
		t.Errorf("pairing.json while the demo runs = %s, %v; want it as seeded", b, err)
	}
	if err := d.stop(); err != nil {
		t.Errorf("demo.Run = %v, want nil", err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, seeded) {
		t.Errorf("pairing.json after the demo = %s, %v; want it as seeded", b, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "demo-*")); len(left) > 0 {
		t.Errorf("the demo left %v in the config dir", left)
	}
}

// THREAT_MODEL T17: each run's page has an origin of its own, so what
// another program planted in a browser for an origin (a service worker, a
// cached script) is not at the next demo's. The old demo served every run
// on 127.0.0.1:8780.
func TestSec_EachRunItsOwnOrigin(t *testing.T) {
	dir := t.TempDir()
	a := startRun(t, dir)
	b := startRun(t, dir)
	if a.site == b.site {
		t.Errorf("two demos serve their pages at the same origin %s", a.site)
	}
	a.stop()
	b.stop()
	c := startRun(t, dir)
	if c.site == a.site || c.site == b.site {
		t.Errorf("a later demo serves its page at an earlier one's origin %s", c.site)
	}
	c.stop()
}

// Issue 36: the first load's token redeemed by one browser (a link
// preview, a headless screenshot) locks no other out: each load gets a
// token of its own, and a second browser, with no secret of the first's,
// attaches once the first has gone. The old demo handed every load the one
// token, spent by then.
func TestRunEveryLoadAttaches(t *testing.T) {
	d := startRun(t, t.TempDir())
	first, second := d.load(t), d.load(t)
	if first == second {
		t.Fatalf("two loads of the page got the same token")
	}
	d.attach(t, first).Close()
	// The bridge frees its slot when it has read the close; a tab that
	// comes sooner is told busy and tries again, as app.js does.
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(d.port), http.Header{"Origin": {d.site}})
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		c.WriteJSON(map[string]string{"token": second})
		var hello struct{ Hello, PairingSecret, Error string }
		err = c.ReadJSON(&hello)
		c.Close()
		if err == nil && hello.PairingSecret != "" {
			break
		}
		if hello.Error != "busy" || time.Now().After(deadline) {
			t.Fatalf("the second browser's handshake: %+v, %v; want a hello with a pairing secret", hello, err)
		}
	}
	if err := d.stop(); err != nil {
		t.Errorf("demo.Run = %v, want nil", err)
	}
}
