package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// scanPorts returns four loopback ports that were free a moment ago and
// the environment that makes them the bridge's default ports
// (STITCHSLOP_TEST_PORTS, honoured by the test build only): the tests of
// the port scan run on ports they chose, never on the real 8787-8790,
// which a bridge on this machine may hold.
func scanPorts(t *testing.T) ([]int, []string) {
	t.Helper()
	ports := make([]int, 4)
	words := make([]string, 4)
	var held []net.Listener
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("free port: %v", err)
		}
		held = append(held, l) // held until all four are picked, so they differ
		ports[i] = l.Addr().(*net.TCPAddr).Port
		words[i] = strconv.Itoa(ports[i])
	}
	for _, l := range held {
		l.Close()
	}
	return ports, []string{"STITCHSLOP_TEST_PORTS=" + strings.Join(words, ",")}
}

// §2.1: stderr says the port, the origin and the pid; stdout stays empty.
func TestSpec2_1_ListeningLine(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	line := b.awaitListening()
	if !strings.Contains(line, fmt.Sprintf("listening on 127.0.0.1:%d", b.port)) {
		t.Errorf("listening line %q: got no port, want %d", line, b.port)
	}
	if !strings.Contains(line, b.origin) {
		t.Errorf("listening line %q: got no origin, want %q", line, b.origin)
	}
	if !regexp.MustCompile(`pid ` + strconv.Itoa(b.pid()) + `\b`).MatchString(line) {
		t.Errorf("listening line %q: got no pid, want \"pid %d\"", line, b.pid())
	}
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Errorf("exit after SIGTERM: got %d, want 0", code)
	}
	if out := b.stdout.String(); out != "" {
		t.Errorf("stdout of a bridge with no MCP client: got %q, want nothing", out)
	}
}

// §2.1: bind 127.0.0.1 only, never a public interface.
func TestSpec2_1_LoopbackOnly(t *testing.T) {
	t.Parallel()
	var ip net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("no non-loopback IPv4 address on this machine")
	}
	b := startBridge(t, bridgeOpts{token: newToken()})
	c, err := net.DialTimeout("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(b.port)), 2*time.Second)
	if err == nil {
		c.Close()
		t.Errorf("dial %s:%d: got a connection, want refused (bind 127.0.0.1 only)", ip, b.port)
	}
}

// §2.1: take the first free port of the default list (8787-8790; here
// four the test chose, as the test build allows), in that order.
func TestSpec2_1_PortScanFirstFree(t *testing.T) {
	t.Parallel()
	cases := []struct {
		held []int // indices into the list
		want int
	}{
		{nil, 0},
		{[]int{0}, 1},
		{[]int{0, 1}, 2},
		{[]int{0, 1, 2}, 3},
		{[]int{1}, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("held %v", c.held), func(t *testing.T) {
			t.Parallel()
			ports, env := scanPorts(t)
			for _, i := range c.held {
				holdPort(t, ports[i])
			}
			dir := filepath.Join(t.TempDir(), "cfg")
			b := startBridge(t, bridgeOpts{port: -1, configDir: dir, token: newToken(), env: env})
			if b.port != ports[c.want] {
				t.Errorf("bound port: got %d, want %d (index %d of %v)", b.port, ports[c.want], c.want, ports)
			}
			if s := b.session(); s.Port != ports[c.want] {
				t.Errorf("session file port: got %d, want %d (the port actually bound)", s.Port, ports[c.want])
			}
			b.signal(syscall.SIGTERM)
			b.awaitExit()
		})
	}
}

// §2.1: all four ports busy: exit 2 and say so.
func TestSpec2_1_AllPortsBusyExit2(t *testing.T) {
	t.Parallel()
	ports, env := scanPorts(t)
	for _, p := range ports {
		holdPort(t, p)
	}
	b := startBridge(t, bridgeOpts{port: -1, token: newToken(), expectExit: true, env: env})
	if code := b.awaitExit(); code != 2 {
		t.Errorf("exit with %v held: got %d, want 2; stderr: %s", ports, code, b.stderr)
	}
	if low := strings.ToLower(b.stderr.String()); !strings.Contains(low, strconv.Itoa(ports[0])) || !strings.Contains(low, "address already in use") {
		t.Errorf("stderr %q: got no word of the busy ports, want them named", b.stderr)
	}
}

// §2.1: --port pins one port; busy means exit 2.
func TestSpec2_1_PinnedPortBusyExit2(t *testing.T) {
	t.Parallel()
	port := heldPort(t)
	b := startBridge(t, bridgeOpts{port: port, token: newToken(), expectExit: true})
	if code := b.awaitExit(); code != 2 {
		t.Errorf("exit with --port %d held: got %d, want 2; stderr: %s", port, code, b.stderr)
	}
	if exists(sessionPath(b.configDir, port)) {
		t.Errorf("session file written for a port that was never bound")
	}
}

// §2.2: the Origin check on the upgrade.
func TestSpec2_2_OriginCheck(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	cases := []struct {
		origin string
		want   int
	}{
		{testOrigin, http.StatusSwitchingProtocols},
		{"HTTPS://WWW.STITCHSLOP.COM", http.StatusSwitchingProtocols},
		{testOrigin + "/", http.StatusSwitchingProtocols},
		{"", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"https://evil.example", http.StatusForbidden},
		{"http://www.stitchslop.com", http.StatusForbidden},
		{"https://www.stitchslop.com:8443", http.StatusForbidden},
		{"https://www.stitchslop.com.evil.example", http.StatusForbidden},
		{"https://stitchslop.com", http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q", c.origin), func(t *testing.T) {
			conn, resp, err := dialWS(b.port, originHeader(c.origin))
			got := 0
			if resp != nil {
				got = resp.StatusCode
			}
			if conn != nil {
				conn.Close()
			}
			if got != c.want {
				t.Errorf("upgrade with Origin %q: got HTTP %d (%v), want %d", c.origin, got, err, c.want)
			}
		})
	}
	b.mustRun()
}

// §2.2: a refused origin is logged.
func TestSpec2_2_OriginMismatchLogged(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	from := b.stderr.lines.len()
	_, resp, _ := dialWS(b.port, originHeader("https://evil.example"))
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("upgrade from a foreign origin: got %v, want HTTP 403", resp)
	}
	if _, _, ok := b.stderr.lines.await(from, guard, func(l string) bool {
		return strings.Contains(strings.ToLower(l), "origin")
	}); !ok {
		t.Errorf("stderr after a 403: got no line about the origin, want one; stderr:\n%s", b.stderr)
	}
}

// §2.2, §4.2: a request that is not an upgrade, to a path that is no route,
// answers 426.
func TestSpec2_2_NotUpgrade426(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	for _, path := range []string{"/", "/favicon.ico", "/status/extra", "/agent-connector.mjs"} {
		status, _ := ctlDo(t, b.port, "GET", path, nil, nil, "")
		if status != http.StatusUpgradeRequired {
			t.Errorf("GET %s: got HTTP %d, want 426", path, status)
		}
	}
}

// §2.2 (house rule): a Host header other than a loopback name with the
// bridge's port is refused with 403, on the upgrade and on the control plane.
func TestSpec2_2_HostHeader(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	key := b.session().Key
	p := strconv.Itoa(b.port)
	cases := []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:" + p, true},
		{"localhost:" + p, true},
		{"[::1]:" + p, true},
		{"evil.example:" + p, false},
		{"evil.example", false},
		{"localhost", false},
		{"127.0.0.1:1", false},
		{"127.0.0.2:" + p, false},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			wantCtl, wantWS := http.StatusOK, http.StatusSwitchingProtocols
			if !c.ok {
				wantCtl, wantWS = http.StatusForbidden, http.StatusForbidden
			}
			if got, body := ctlDo(t, b.port, "GET", "/status", nil, keyHeader(key), c.host); got != wantCtl {
				t.Errorf("GET /status Host %q: got HTTP %d %s, want %d", c.host, got, body, wantCtl)
			}
			h := originHeader(testOrigin)
			h.Set("Host", c.host)
			conn, resp, err := dialWS(b.port, h)
			got := 0
			if resp != nil {
				got = resp.StatusCode
			}
			if conn != nil {
				conn.Close()
			}
			if got != wantWS {
				t.Errorf("upgrade Host %q: got HTTP %d (%v), want %d", c.host, got, err, wantWS)
			}
		})
	}
}

// §2.3: refusals, with credentials of very different lengths, never crash
// the bridge; a good credential works afterwards.
func TestSpec2_3_Refusals(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	secret, staging := newSecret(), newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret), "https://staging.stitchslop.com": pairingFor(staging)})
	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: dir, token: tok})
	cases := []struct {
		name  string
		first any
		want  string
	}{
		{"wrong token", map[string]any{"token": newToken()}, "bad_credential"},
		{"wrong secret", map[string]any{"secret": newSecret()}, "bad_credential"},
		{"another origin's secret", map[string]any{"secret": staging}, "bad_credential"},
		{"one-char secret", map[string]any{"secret": "x"}, "bad_credential"},
		{"500-char secret", map[string]any{"secret": strings.Repeat("A", 500)}, "bad_credential"},
		{"empty secret", map[string]any{"secret": ""}, "bad_credential"},
		{"secret prefix", map[string]any{"secret": secret[:len(secret)-1]}, "bad_credential"},
		{"secret plus one", map[string]any{"secret": secret + "A"}, "bad_credential"},
		{"one-char token", map[string]any{"token": "t"}, "bad_credential"},
		{"500-char token", map[string]any{"token": "tok_" + strings.Repeat("a", 496)}, "bad_credential"},
		{"token prefix", map[string]any{"token": tok[:len(tok)-1]}, "bad_credential"},
		{"both wrong", map[string]any{"token": newToken(), "secret": newSecret()}, "bad_credential"},
		{"no credential", map[string]any{"hello": "page"}, "bad_credential"},
		{"non-string secret", map[string]any{"secret": 12345}, "bad_credential"},
		{"not JSON", "this is not json", "bad_json"},
		{"truncated JSON", `{"secret":"`, "bad_json"},
		// One rule for a name given twice (issue 19): refused, never read
		// first-wins by one reader and last-wins by another.
		{"secret given twice", `{"secret":"` + newSecret() + `","secret":"` + secret + `"}`, "bad_json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := openPage(t, b.port, false)
			wantRefusal(t, p, p.handshake(c.first), c.want)
		})
	}
	b.mustRun()
	p := openPage(t, b.port, false)
	hello := p.handshake(map[string]any{"secret": secret})
	wantHello(t, hello, b.port)
	if e := readPairing(t, dir, testOrigin); len(e.UsedTokens) != 0 {
		t.Errorf("usedTokens after refusals: got %v, want none spent", e.UsedTokens)
	}
}

// §2.3, §2.4: a token handshake mints a pairing secret; a secret handshake
// does not.
func TestSpec2_3_TokenHandshakeMintsSecret(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	_, hello := connectPage(t, b, map[string]any{"token": tok})
	s := hello.str("pairingSecret")
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{43,}$`).MatchString(s) {
		t.Errorf("pairingSecret %q: got %d chars, want >= 43 URL-safe chars (>= 32 bytes)", s, len(s))
	}
}

// §2.3: both credentials present.
func TestSpec2_3_BothCredentials(t *testing.T) {
	t.Parallel()
	t.Run("both verify: secret handshake, token kept", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "cfg")
		secret := newSecret()
		seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
		tok := newToken()
		b := startBridge(t, bridgeOpts{configDir: dir, token: tok})
		p, hello := connectPage(t, b, map[string]any{"secret": secret, "token": tok})
		if _, ok := hello.m["pairingSecret"]; ok {
			t.Errorf("hello %s: got pairingSecret, want none when both verify", hello.raw)
		}
		if e := readPairing(t, dir, testOrigin); contains(e.UsedTokens, fingerprint(tok)) || len(e.Secrets) != 1 {
			t.Errorf("pairing after both verified: got usedTokens %v secrets %v, want the token unspent and no new secret", e.UsedTokens, e.Secrets)
		}
		p.conn.Close()
		b.awaitConnected(false)
		_, hello = connectPage(t, b, map[string]any{"token": tok})
		if hello.str("pairingSecret") == "" {
			t.Errorf("hello %s: the token kept by the secret handshake got no pairingSecret, want one", hello.raw)
		}
	})
	t.Run("secret wrong, token right: token handshake", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "cfg")
		old := newSecret()
		seedPairing(t, dir, map[string]any{testOrigin: pairingFor(old)})
		tok := newToken()
		b := startBridge(t, bridgeOpts{configDir: dir, token: tok})
		_, hello := connectPage(t, b, map[string]any{"secret": newSecret(), "token": tok})
		s := hello.str("pairingSecret")
		if s == "" {
			t.Fatalf("hello %s: got no pairingSecret, want one", hello.raw)
		}
		e := spent(t, dir, testOrigin, tok)
		if e.Secret != s || !contains(e.Secrets, s) || !contains(e.Secrets, old) {
			t.Errorf("pairing: got secret %q secrets %v, want newest %q and the old one kept", e.Secret, e.Secrets, s)
		}
	})
	t.Run("secret right, token spent: heals", func(t *testing.T) {
		t.Parallel()
		tok := newToken()
		b := startBridge(t, bridgeOpts{token: tok})
		p, hello := connectPage(t, b, map[string]any{"token": tok})
		s := hello.str("pairingSecret")
		p.conn.Close()
		b.awaitConnected(false)
		_, hello = connectPage(t, b, map[string]any{"secret": s, "token": tok})
		if _, ok := hello.m["pairingSecret"]; ok {
			t.Errorf("hello %s: got pairingSecret, want none", hello.raw)
		}
	})
}

// §2.3 (reference notes): before authentication a frame may be at most
// 4096 bytes, and the page has `auth` to send it.
func TestSpec2_3_PreAuthLimits(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, timings: "auth=300ms"})
	t.Run("frame over 4096 bytes closes", func(t *testing.T) {
		p := openPage(t, b.port, false)
		p.mustSend(map[string]any{"token": tok, "pad": strings.Repeat("x", 5000)})
		p.awaitClosed()
		for _, f := range p.frames.all() {
			if _, ok := f.m["hello"]; ok {
				t.Errorf("oversized first frame: got %s, want no hello", f.raw)
			}
		}
	})
	t.Run("frame under 4096 bytes is read", func(t *testing.T) {
		p := openPage(t, b.port, false)
		wantRefusal(t, p, p.handshake(map[string]any{"token": "tok_" + strings.Repeat("a", 3000)}), "bad_credential")
	})
	t.Run("no first frame within auth closes", func(t *testing.T) {
		p := openPage(t, b.port, false)
		p.awaitClosed()
	})
	b.mustRun()
	_, hello := connectPage(t, b, map[string]any{"token": tok})
	if hello.str("pairingSecret") == "" {
		t.Errorf("hello after pre-auth refusals %s: got no pairingSecret, want one (token unspent)", hello.raw)
	}
}

// §2.4: pairing.json layout and modes.
func TestSpec2_4_PairingFile(t *testing.T) {
	t.Parallel()
	if got, want := fingerprint("tok_0123456789ab"), "fa57a35f9a62212f9ee3e1213b7cd69c"; got != want {
		t.Fatalf("fingerprint(%q) = %s, want %s", "tok_0123456789ab", got, want)
	}
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	_, hello := connectPage(t, b, map[string]any{"token": tok})
	s := hello.str("pairingSecret")
	spent(t, b.configDir, testOrigin, tok)
	path := filepath.Join(b.configDir, "pairing.json")
	if m := fileMode(t, path); m != 0o600 {
		t.Errorf("pairing.json mode: got %o, want 600", m)
	}
	if m := fileMode(t, b.configDir); m != 0o700 {
		t.Errorf("config dir mode: got %o, want 700", m)
	}
	e := readPairing(t, b.configDir, testOrigin)
	if e.Secret != s || !slices.Equal(e.Secrets, []string{s}) {
		t.Errorf("pairing entry: got secret %q secrets %v, want %q in both", e.Secret, e.Secrets, s)
	}
	if e.Protocol != 1 {
		t.Errorf("pairing protocol: got %d, want 1", e.Protocol)
	}
	if _, err := time.Parse(time.RFC3339, e.CreatedAt); err != nil {
		t.Errorf("createdAt %q: got %v, want an ISO 8601 time", e.CreatedAt, err)
	}
	if !slices.Equal(e.UsedTokens, []string{fingerprint(tok)}) {
		t.Errorf("usedTokens: got %v, want [%s]", e.UsedTokens, fingerprint(tok))
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), tok) || strings.Contains(string(data), strings.TrimPrefix(tok, "tok_")) {
		t.Errorf("pairing.json holds the token in the clear: %s", data)
	}
}

// §2.4: pairing.json is keyed by the normalised origin.
func TestSpec2_4_OriginKeyNormalised(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{origin: "HTTPS://WWW.StitchSlop.COM/", token: tok})
	connectPage(t, b, map[string]any{"token": tok})
	top := readPairingRaw(t, b.configDir)
	if _, ok := top[testOrigin]; !ok || len(top) != 1 {
		t.Errorf("pairing.json keys: got %v, want only %q", slices.Collect(maps.Keys(top)), testOrigin)
	}
}

// §2.4: the token is one-time: refused on the same bridge, after a restart,
// and a pairing works after the restart without any token.
func TestSpec2_4_TokenSpent(t *testing.T) {
	t.Parallel()
	tok := newToken()
	dir := filepath.Join(t.TempDir(), "cfg")
	port := freePort(t)
	b := startBridge(t, bridgeOpts{configDir: dir, port: port, token: tok})
	p, hello := connectPage(t, b, map[string]any{"token": tok})
	s := hello.str("pairingSecret")
	spent(t, dir, testOrigin, tok)
	p.conn.Close()
	b.awaitConnected(false)
	q := openPage(t, b.port, false)
	wantRefusal(t, q, q.handshake(map[string]any{"token": tok}), "bad_credential")
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit after SIGTERM: got %d, want 0", code)
	}

	t.Run("restart with the spent token", func(t *testing.T) {
		b := startBridge(t, bridgeOpts{configDir: dir, port: port, token: tok})
		q := openPage(t, b.port, false)
		wantRefusal(t, q, q.handshake(map[string]any{"token": tok}), "bad_credential")
		connectPage(t, b, map[string]any{"secret": s})
		b.signal(syscall.SIGTERM)
		b.awaitExit()
	})
	t.Run("restart with no token", func(t *testing.T) {
		b := startBridge(t, bridgeOpts{configDir: dir, port: port})
		_, hello := connectPage(t, b, map[string]any{"secret": s})
		if _, ok := hello.m["pairingSecret"]; ok {
			t.Errorf("hello %s: got pairingSecret, want none", hello.raw)
		}
	})
}

// §2.4 (reference notes): fields a bridge does not know survive its writes;
// earlier secrets stay valid.
func TestSpec2_4_UnknownFieldsSurvive(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	old := newSecret()
	entry := pairingFor(old)
	entry["futureField"] = map[string]any{"keep": "me"}
	other := pairingFor(newSecret())
	seedPairing(t, dir, map[string]any{
		testOrigin:                       entry,
		"https://staging.stitchslop.com": other,
		"x-other-bridge":                 map[string]any{"version": 7},
	})
	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: dir, token: tok})
	p, hello := connectPage(t, b, map[string]any{"token": tok})
	s := hello.str("pairingSecret")
	spent(t, dir, testOrigin, tok)
	top := readPairingRaw(t, dir)
	var gotTop map[string]any
	if err := json.Unmarshal(top["x-other-bridge"], &gotTop); err != nil || gotTop["version"] != float64(7) || len(gotTop) != 1 {
		t.Errorf("top-level unknown field: got %s, want {\"version\":7}", top["x-other-bridge"])
	}
	var gotOther map[string]any
	if err := json.Unmarshal(top["https://staging.stitchslop.com"], &gotOther); err != nil || gotOther["secret"] != other["secret"] {
		t.Errorf("other origin's entry: got %s, want it untouched", top["https://staging.stitchslop.com"])
	}
	var mine map[string]any
	json.Unmarshal(top[testOrigin], &mine)
	if fmt.Sprint(mine["futureField"]) != fmt.Sprint(map[string]any{"keep": "me"}) {
		t.Errorf("unknown entry field: got %v, want it kept", mine["futureField"])
	}
	e := readPairing(t, dir, testOrigin)
	if e.Secret != s || !contains(e.Secrets, s) || !contains(e.Secrets, old) {
		t.Errorf("secrets: got secret %q secrets %v, want newest %q first-class and %q kept", e.Secret, e.Secrets, s, old)
	}
	p.conn.Close()
	b.awaitConnected(false)
	connectPage(t, b, map[string]any{"secret": old})
}

// §2.4, §4.1: two bridges on one config dir share the ledger and the
// pairings, and keep one session file each.
func TestSpec2_4_SharedConfigDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	t1, t2 := newToken(), newToken()
	a := startBridge(t, bridgeOpts{configDir: dir, token: t1})
	b := startBridge(t, bridgeOpts{configDir: dir, token: t1})
	c := startBridge(t, bridgeOpts{configDir: dir, token: t2})

	_, hello := connectPage(t, a, map[string]any{"token": t1})
	s1 := hello.str("pairingSecret")
	spent(t, dir, testOrigin, t1)
	q := openPage(t, b.port, false)
	wantRefusal(t, q, q.handshake(map[string]any{"token": t1}), "bad_credential")
	connectPage(t, b, map[string]any{"secret": s1})

	_, hello = connectPage(t, c, map[string]any{"token": t2})
	s2 := hello.str("pairingSecret")
	e := spent(t, dir, testOrigin, t2)
	if e.Secret != s2 || !contains(e.Secrets, s1) || !contains(e.Secrets, s2) {
		t.Errorf("pairing after two bridges wrote: got secret %q secrets %v, want %q newest and %q kept", e.Secret, e.Secrets, s2, s1)
	}
	if !contains(e.UsedTokens, fingerprint(t1)) || !contains(e.UsedTokens, fingerprint(t2)) {
		t.Errorf("usedTokens: got %v, want both %s and %s", e.UsedTokens, fingerprint(t1), fingerprint(t2))
	}
	for _, br := range []*bridge{a, b, c} {
		s := br.session()
		if s.Port != br.port || s.PID != br.pid() {
			t.Errorf("session-%d.json: got port %d pid %d, want %d and %d", br.port, s.Port, s.PID, br.port, br.pid())
		}
	}
}

// §2.6: a second tab while the first is reachable is refused with busy,
// before its token is spent; the first keeps the connection.
func TestSpec2_6_Busy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: dir, token: tok, timings: "ping=50ms,stale=300ms,dead=5s"})
	first, _ := connectPage(t, b, map[string]any{"secret": secret})
	first.awaitPings(12) // the incumbent answers pings for well over `stale`

	for _, cred := range []map[string]any{{"secret": secret}, {"token": tok}} {
		p := openPage(t, b.port, false)
		f := p.handshake(cred)
		wantRefusal(t, p, f, "busy")
		if f.m["busy"] != true {
			t.Errorf("busy refusal %s: got busy %v, want true", f.raw, f.m["busy"])
		}
	}
	if first.closed() {
		t.Fatalf("first tab's socket closed by a refused second tab")
	}
	for _, f := range first.frames.all() {
		if _, ok := f.m["displaced"]; ok {
			t.Errorf("first tab got %s, want no displaced", f.raw)
		}
	}
	_, env := b.ctl("POST", "/call", map[string]any{"command": "scene.describe", "args": map[string]any{}})
	if env["ok"] != true || env["shapes"] != float64(3) {
		t.Errorf("/call after busy: got %v, want the first tab's answer", env)
	}
	if e := readPairing(t, dir, testOrigin); contains(e.UsedTokens, fingerprint(tok)) {
		t.Errorf("usedTokens after a busy refusal: got %v, want the token unspent", e.UsedTokens)
	}
}

// §2.6: an incumbent silent past `stale` is taken over: it gets displaced,
// the new tab is served.
func TestSpec2_6_TakeoverStale(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir, timings: "ping=50ms,stale=400ms,dead=30s"})
	first := openPage(t, b.port, true)
	wantHello(t, first.handshake(map[string]any{"secret": secret}), b.port)
	first.mustSend(map[string]any{"tools": defaultTools})

	p := openPage(t, b.port, false)
	wantRefusal(t, p, p.handshake(map[string]any{"secret": secret}), "busy")

	var second *page
	deadline := time.Now().Add(guard)
	for i := 0; second == nil; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("second tab still refused busy %v after the first went silent (stale=400ms), want a takeover", guard)
		}
		first.awaitPings(i + 1) // one attempt per ping: an event, not a sleep
		p := openPage(t, b.port, false)
		p.serve(func(string, map[string]any) map[string]any { return map[string]any{"ok": true, "tab": "second"} })
		f := p.handshake(map[string]any{"secret": secret})
		if f.str("hello") != "" {
			second = p
			break
		}
		wantRefusal(t, p, f, "busy")
	}
	f, _ := first.frameAt(0, func(f frame) bool { return f.m["displaced"] != nil })
	if f.m["displaced"] != true {
		t.Errorf("displaced frame %s: got displaced %v, want true", f.raw, f.m["displaced"])
	}
	if _, ok := f.m["message"].(string); !ok {
		t.Errorf("displaced frame %s: got no message, want one", f.raw)
	}
	_, env := b.ctl("POST", "/call", map[string]any{"command": "scene.describe", "args": map[string]any{}})
	if env["tab"] != "second" {
		t.Errorf("/call after takeover: got %v, want the second tab's answer", env)
	}
}

// §2.7: no page ever authenticated within `idle`: exit 0 with a message.
func TestSpec2_7_IdleExit(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken(), timings: "idle=300ms"})
	from := b.stderr.lines.len()
	if code := b.awaitExit(); code != 0 {
		t.Errorf("idle exit: got %d, want 0; stderr: %s", code, b.stderr)
	}
	if b.stderr.lines.len() <= from {
		t.Errorf("idle exit: got no message on stderr, want one")
	}
	if exists(sessionPath(b.configDir, b.port)) {
		t.Errorf("session file left after a clean idle exit")
	}
}

// §2.7: once a page has connected, never idle-exit.
func TestSpec2_7_NoIdleExitOncePaged(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, timings: "idle=1s,ping=100ms"})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.awaitPings(20) // two `idle` periods
	b.mustRun()
}

// §2.7: an MCP initialize cancels the idle exit.
func TestSpec2_7_InitializeCancelsIdle(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken(), timings: "idle=1s", mcp: true})
	b.rpc.initialize()
	r := b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 2.2})
	if r.IsError {
		t.Errorf("wait_for_connection timeout: got isError, want a normal result")
	}
	b.mustRun()
	b.rpc.call("ping", nil)
}

// §2.8: stdin closing after initialize: exit 0, session file removed.
func TestSpec2_8_StdinEOFAfterInitialize(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken(), mcp: true})
	b.rpc.initialize()
	path := sessionPath(b.configDir, b.port)
	awaitFile(t, path)
	b.closeStdin()
	if code := b.awaitExit(); code != 0 {
		t.Errorf("exit after stdin EOF: got %d, want 0; stderr: %s", code, b.stderr)
	}
	if exists(path) {
		t.Errorf("session file left after a clean exit")
	}
}

// §2.8: stdin closing before initialize (a backgrounded bridge on /dev/null)
// does not end the bridge.
func TestSpec2_8_StdinEOFBeforeInitialize(t *testing.T) {
	t.Parallel()
	for _, viaPipe := range []bool{false, true} {
		t.Run(fmt.Sprintf("pipe=%v", viaPipe), func(t *testing.T) {
			t.Parallel()
			tok := newToken()
			b := startBridge(t, bridgeOpts{token: tok, mcp: viaPipe})
			if viaPipe {
				b.closeStdin()
			}
			connectPage(t, b, map[string]any{"token": tok})
			r := b.cli("call", "scene.describe", `{"limit":1}`)
			if r.code != 0 {
				t.Errorf("call after stdin EOF: got exit %d, want 0; stderr: %s", r.code, r.stderr)
			}
			b.mustRun()
		})
	}
}

// §2.8: standalone, no agent activity for --agent-idle-minutes: exit 0 even
// with a page attached; say why and that the pairing is kept.
func TestSpec2_8_AgentIdleExit(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--agent-idle-minutes", "--exit-when-unused"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			tok := newToken()
			b := startBridge(t, bridgeOpts{token: tok, timings: "ping=100ms", args: []string{flag, "0.01"}})
			p, _ := connectPage(t, b, map[string]any{"token": tok})
			if code := b.awaitExit(); code != 0 {
				t.Errorf("agent-idle exit: got %d, want 0; stderr: %s", code, b.stderr)
			}
			if !strings.Contains(strings.ToLower(b.stderr.String()), "pairing") {
				t.Errorf("stderr %q: got no word on the pairing being kept, want one", b.stderr)
			}
			p.awaitClosed()
			if exists(sessionPath(b.configDir, b.port)) {
				t.Errorf("session file left after a clean exit")
			}
			if e := readPairing(t, b.configDir, testOrigin); len(e.Secrets) != 1 {
				t.Errorf("pairing after agent-idle exit: got secrets %v, want it kept", e.Secrets)
			}
		})
	}
}

// §2.8: the agent-idle exit is for standalone bridges; an MCP client owns
// its bridge.
func TestSpec2_8_NoAgentIdleExitUnderMCP(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken(), mcp: true, args: []string{"--agent-idle-minutes", "0.01"}})
	b.rpc.initialize()
	// The wait is quiet for over twice the 0.6 s agent-idle limit.
	b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 1.5})
	b.mustRun()
	b.rpc.call("ping", nil)
}

// §2.9: heartbeat: a page that answers pings stays; one that does not is
// dropped after `dead`.
func TestSpec2_9_Heartbeat(t *testing.T) {
	t.Parallel()
	t.Run("answers pings: stays", func(t *testing.T) {
		t.Parallel()
		tok := newToken()
		b := startBridge(t, bridgeOpts{token: tok, timings: "ping=50ms,dead=400ms"})
		p, _ := connectPage(t, b, map[string]any{"token": tok})
		p.awaitPings(20) // 1 s: over two `dead` periods
		if p.closed() {
			t.Fatalf("answering page dropped")
		}
		_, st := b.ctl("GET", "/status", nil)
		if st["connected"] != true {
			t.Errorf("/status connected: got %v, want true", st["connected"])
		}
	})
	t.Run("silent: dropped", func(t *testing.T) {
		t.Parallel()
		tok := newToken()
		b := startBridge(t, bridgeOpts{token: tok, timings: "ping=50ms,dead=400ms"})
		p := openPage(t, b.port, true)
		wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
		p.mustSend(map[string]any{"tools": defaultTools})
		p.awaitClosed()
		if p.pings.len() == 0 {
			t.Errorf("silent page got no pings, want some before being dropped")
		}
		// The page sees the close frame a moment before the bridge's
		// reader has detached it.
		b.awaitStatus("connected false and no tools after the drop", func(st map[string]any) bool {
			tools, _ := st["tools"].([]any)
			return st["connected"] == false && len(tools) == 0
		})
	})
}

// §2.8: control-plane requests are agent activity: a standalone bridge
// polled more often than --agent-idle-minutes stays, and goes once the
// polling stops.
func TestSpec2_8_ControlPlaneKeepsAlive(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, timings: "ping=100ms", args: []string{"--agent-idle-minutes", "0.02"}})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	for i := 1; i <= 30; i++ { // 3 s of polling, one /status per ping: 2.5 idle periods
		p.awaitPings(i)
		b.mustRun()
		b.ctl("GET", "/status", nil)
	}
	if code := b.awaitExit(); code != 0 {
		t.Errorf("agent-idle exit after polling stopped: got %d, want 0", code)
	}
}

// §3.3 (reference notes): list_changed is sent only after the client sent
// notifications/initialized.
func TestSpec3_3_NoListChangedBeforeInitialized(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, mcp: true})
	b.rpc.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e", "version": "0"}})
	connectPage(t, b, map[string]any{"token": tok})
	b.awaitStatus("two tools", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })
	b.rpc.call("ping", nil)
	for _, m := range b.rpc.msgs.all() {
		if m.method() == listChanged {
			t.Errorf("got %s before notifications/initialized, want none", m.raw)
		}
	}
}

// §2.2 with T2: the Host check stands in front of every request, whatever
// its method or target. net/http would answer "OPTIONS *" itself, with any
// Host, before a handler ran.
func TestSpec2_2_HostCheckedBeforeRouting(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	for _, c := range []struct {
		request string
		want    string
	}{
		{"OPTIONS * HTTP/1.1\r\nHost: evil.example\r\n\r\n", "HTTP/1.1 403"},
		{"OPTIONS * HTTP/1.1\r\nHost: evil.example:" + strconv.Itoa(b.port) + "\r\n\r\n", "HTTP/1.1 403"},
		{"OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:" + strconv.Itoa(b.port) + "\r\n\r\n", "HTTP/1.1 426"},
		{"TRACE /status HTTP/1.1\r\nHost: evil.example\r\n\r\n", "HTTP/1.1 403"},
	} {
		conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(b.port))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(guard))
		io.WriteString(conn, c.request)
		line, _ := bufio.NewReader(conn).ReadString('\n')
		conn.Close()
		if !strings.HasPrefix(line, c.want) {
			t.Errorf("%q: got %q, want %s", c.request, line, c.want)
		}
	}
}
