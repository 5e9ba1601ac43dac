package demo

import (
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

// runAndPair runs the demo on dir, plays its page until the bridge has
// paired it, then stops the demo and returns what Run returned.
func runAndPair(t *testing.T, dir string) error {
	t.Helper()
	old := PagePort
	PagePort = 0
	t.Cleanup(func() { PagePort = old })
	type where struct {
		page string
		port int
	}
	ready := make(chan where, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{ConfigDir: dir, Ports: []int{freePort(t)}, Log: ui.NewLogger(&strings.Builder{}),
			Ready: func(page string, port int) { ready <- where{page, port} }})
	}()
	var w where
	select {
	case w = <-ready:
	case err := <-done:
		t.Fatalf("demo.Run ended before it listened: %v", err)
	}
	resp, err := http.Get(w.page + "demo/token")
	if err != nil {
		t.Fatal(err)
	}
	var tok struct{ Token string }
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || tok.Token == "" {
		t.Fatalf("GET /demo/token: %v %q", err, tok.Token)
	}
	site := strings.TrimSuffix(w.page, "/")
	c, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(w.port), http.Header{"Origin": {site}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := c.WriteJSON(map[string]string{"token": tok.Token}); err != nil {
		t.Fatal(err)
	}
	var hello struct{ Hello, PairingSecret string }
	if err := c.ReadJSON(&hello); err != nil || hello.PairingSecret == "" {
		t.Fatalf("handshake with the demo's token: %+v, %v; want a hello with a pairing secret", hello, err)
	}
	store := pairing.New(dir, ui.NewLogger(io.Discard))
	if paired, err := store.Paired(site); err != nil || paired || !store.DemoPaired(site) {
		t.Fatalf("after the hello, %s paired = %v, %v, demo-paired %v; want the demo's pairing alone", site, paired, err, store.DemoPaired(site))
	}
	cancel()
	return <-done
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

// A config dir that was there before keeps everything but the demo's
// pairing: another site's stays, and so do files the demo did not write.
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
	sites, err := pairing.New(dir, ui.NewLogger(io.Discard)).PairedOrigins()
	if err != nil || len(sites) != 0 {
		t.Errorf("paired sites after the demo = %q, %v; want none", sites, err)
	}
}

// A pairing of the demo's origin that an earlier demo left (killed before
// its exit) is gone before the bridge listens; another site's stays.
func TestRunRemovesAStalePairingAtStart(t *testing.T) {
	dir := t.TempDir()
	old := PagePort
	PagePort = freePort(t)
	t.Cleanup(func() { PagePort = old })
	site := "http://127.0.0.1:" + strconv.Itoa(PagePort)
	const other = "https://www.stitchslop.com"
	entry := func() map[string]any {
		return map[string]any{"secret": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MDA", "secrets": []string{"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MDA"},
			"createdAt": "2026-11-02T09:14:55.120Z", "protocol": 1, "usedTokens": []string{}}
	}
	b, _ := json.Marshal(map[string]any{site: entry(), other: entry()})
	if err := os.WriteFile(filepath.Join(dir, "pairing.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	store := pairing.New(dir, ui.NewLogger(io.Discard))
	if paired, err := store.Paired(site); err != nil || !paired {
		t.Fatalf("seeded pairing of %s: paired = %v, %v", site, paired, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{ConfigDir: dir, Ports: []int{freePort(t)}, Log: ui.NewLogger(io.Discard),
			Ready: func(string, int) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("demo.Run ended before it listened: %v", err)
	}
	if paired, err := store.Paired(site); err != nil || paired {
		t.Errorf("once the demo listens, %s paired = %v, %v; want false", site, paired, err)
	}
	if paired, err := store.Paired(other); err != nil || !paired {
		t.Errorf("once the demo listens, %s paired = %v, %v; want true (not the demo's)", other, paired, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("demo.Run = %v, want nil", err)
	}
}
