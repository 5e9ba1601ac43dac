package e2e

// THREAT_MODEL T17: the demo's pairings are the demo's. Its bridge keeps
// them in a throwaway folder of its own, so the config dir's pairing.json,
// which may hold a pairing of the demo's own origin that is not the demo's
// (a local dev server's), is never written or trimmed, whether the
// demo exits cleanly or is killed. A pairing an older demo stored there
// (demoSecrets) is still refused by every production bridge.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// awaitLine waits for a stderr line of b holding text.
func (b *bridge) awaitLine(text string) bool {
	_, _, ok := b.stderr.lines.await(0, guard, func(l string) bool { return strings.Contains(l, text) })
	return ok
}

// kill is SIGKILL: the demo gets no chance to clean up.
func (d *demoProc) kill(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill the demo: %v", err)
	}
	<-d.done
}

// demoTokenRequest asks the demo's page server for a token with hdr, as a
// load of the page does with demoPageHeader.
func demoTokenRequest(t *testing.T, d *demoProc, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, d.pageURL+"demo/token", nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// demoPageHeader is what the page's script sends with its request for a
// token (app.js); the page server refuses a request without it.
var demoPageHeader = map[string]string{"X-Stitchslop-Demo": "1"}

// demoToken is one load of the demo's page: the token /demo/token hands it.
func demoToken(t *testing.T, d *demoProc) string {
	t.Helper()
	resp := demoTokenRequest(t, d, demoPageHeader)
	var tok struct{ Token string }
	err := json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || tok.Token == "" {
		t.Fatalf("the demo's token: %v %+v", err, tok)
	}
	return tok.Token
}

// pairWithDemo plays one load of the demo's page in a browser with nothing
// stored: it pairs with its load's token, and returns the page and the
// secret the hello gives it.
func pairWithDemo(t *testing.T, d *demoProc) (*page, string) {
	t.Helper()
	tok := demoToken(t, d)
	p := openPageFrom(t, d.port, d.site(), false)
	hello := p.handshake(map[string]any{"token": tok})
	wantHello(t, hello, d.port)
	secret := hello.str("pairingSecret")
	if secret == "" {
		t.Fatalf("hello %s: no pairing secret", hello.raw)
	}
	return p, secret
}

// TestT17_DemoLeavesPairingJSONByteForByte: with production pairings in
// ~/.stitchslop/pairing.json, among them one of the demo's own origin
// (written once the demo has taken its port: a dev server's that had it
// before, say), the demo runs, a tab pairs with it, the shell verbs drive
// it through that config dir, and it stops (Ctrl-C), or is killed and a
// demo started and killed again: the file is the same, byte for byte,
// throughout. The old demo removed a pairing of its origin at its start
// and at its exit.
func TestT17_DemoLeavesPairingJSONByteForByte(t *testing.T) {
	for _, stop := range []string{"ctrl-c", "sigkill"} {
		t.Run(stop, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".stitchslop")
			other := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
			seedPairing(t, dir, map[string]any{other: pairingFor(newSecret()), testOrigin: pairingFor(newSecret())})
			env := []string{"HOME=" + home}
			d := startDemo(t, freePort(t), dir, env...)
			site := d.site()
			seedPairing(t, dir, map[string]any{site: pairingFor(newSecret()), other: pairingFor(newSecret()), testOrigin: pairingFor(newSecret())})
			path := filepath.Join(dir, "pairing.json")
			seeded, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			same := func(when string) {
				t.Helper()
				if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, seeded) {
					t.Errorf("%s: pairing.json = %s, %v; want it byte for byte as it was:\n%s", when, b, err, seeded)
				}
			}
			pairWithDemo(t, d)
			if st := d.cli(t, cliInput{}, "status").doc(t); st["connected"] != true || st["origin"] != site {
				t.Errorf("status through %s: %v, want the demo's bridge, connected to %s", dir, st, site)
			}
			same("while the demo runs")
			if stop == "ctrl-c" {
				if code := d.stop(t); code != 0 {
					t.Errorf("demo exit after Ctrl-C: %d, want 0; stderr:\n%s", code, d.stderr)
				}
				same("after Ctrl-C")
				if left, _ := filepath.Glob(filepath.Join(dir, "demo-*")); len(left) > 0 {
					t.Errorf("the demo's pairing folder is left after Ctrl-C: %v", left)
				}
				return
			}
			d.kill(t)
			same("after SIGKILL")
			killed, _ := filepath.Glob(filepath.Join(dir, "demo-*"))
			if len(killed) != 1 {
				t.Fatalf("after SIGKILL the config dir holds %v, want the killed demo's one pairing folder", killed)
			}
			d2 := startDemo(t, freePort(t), dir, env...)
			if d2.site() == site {
				t.Errorf("the restarted demo's page is at %s, the killed one's origin; want one of its own", site)
			}
			same("once a demo started again after SIGKILL")
			// The later demo removed the killed one's folder (its pid is
			// dead), and keeps its own.
			if left, _ := filepath.Glob(filepath.Join(dir, "demo-*")); len(left) != 1 || left[0] == killed[0] {
				t.Errorf("with a second demo running the config dir holds %v, want only its folder (the killed demo's %s removed)", left, killed[0])
			}
			d2.kill(t)
			same("after a second SIGKILL")
		})
	}
}

// Issue 36: the first load's token redeemed by one browser (a link
// preview, a headless screenshot) locks no other browser out. Each load of
// the page gets a token of its own; a browser with nothing stored attaches
// once the first has gone, and `status` shows it. The old demo handed
// every load its one token, spent by then, and refused every other
// browser for as long as it ran.
func TestDemo_EveryBrowserAttaches(t *testing.T) {
	d := startDemo(t, freePort(t), filepath.Join(t.TempDir(), "cfg"))
	preview, _ := pairWithDemo(t, d)
	preview.conn.Close()
	tok := demoToken(t, d)
	// The bridge frees its slot once it has read the preview's close; a
	// tab that comes sooner is told busy and tries again, as the page does.
	deadline := time.Now().Add(guard)
	for {
		p := openPageFrom(t, d.port, d.site(), false)
		f := p.handshake(map[string]any{"token": tok})
		if f.str("hello") != "" {
			wantHello(t, f, d.port)
			if f.str("pairingSecret") == "" {
				t.Errorf("hello %s: no pairing secret for the second browser", f.raw)
			}
			break
		}
		p.conn.Close()
		if f.str("error") != "busy" || time.Now().After(deadline) {
			t.Fatalf("the second browser's handshake: %s; want a hello (the preview spent only its own token)", f.raw)
		}
	}
	if st := d.cli(t, cliInput{}, "status").doc(t); st["connected"] != true {
		t.Errorf("status after the second browser attached: %v, want connected", st)
	}
}

// THREAT_MODEL T17: a demo killed with SIGKILL leaves no pairing in the
// config dir, so a production bridge on it refuses a tab of the demo's
// origin that presents the secret the demo gave it, at the upgrade.
func TestT17_StaleDemoPairingNotAdmitted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	d := startDemo(t, freePort(t), dir)
	site := d.site()
	_, secret := pairWithDemo(t, d)
	d.kill(t)
	if raw, err := os.ReadFile(filepath.Join(dir, "pairing.json")); err == nil && bytes.Contains(raw, []byte(secret)) {
		t.Errorf("pairing.json after SIGKILL holds the demo tab's secret: %s", raw)
	}

	b := startBridge(t, bridgeOpts{origin: testOrigin, configDir: dir, token: newToken()})
	conn, resp, err := dialWS(b.port, originHeader(site))
	if err == nil {
		conn.Close()
		t.Fatalf("a tab of %s was let in to a bridge for %s after the demo was killed", site, testOrigin)
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a tab of %s: got %v, want HTTP 403 at the upgrade", site, err)
	}
	// The 403 goes out before the log line is written: await it.
	if !b.awaitLine("refused") {
		t.Errorf("the bridge's stderr does not record the refusal:\n%s", b.stderr)
	}
}

// Issue 28: a pairing an older demo stored in the config dir's
// pairing.json (demoSecrets, which this demo no longer writes there) is
// the demo's. A production bridge on that config dir refuses a tab of the
// demo's origin that presents it, and tells the agent why without the
// secret: at the upgrade when it serves another site (reported by
// connection_status and status), at the handshake when it was started for
// the demo's origin itself.
func TestT17_DemoPairingIsTheDemos(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	site := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	secret := newSecret()
	seedPairing(t, dir, map[string]any{site: map[string]any{"demoSecrets": []string{secret}, "createdAt": "2026-11-02T09:14:55.120Z", "protocol": 1, "usedTokens": []string{}}})

	t.Run("another site served", func(t *testing.T) {
		b := startBridge(t, bridgeOpts{configDir: dir, mcp: true, token: newToken()})
		b.rpc.initialize()
		conn, resp, err := dialWS(b.port, originHeader(site))
		if err == nil {
			conn.Close()
			t.Fatalf("a tab of %s was let in by the demo's pairing", site)
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("a tab of %s: got %v, want HTTP 403 at the upgrade", site, err)
		}
		text := b.rpc.toolCall("connection_status", map[string]any{}).text()
		if !strings.Contains(text, "demo_pairing") || !strings.Contains(text, "stitchslop demo") || strings.Contains(text, secret) {
			t.Errorf("connection_status = %s; want a demo_pairing refusal saying the demo made it, without the secret", text)
		}
		if r := b.cli("status"); !strings.Contains(r.stdout, "demo_pairing") || strings.Contains(r.stdout, secret) {
			t.Errorf("status = %s; want a demo_pairing refusal, without the secret", r.stdout)
		}
	})
	t.Run("the demo's site served", func(t *testing.T) {
		b := startBridge(t, bridgeOpts{origin: site, configDir: dir, mcp: true, token: newToken()})
		b.rpc.initialize()
		p := openPageFrom(t, b.port, site, false)
		if f := p.handshake(map[string]any{"secret": secret}); f.str("hello") != "" {
			t.Fatalf("a tab of %s got %s by the demo's secret, want it refused", site, f.raw)
		}
		text := b.rpc.toolCall("connection_status", map[string]any{}).text()
		if !strings.Contains(text, "demo_pairing") || strings.Contains(text, secret) {
			t.Errorf("connection_status = %s; want a demo_pairing refusal, without the secret", text)
		}
	})
}

// A bridge started for one site that admits a tab of another by its stored
// pairing (the reference bridge's rule, kept) says so in plain words: on
// stderr, and to the agent in wait_for_connection and connection_status,
// naming the loopback risk for a loopback site.
func TestT17_OtherSiteServedIsTold(t *testing.T) {
	t.Parallel()
	const other = "http://localhost:5173"
	dir := filepath.Join(t.TempDir(), "cfg")
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(newSecret()), other: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true})
	b.rpc.initialize()
	p := openPageFrom(t, b.port, other, false)
	p.serve(defaultHandler)
	wantHello(t, p.handshake(map[string]any{"secret": secret}), b.port)
	p.mustSend(map[string]any{"tools": defaultTools})
	b.awaitConnected(true)
	told := "was started for " + testOrigin + " but now serves " + other
	for _, tool := range []string{"wait_for_connection", "connection_status"} {
		text := b.rpc.toolCall(tool, map[string]any{}).text()
		if !strings.Contains(text, told) || !strings.Contains(text, "any local program") {
			t.Errorf("%s = %s; want it to say %q and that any local program can serve that port", tool, text, told)
		}
	}
	if !b.awaitLine("warning: this bridge " + told) {
		t.Errorf("stderr has no warning that another site is served:\n%s", b.stderr)
	}
}
