package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/stitchslop/stitchslop-bridge/internal/bridge"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/setup"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// site is the origin the test bridges serve, written from the spec.
const site = "https://www.stitchslop.com"

// testTimeout bounds each probe in these tests; nothing here waits it out
// unless a listener fails to answer, which only the foreign listener does.
const testTimeout = 2 * time.Second

// freePort returns a loopback port that was free a moment ago: never one
// of 8787-8790, which a real bridge on this machine may hold.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// configDir returns an empty config dir with the right mode.
func configDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "config")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// seedPairing pairs site in dir and returns its secret.
func seedPairing(t *testing.T, dir string) string {
	t.Helper()
	secret, err := pairing.New(dir, slog.New(slog.DiscardHandler)).Redeem(site, "tok_0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if secret == "" {
		t.Fatal("Redeem returned an empty secret")
	}
	return secret
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func run(t *testing.T, dir string, ports ...int) Report {
	t.Helper()
	r := Run(context.Background(), Options{ConfigDir: dir, Ports: ports, Timeout: testTimeout})
	if t.Failed() {
		return r
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", text.String())
	return r
}

// find returns the findings of check with severity.
func find(r Report, check, severity string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Check == check && f.Severity == severity {
			out = append(out, f)
		}
	}
	return out
}

// must returns the one finding of check with severity about subject.
func must(t *testing.T, r Report, check, severity, subject string) Finding {
	t.Helper()
	for _, f := range find(r, check, severity) {
		if f.Subject == subject {
			return f
		}
	}
	t.Fatalf("Run: no %s finding %q about %q in %+v", severity, check, subject, r.Findings)
	return Finding{}
}

func TestLooseModes(t *testing.T) {
	if !checksModes {
		t.Skip("modes are not examined on this OS")
	}
	dir := configDir(t)
	seedPairing(t, dir)
	pf := filepath.Join(dir, "pairing.json")
	if err := os.Chmod(pf, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, freePort(t))
	if r.Healthy {
		t.Errorf("Run(loose modes).Healthy = true, want false")
	}
	if f := must(t, r, "config_dir", Problem, dir); f.Fix != "chmod 700 "+dir {
		t.Errorf("config dir fix = %q, want %q", f.Fix, "chmod 700 "+dir)
	}
	if f := must(t, r, "file_mode", Problem, pf); !strings.HasPrefix(f.Fix, "chmod 600 "+pf+";") || !strings.Contains(f.Fix, "unpair --all") {
		t.Errorf("pairing.json fix = %q, want chmod 600 %s and a revocation", f.Fix, pf)
	}
	must(t, r, "pairing", Info, pf) // not read: reading would repair it
	// Doctor only reads: the modes are as they were.
	for p, want := range map[string]os.FileMode{dir: 0o755, pf: 0o644} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("after Run, %s has mode %v (err %v), want %v: doctor changed it", p, fi.Mode().Perm(), err, want)
		}
	}
}

func TestModesTable(t *testing.T) {
	if !checksModes {
		t.Skip("modes are not examined on this OS")
	}
	tests := []struct {
		name string
		file string
		mode os.FileMode
		want string // severity of the file_mode finding about it; "" none
	}{
		{"spent tokens 0600", "spent-tokens", 0o600, ""},
		{"spent tokens group-readable", "spent-tokens", 0o640, Problem},
		{"session file world-readable", "session-" + strconv.Itoa(freePort(t)) + ".json", 0o604, Problem},
		{"corrupt pairing kept aside", "pairing.json.corrupt-20260101T000000Z", 0o644, Problem},
		{"not a secret", "notes.txt", 0o644, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := configDir(t)
			p := filepath.Join(dir, tt.file)
			if err := os.WriteFile(p, []byte("{}"), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tt.mode); err != nil {
				t.Fatal(err)
			}
			r := Run(context.Background(), Options{ConfigDir: dir, Ports: []int{}, Timeout: testTimeout})
			var got string
			for _, f := range r.Findings {
				if f.Check == "file_mode" && f.Subject == p {
					got = f.Severity
					if f.Fix != "chmod 600 "+p {
						t.Errorf("fix = %q, want %q", f.Fix, "chmod 600 "+p)
					}
				}
			}
			if got != tt.want {
				t.Errorf("Run(%s mode %04o) file_mode finding = %q, want %q", tt.file, tt.mode, got, tt.want)
			}
		})
	}
}

func TestStaleSessionFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pid reuse makes a dead pid unreliable to fake on Windows")
	}
	tests := []struct {
		name string
		pid  func(t *testing.T) int
		want string // in the message
		fix  string // starts the fix
	}{
		{"dead pid", deadPID, "is gone", "nothing needed: the next stitchslop-bridge"},
		// This test process is alive and does not hold the port.
		{"live pid, port not held", func(*testing.T) int { return os.Getpid() }, "does not hold port", "remove it: rm "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := configDir(t)
			port := freePort(t)
			key := "SESSIONKEY-must-not-appear-0123456789"
			if err := session.Write(dir, session.File{Port: port, Key: key, Origin: site, PID: tt.pid(t), Protocol: 1, StartedAt: session.Timestamp(time.Now())}); err != nil {
				t.Fatal(err)
			}
			p := session.Path(dir, port)
			r := run(t, dir, port)
			if r.Healthy {
				t.Errorf("Run(stale session file).Healthy = true, want false")
			}
			f := must(t, r, "session_file", Warning, p)
			if !strings.Contains(f.Message, tt.want) || !strings.HasPrefix(f.Fix, tt.fix) || !strings.Contains(f.Fix, "rm "+p) {
				t.Errorf("stale finding = %+v, want %q in the message and a fix starting %q naming rm %s", f, tt.want, tt.fix, p)
			}
			must(t, r, "port", OK, addr(port)) // and the port is free
			if _, err := os.Stat(p); err != nil {
				t.Errorf("doctor removed the stale session file: %v", err)
			}
			assertNoSecret(t, r, key)
		})
	}
}

func TestUnusableSessionFile(t *testing.T) {
	dir := configDir(t)
	port := freePort(t)
	p := session.Path(dir, port)
	if err := os.WriteFile(p, []byte(`{"port":1,"key":"SECRETKEY`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, port)
	f := must(t, r, "session_file", Warning, p)
	if f.Fix != "remove it: rm "+p+" (a bridge writes a new one when it starts)" {
		t.Errorf("fix = %q", f.Fix)
	}
	assertNoSecret(t, r, "SECRETKEY")
}

// foreignListener listens on a free loopback port, as a program that is
// not a bridge: it writes greeting to each connection and closes it. It
// returns the port.
func foreignListener(t *testing.T, greeting string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(greeting))
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// A listener that is not a bridge, on a port the tab tries.
func TestForeignListener(t *testing.T) {
	port := foreignListener(t, "SSH-2.0-not-a-bridge\r\n")
	r := run(t, configDir(t), port)
	if r.Healthy {
		t.Errorf("Run(foreign listener).Healthy = true, want false")
	}
	f := must(t, r, "port", Warning, addr(port))
	if !strings.Contains(f.Message, "not a Stitch Slop bridge") || !strings.Contains(f.Fix, strconv.Itoa(port)) {
		t.Errorf("foreign listener finding = %+v, want it called not a bridge, with a fix naming the port", f)
	}
}

// A bridge with no session file in this config dir answers 426 to
// anything but its routes (protocol.md §4.2).
func TestBridgeWithoutSessionFile(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Upgrade", "websocket")
		w.WriteHeader(http.StatusUpgradeRequired)
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	r := run(t, configDir(t), port)
	f := must(t, r, "port", Warning, addr(port))
	if !strings.Contains(f.Message, "Stitch Slop bridge that no session file") {
		t.Errorf("finding = %+v, want another bridge", f)
	}
}

// The classification of another user's listener, with the lookup faked:
// it holds for any OS. TestOtherUserListener proves it on a real one.
func TestOtherUserClassification(t *testing.T) {
	port := freePort(t)
	old := listenerOwner
	t.Cleanup(func() { listenerOwner = old })
	listenerOwner = func(p int) (peercred.Owner, bool, error) {
		if p != port {
			t.Errorf("ListenerOwner(%d), want only %d", p, port)
		}
		return peercred.Owner{UID: 65534}, true, nil
	}
	r := run(t, configDir(t), port)
	if r.Healthy {
		t.Errorf("Run(another user's listener).Healthy = true, want false")
	}
	f := must(t, r, "port", Problem, addr(port))
	if !strings.Contains(f.Message, "another user's process (uid 65534)") || f.Fix == "" {
		t.Errorf("finding = %+v, want another user's process named by uid, with a fix", f)
	}
}

// startBridge runs a real bridge in this process on a free port and
// returns the port once its session file is written.
func startBridge(t *testing.T, dir string) int {
	t.Helper()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	listening := &logged{msg: "session file written", seen: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- bridge.Run(ctx, bridge.Config{
			Origin: site, Ports: []int{port}, ConfigDir: dir,
			Stdin: strings.NewReader(""), Stdout: io.Discard, Log: slog.New(listening),
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("bridge.Run: %v", err)
		}
	})
	select {
	case <-listening.seen:
		return port
	case err := <-done:
		t.Fatalf("bridge.Run returned before listening: %v", err)
	}
	return 0
}

// logged is a log handler that closes seen at the first record of msg,
// the bridge's line once it listens and its session file is written.
type logged struct {
	msg  string
	seen chan struct{}
	once sync.Once
}

func (l *logged) Enabled(context.Context, slog.Level) bool { return true }
func (l *logged) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logged) WithGroup(string) slog.Handler            { return l }
func (l *logged) Handle(_ context.Context, r slog.Record) error {
	if r.Message == l.msg {
		l.once.Do(func() { close(l.seen) })
	}
	return nil
}

func TestHealthyBridge(t *testing.T) {
	dir := configDir(t)
	secret := seedPairing(t, dir)
	port := startBridge(t, dir)
	sf, err := session.Read(session.Path(dir, port))
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, port)
	if !r.Healthy {
		t.Fatalf("Run(a live bridge, just started).Healthy = false, want true: %+v", r.Findings)
	}
	f := must(t, r, "port", OK, addr(port))
	if !strings.Contains(f.Message, "a bridge of this config dir, for "+site+", pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("bridge finding = %q, want its site and pid", f.Message)
	}
	must(t, r, "never_tried", Info, addr(port))
	must(t, r, "pairing", OK, site)
	must(t, r, "config_dir", OK, dir)
	assertNoSecret(t, r, secret, sf.Key)

	// The same bridge a while later, still never dialled: §5's hint.
	old := now
	t.Cleanup(func() { now = old })
	now = func() time.Time { return time.Now().Add(NeverTriedAfter + time.Minute) }
	r = run(t, dir, port)
	if r.Healthy {
		t.Errorf("Run(a bridge never dialled for minutes).Healthy = true, want false")
	}
	if f := must(t, r, "never_tried", Warning, addr(port)); !strings.Contains(f.Fix, "Allow agent connections") || !strings.Contains(f.Fix, "Content-Security-Policy") {
		t.Errorf("never_tried fix = %q, want the switch and the CSP", f.Fix)
	}
	assertNoSecret(t, r, secret, sf.Key)
}

// A tab of another site dials the bridge and is refused; doctor reports the
// bridge's refusal, and the bridge no longer counts as never tried.
func TestRefusalsReported(t *testing.T) {
	dir := configDir(t)
	seedPairing(t, dir)
	port := startBridge(t, dir)
	const evil = "https://evil.example"
	d := websocket.Dialer{HandshakeTimeout: testTimeout}
	c, resp, err := d.Dial("ws://"+addr(port)+"/", http.Header{"Origin": {evil}})
	if err == nil {
		c.Close()
		t.Fatalf("a tab from %s was admitted; want a 403", evil)
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("dial from %s: %v (%v), want a 403", evil, err, resp)
	}
	r := run(t, dir, port)
	if r.Healthy {
		t.Errorf("Run(a bridge that refused a tab).Healthy = true, want false")
	}
	// A site that is not allowed is counted, never named (issue 19).
	f := must(t, r, "refusals", Warning, addr(port))
	if !strings.Contains(f.Message, "refused 1 tab from sites that are not allowed") || strings.Contains(f.Message, evil) || f.Fix == "" {
		t.Errorf("refusal finding = %+v, want the origin, count and reason, and the bridge's fix", f)
	}
	if got := find(r, "never_tried", Warning); len(got) != 0 {
		t.Errorf("never_tried = %+v for a bridge a tab dialled", got)
	}
}

// assertNoSecret checks that no secret appears in the report, as text or
// as JSON, and that the JSON is one valid document that round-trips.
func assertNoSecret(t *testing.T, r Report, secrets ...string) {
	t.Helper()
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(js) {
		t.Fatalf("json.Marshal(Report) is not valid JSON: %s", js)
	}
	var back Report
	if err := json.Unmarshal(js, &back); err != nil || back.Healthy != r.Healthy || len(back.Findings) != len(r.Findings) {
		t.Errorf("Report does not round-trip through JSON: %v", err)
	}
	for _, want := range []string{`"healthy":`, `"findings":[`, `"check":`, `"severity":`, `"message":`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("JSON report lacks %s: %s", want, js)
		}
	}
	for _, s := range secrets {
		if s == "" {
			t.Fatal("assertNoSecret: empty secret")
		}
		if strings.Contains(text.String(), s) || bytes.Contains(js, []byte(s)) {
			t.Errorf("a secret (%.6s…) appears in the report:\n%s\n%s", s, text.String(), js)
		}
	}
}

func TestWriteText(t *testing.T) {
	r := Report{Healthy: false, Findings: []Finding{
		{Check: "port", Severity: OK, Subject: "127.0.0.1:1", Message: "free"},
		{Check: "refusals", Severity: Warning, Subject: "127.0.0.1:2", Message: "refused \x1b[31m", Fix: "do this\nand that"},
		{Check: "config_dir", Severity: Problem, Subject: "/d", Message: "loose", Fix: "chmod 700 /d"},
	}}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `stitchslop-bridge: 127.0.0.1:1: free
stitchslop-bridge: warning: 127.0.0.1:2: refused \x1b[31m
stitchslop-bridge: hint: do this; and that
stitchslop-bridge: error: /d: loose
stitchslop-bridge: hint: chmod 700 /d
stitchslop-bridge: doctor: 1 problem and 1 warning; each is followed by its fix
`
	if b.String() != want {
		t.Errorf("WriteText =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestUntrusted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://www.stitchslop.com", "https://www.stitchslop.com"},
		{"https://a.example\x1b[2J", `"https://a.example\x1b[2J"`},
		{"a b", `"a b"`},
		{`a"b`, `"a\"b"`},
		{"", `""`},
		{"\xff", `"\xff"`},
		{"\u202eevil", `"\u202eevil"`},
		{"a\u3164b", `"a\u3164b"`}, // printable to strconv, not to the one rule
		{strings.Repeat("x", 200), strings.Repeat("x", 128) + "…"},
	}
	for _, tt := range tests {
		if got := untrusted(tt.in); got != tt.want {
			t.Errorf("untrusted(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := untrustedText("Open the panel again"); got != "Open the panel again" {
		t.Errorf("untrustedText(%q) = %q, want it unchanged", "Open the panel again", got)
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/u/.stitchslop", "/home/u/.stitchslop"},
		{"/tmp/a b", "'/tmp/a b'"},
		{"/tmp/it's", `'/tmp/it'\''s'`},
		{"~/x", "'~/x'"},
		{"/tmp/$(rm)", "'/tmp/$(rm)'"},
	}
	for _, tt := range tests {
		if got := setup.QuotePosix(tt.in); got != tt.want {
			t.Errorf("setup.QuotePosix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMissingConfigDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	r := run(t, dir, freePort(t))
	if !r.Healthy {
		t.Errorf("Run(no config dir yet).Healthy = false, want true: %+v", r.Findings)
	}
	must(t, r, "config_dir", Info, dir)
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("doctor created %s", dir)
	}
}

// Whatever a file or a bridge holds, what doctor shows of it is one line
// of printable text.
func FuzzUntrusted(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		for name, got := range map[string]string{"untrusted": untrusted(s), "untrustedText": untrustedText(s)} {
			if !utf8.ValidString(got) {
				t.Fatalf("%s(%q) = %q, not valid UTF-8", name, s, got)
			}
			for _, r := range got {
				// A space of any width is printable text to the one rule
				// (security/unprintable), which strconv.IsPrint does not say.
				if !unicode.In(r, unicode.Zs) && (!strconv.IsPrint(r) || unprintable.Is(r)) {
					t.Fatalf("%s(%q) = %q, holds %U", name, s, got, r)
				}
			}
			if len(got) > 2*maxMessage+len(strconv.Quote(strings.Repeat("\x00", maxMessage))) {
				t.Fatalf("%s(%q) is %d bytes, unbounded", name, s, len(got))
			}
		}
	})
}

// Where the OS cannot say who holds a port (macOS, the BSDs), doctor asks
// the listener itself, and still tells a bridge from something else.
func TestOwnerUnsupported(t *testing.T) {
	oldOwner, oldHolds := listenerOwner, holdsPort
	t.Cleanup(func() { listenerOwner, holdsPort = oldOwner, oldHolds })
	listenerOwner = func(int) (peercred.Owner, bool, error) { return peercred.Owner{}, false, peercred.ErrUnsupported }
	holdsPort = func(int, int) (bool, error) { return false, peercred.ErrUnsupported }

	dir := configDir(t)
	seedPairing(t, dir)
	port := startBridge(t, dir)
	other := foreignListener(t, "")
	free := freePort(t)
	r := run(t, dir, port, other, free)
	must(t, r, "port", OK, addr(port))
	if f := must(t, r, "port", Warning, addr(other)); !strings.Contains(f.Message, "not a Stitch Slop bridge") {
		t.Errorf("finding = %+v, want not a bridge", f)
	}
	if f := must(t, r, "port", OK, addr(free)); f.Message != "free" {
		t.Errorf("finding = %+v, want free", f)
	}
}

// Another user's listener beside a live bridge of ours, on [::1] at its
// port, is a problem doctor reports, though the bridge accounts for
// 127.0.0.1 there.
func TestSquatterBesideBridge(t *testing.T) {
	dir := configDir(t)
	seedPairing(t, dir)
	port := startBridge(t, dir)
	old := squatters
	t.Cleanup(func() { squatters = old })
	squatters = func(p int) ([]peercred.Squatter, error) {
		if p != port {
			return nil, nil
		}
		return []peercred.Squatter{{Addr: netip.IPv6Loopback(), Port: p, Owner: peercred.Owner{UID: 65534}}}, nil
	}
	r := run(t, dir, port)
	if r.Healthy {
		t.Errorf("Run(a squatter beside the bridge).Healthy = true, want false")
	}
	must(t, r, "port", OK, addr(port))
	f := must(t, r, "squatter", Problem, "[::1]:"+strconv.Itoa(port))
	if !strings.Contains(f.Message, "uid 65534") || f.Fix == "" {
		t.Errorf("finding = %+v, want the owner's uid and a fix", f)
	}
	if n := len(find(r, "squatter", Problem)); n != 1 {
		t.Errorf("%d squatter findings, want 1", n)
	}
}

// doctor names the binary it is, and says so when a running bridge runs
// another binary (an upgrade the bridge has not picked up): for
// information, never a problem.
func TestBinaryIdentity(t *testing.T) {
	dir := configDir(t)
	seedPairing(t, dir)
	port := startBridge(t, dir)
	r := run(t, dir, port)
	if f := must(t, r, "binary", Info, ""); !strings.Contains(f.Message, "sha256 "+r.Bridge.SHA256) || len(r.Bridge.SHA256) != 64 {
		t.Errorf("binary finding %q, bridge %+v: want this binary's 64-digit sha256", f.Message, r.Bridge)
	}
	if got := find(r, "binary", Info); len(got) != 1 {
		t.Errorf("binary findings %+v: want only doctor's own, the bridge runs the same binary", got)
	}

	old := self
	t.Cleanup(func() { self = old })
	self = func(wait time.Duration) version.Identity {
		id := old(wait)
		id.Version, id.SHA256 = "9.9.9", strings.Repeat("0", 64)
		return id
	}
	r = run(t, dir, port)
	f := must(t, r, "binary", Info, addr(port))
	if !strings.Contains(f.Message, "runs another binary than this doctor") || !strings.Contains(f.Message, "this one: 9.9.9") || !strings.Contains(f.Fix, "restart") {
		t.Errorf("binary finding for the bridge = %+v, want another binary and a restart", f)
	}
	if !r.Healthy {
		t.Errorf("Run(a bridge of another binary).Healthy = false, want true: it is information")
	}
}
