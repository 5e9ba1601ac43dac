package e2e

// THREAT_MODEL T17: a demo killed before its exit leaves its pairing, whose
// secret a browser keeps for a loopback origin that any local user can
// serve once the demo is gone. The next demo removes it at its start, so a
// production bridge on the same config dir no longer admits that origin.

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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

// pairWithDemo pairs a tab of the demo's site with the token its page
// serves, and returns the secret the hello gives the tab.
func pairWithDemo(t *testing.T, d *demoProc) string {
	t.Helper()
	resp, err := http.Get(d.pageURL + "demo/token")
	if err != nil {
		t.Fatal(err)
	}
	var tok struct{ Token string }
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || tok.Token == "" {
		t.Fatalf("the demo's token: %v %+v", err, tok)
	}
	p := openPageFrom(t, d.port, d.site(), false)
	hello := p.handshake(map[string]any{"token": tok.Token})
	wantHello(t, hello, d.port)
	secret := hello.str("pairingSecret")
	if secret == "" {
		t.Fatalf("hello %s: no pairing secret", hello.raw)
	}
	return secret
}

func TestT17_StaleDemoPairingNotAdmitted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	// The page on a port of the test's own instead of 8780 (which a demo
	// on this machine may hold), the same for both runs, so the restarted
	// demo has the same origin.
	pagePort := strconv.Itoa(freePort(t))
	pageEnv := "STITCHSLOP_TEST_DEMO_PAGE_PORT=" + pagePort
	d := startDemo(t, freePort(t), dir, pageEnv)
	site := d.site()
	if site != "http://127.0.0.1:"+pagePort {
		t.Fatalf("the demo's page is at %s, want port %s", site, pagePort)
	}
	pairWithDemo(t, d)
	d.kill(t)
	if e := readPairing(t, dir, site); len(e.DemoSecrets) == 0 {
		t.Fatalf("pairing.json after SIGKILL holds no demo secret for %s: the test proves nothing", site)
	}

	// Restarted, and killed again: only its start can have removed it.
	d2 := startDemo(t, freePort(t), dir, pageEnv)
	if d2.site() != site {
		t.Fatalf("the restarted demo's page is at %s, not %s", d2.site(), site)
	}
	d2.kill(t)
	if e := readPairing(t, dir, site); e.Secret != "" || len(e.Secrets) > 0 || len(e.DemoSecrets) > 0 {
		t.Errorf("pairing.json after a restart still holds a secret for %s", site)
	}

	// A production bridge on the same config dir, and a tab of the demo's
	// origin with the old secret: refused at the upgrade.
	b := startBridge(t, bridgeOpts{origin: testOrigin, configDir: dir, token: newToken()})
	conn, resp, err := dialWS(b.port, originHeader(site))
	if err == nil {
		conn.Close()
		t.Fatalf("a tab of %s was let in to a bridge for %s after the demo restarted", site, testOrigin)
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a tab of %s: got %v, want HTTP 403 at the upgrade", site, err)
	}
	// The 403 goes out before the log line is written: await it.
	if !b.awaitLine("refused") {
		t.Errorf("the bridge's stderr does not record the refusal:\n%s", b.stderr)
	}
}

// demoPairedThenKilled runs the demo on dir, pairs its page with the
// demo's token, and kills the demo with SIGKILL, so that it cannot clean
// up. It returns the demo's site and the secret its tab keeps.
func demoPairedThenKilled(t *testing.T, dir string) (site, secret string) {
	t.Helper()
	d := startDemo(t, freePort(t), dir)
	site = d.site()
	secret = pairWithDemo(t, d)
	d.kill(t)
	return site, secret
}

// Issue 28: a pairing the demo made is the demo's. After the demo is
// killed with SIGKILL, and without a demo started again, a production
// bridge on the same config dir refuses a tab of the demo's origin that
// presents the demo's secret, and tells the agent why without the secret:
// at the upgrade when it serves another site (reported by
// connection_status and status), at the handshake when it was started for
// the demo's origin itself. pairing.json keeps the demo's secret where the
// Stitch Slop team's bridge, which reads secret, does not take it.
func TestT17_DemoPairingIsTheDemos(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	site, secret := demoPairedThenKilled(t, dir)
	if e := readPairing(t, dir, site); e.Secret != "" || len(e.Secrets) > 0 || len(e.DemoSecrets) == 0 {
		t.Errorf("pairing.json for %s: %+v; want the demo's secret in demoSecrets alone", site, e)
	}

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
		if !strings.Contains(text, "demo_pairing") || !strings.Contains(text, "stitchslop-bridge demo") || strings.Contains(text, secret) {
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
