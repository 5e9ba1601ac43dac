package e2e

// A newcomer's demo, end to end, with the real things: `stitchslop-bridge
// demo` serves its stand-in tab, headless Chromium opens it and the tab
// pairs by itself; the official MCP Go SDK starts a lazy bridge that
// follows the demo's bridge and drives the tab (a render comes back as a
// PNG of the canvas); a shell `call` moves a shape and the next render
// differs; a page from another origin in the same browser is refused at
// the upgrade.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// chromiumPath is where Debian's and Ubuntu's chromium package puts it
	// (.ci/run installs it).
	chromiumPath = "/usr/bin/chromium"
	// requireBrowserEnv, when set, turns a missing browser into a failure
	// instead of a skip (CI sets it).
	requireBrowserEnv = "STITCHSLOP_REQUIRE_BROWSER"
	// browserGuard bounds each wait on the browser or on something the
	// browser does: Chromium starts in seconds, but the machine may be
	// shared and the binaries built with -race. A failure guard, never a
	// synchronisation device.
	browserGuard = 60 * time.Second
)

// browserFlags keep a headless Chromium off the network (this runs where
// there is none) and out of the user's profile.
var browserFlags = []string{
	"headless", "no-sandbox", "disable-gpu", "disable-quic", "no-first-run",
	"disable-background-networking", "disable-component-update", "disable-sync",
	"disable-dev-shm-usage", // containers have a small /dev/shm
}

// needBrowser skips the test when there is no Chromium, unless CI said it
// must run.
func needBrowser(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv(requireBrowserEnv) == "" {
			t.Skipf("%s not found (%v): this test needs a real browser; install chromium, or set %s=1 to make its absence a failure", chromiumPath, err, requireBrowserEnv)
		}
		t.Fatalf("%s not found (%v) and %s is set: install chromium", chromiumPath, err, requireBrowserEnv)
	}
}

// ---------------------------------------------------------------------------
// The demo process.

type demoProc struct {
	cmd     *exec.Cmd
	stderr  *lineLog
	done    chan struct{}
	pageURL string // http://127.0.0.1:N/
	port    int    // the bridge's
	dir     string
	tmp     string // its TMPDIR
}

var demoPageRE = regexp.MustCompile(`open (http://127\.0\.0\.1:\d+/) in a browser`)

// startDemo runs `stitchslop demo --port port --config-dir dir` and
// waits for the page URL it prints.
func startDemo(t *testing.T, port int, dir string, env ...string) *demoProc {
	t.Helper()
	d := &demoProc{stderr: newLineLog(nil), done: make(chan struct{}), port: port, dir: dir, tmp: t.TempDir()}
	d.cmd = exec.Command(toolPath, "demo", "--port", strconv.Itoa(port), "--config-dir", dir)
	// A temporary directory of the test's own, which the demo must leave
	// as it found it (empty) however it ends: nothing of it reaches the
	// machine's /tmp.
	d.cmd.Env = childEnv(t.TempDir(), append([]string{"TMPDIR=" + d.tmp}, env...)...)
	d.cmd.Stderr = d.stderr
	d.cmd.WaitDelay = 2 * time.Second
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start demo: %v", err)
	}
	go func() {
		d.cmd.Wait()
		d.stderr.finish()
		close(d.done)
	}()
	t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			d.cmd.Process.Kill()
			<-d.done
		}
		checkStderr(t, d.stderr)
		if left, err := os.ReadDir(d.tmp); err != nil || len(left) > 0 {
			t.Errorf("the demo left %v in its TMPDIR (%v), want nothing", left, err)
		}
	})
	line, _, ok := d.stderr.lines.await(0, browserGuard, demoPageRE.MatchString)
	if !ok {
		t.Fatalf("demo never printed its page URL; stderr:\n%s", d.stderr)
	}
	d.pageURL = demoPageRE.FindStringSubmatch(line)[1]
	if !strings.Contains(d.stderr.String(), "listening on 127.0.0.1:"+strconv.Itoa(port)) {
		t.Fatalf("demo's bridge is not on --port %d; stderr:\n%s", port, d.stderr)
	}
	return d
}

func (d *demoProc) site() string { return strings.TrimSuffix(d.pageURL, "/") }

// cli runs a CLI verb against the demo's bridge.
func (d *demoProc) cli(t *testing.T, in cliInput, args ...string) cliResult {
	t.Helper()
	return runCLIWith(t, in, append([]string{"--config-dir", d.dir, "--port", strconv.Itoa(d.port)}, args...)...)
}

// stop is Ctrl-C, and the demo's exit.
func (d *demoProc) stop(t *testing.T) int {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("SIGINT to the demo: %v", err)
	}
	select {
	case <-d.done:
		return d.cmd.ProcessState.ExitCode()
	case <-time.After(browserGuard):
		t.Fatalf("demo still running %v after SIGINT; stderr:\n%s", browserGuard, d.stderr)
		return -1
	}
}

// ---------------------------------------------------------------------------
// The browser.

// startBrowser starts headless Chromium with a fresh profile and returns a
// context for its first tab; everything the tab logs to its console, and
// every exception, goes to console.
func startBrowser(t *testing.T, console *stream[string]) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(chromiumPath), chromedp.UserDataDir(t.TempDir())}
	for _, f := range browserFlags {
		opts = append(opts, chromedp.Flag(f, true))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Do binds the browser's life to its context, so it has no
	// timeout of its own (chromedp's rule); the guard is a select instead.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("start %s: %v", chromiumPath, err)
		}
	case <-time.After(browserGuard):
		cancel()
		t.Fatalf("%s did not start within %v", chromiumPath, browserGuard)
	}
	collectConsole(ctx, console)
	return ctx
}

// collectConsole copies the tab's console messages and exceptions into
// console until the tab's context ends.
func collectConsole(ctx context.Context, console *stream[string]) {
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			console.add(m.String())
		}
	}()
}

// browserDo runs steps in the tab, bounded by browserGuard.
func browserDo(t *testing.T, tab context.Context, what string, console *stream[string], steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, browserGuard)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v; the tabs' console:\n%s", what, err, strings.Join(console.all(), "\n"))
	}
}

// browserGet runs one action with a value in the tab, bounded by browserGuard.
func browserGet[T any](t *testing.T, tab context.Context, what string, console *stream[string], a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, browserGuard)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v; the tabs' console:\n%s", what, err, strings.Join(console.all(), "\n"))
	}
	return v
}

// ---------------------------------------------------------------------------
// The MCP client, following the demo's bridge.

type followerProc struct {
	cmd         *exec.Cmd
	cs          *mcp.ClientSession
	stderr      *lineLog
	listChanged *stream[struct{}]
}

func startFollower(t *testing.T, d *demoProc) *followerProc {
	t.Helper()
	f := &followerProc{stderr: newLineLog(nil), listChanged: newStream[struct{}]()}
	// --port is the demo's: the follower finds the demo's bridge by its
	// session file, and should it ever bind a port itself, it is that one,
	// never a real bridge's 8787..8790.
	f.cmd = exec.Command(binPath, "--lazy", "--origin", d.site(), "--config-dir", d.dir, "--port", strconv.Itoa(d.port))
	f.cmd.Env = childEnv(t.TempDir())
	f.cmd.Stderr = f.stderr
	f.cmd.WaitDelay = 2 * time.Second
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-demo", Version: "0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { f.listChanged.add(struct{}{}) },
	})
	ctx, cancel := context.WithTimeout(context.Background(), browserGuard)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: f.cmd, TerminateDuration: guard}, nil)
	if err != nil {
		if f.cmd.Process != nil {
			f.cmd.Process.Kill()
		}
		t.Fatalf("SDK Connect to `%s --lazy`: %v; stderr:\n%s", binPath, err, f.stderr)
	}
	f.cs = cs
	t.Cleanup(func() {
		cs.Close()
		f.stderr.finish()
		checkStderr(t, f.stderr)
	})
	return f
}

func (f *followerProc) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserGuard)
	defer cancel()
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v; stderr:\n%s", name, err, f.stderr)
	}
	if res.IsError {
		t.Fatalf("CallTool %s: got IsError, want a success: %v", name, textOf(res))
	}
	return res
}

func (f *followerProc) toolNames(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserGuard)
	defer cancel()
	res, err := f.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v; stderr:\n%s", err, f.stderr)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func textOf(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// render calls scene.render and returns the PNG it carries, checked to
// decode to w x h.
func (f *followerProc) render(t *testing.T, w, h int) []byte {
	t.Helper()
	r := f.call(t, "scene.render", map[string]any{})
	var img *mcp.ImageContent
	for _, c := range r.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil {
		t.Fatalf("scene.render: got content %v, want an image block", textOf(r))
	}
	if img.MIMEType != "image/png" {
		t.Errorf("scene.render image: got mimeType %q, want image/png", img.MIMEType)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatalf("scene.render image (%d bytes) does not decode as PNG: %v", len(img.Data), err)
	}
	if cfg.Width != w || cfg.Height != h {
		t.Errorf("scene.render PNG is %dx%d, want the canvas's %dx%d", cfg.Width, cfg.Height, w, h)
	}
	if _, err := png.Decode(bytes.NewReader(img.Data)); err != nil {
		t.Errorf("scene.render PNG: %v", err)
	}
	return img.Data
}

// ---------------------------------------------------------------------------
// The test.

func TestNewcomer_DemoInRealBrowser(t *testing.T) {
	needBrowser(t)
	dir := filepath.Join(t.TempDir(), "config")
	d := startDemo(t, freePort(t), dir)

	// The tab: opened, it fetches its token, dials the demo's bridge on
	// its pinned port, pairs and shows "connected".
	console := newStream[string]()
	tab := startBrowser(t, console)
	browserDo(t, tab, "open the demo page and wait for it to attach", console,
		chromedp.Navigate(d.pageURL),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="connected"]`)),
	)
	if st := d.cli(t, cliInput{}, "status").doc(t); st["connected"] != true || st["origin"] != d.site() {
		t.Fatalf("status after the tab showed connected: %v, want connected to %s", st, d.site())
	}
	secret := browserGet(t, tab, "read the stored pairing secret", console,
		chromedp.Evaluate[string](`localStorage.getItem("stitchslop.pairingSecret") || ""`))
	if len(secret) < 43 {
		t.Errorf("the tab kept pairing secret of %d characters, want the bridge's (>= 32 bytes, base64url)", len(secret))
	}

	// The agent: the SDK starts a lazy bridge for the demo's site, which
	// follows the demo's bridge instead of taking a port.
	f := startFollower(t, d)
	if names := f.toolNames(t); !slices.Contains(names, "wait_for_connection") {
		t.Fatalf("tools/list before waiting: %v, want wait_for_connection", names)
	}
	from := f.listChanged.len()
	if r := f.call(t, "wait_for_connection", map[string]any{"timeoutSeconds": 30}); !strings.Contains(textOf(r), "onnected") {
		t.Errorf("wait_for_connection: %q, want it connected", textOf(r))
	}
	if !strings.Contains(f.stderr.String(), "following the bridge on port "+strconv.Itoa(d.port)) {
		t.Errorf("the MCP bridge did not follow the demo's bridge on port %d; stderr:\n%s", d.port, f.stderr)
	}
	if _, _, ok := f.listChanged.await(from, browserGuard, nil); !ok {
		t.Fatalf("got no notifications/tools/list_changed after the tab's tools arrived")
	}
	tools := f.toolNames(t)
	for _, want := range []string{"scene.describe", "scene.render", "shape.add", "shape.move", "shape.recolor", "shape.delete", "design.export"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools/list after list_changed: %v, want the tab's %s", tools, want)
		}
	}
	if cs := textOf(f.call(t, "connection_status", map[string]any{})); !strings.Contains(cs, `"mode":"follower"`) {
		t.Errorf("connection_status: %s, want mode follower", cs)
	}

	// scene.describe says the canvas size; scene.render is a PNG of it.
	var env map[string]any
	desc := textOf(f.call(t, "scene.describe", map[string]any{}))
	_, env = sdkEnvelope(t, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: desc}}})
	canvas, _ := env["canvas"].(map[string]any)
	w, _ := canvas["width"].(float64)
	h, _ := canvas["height"].(float64)
	if w < 1 || h < 1 {
		t.Fatalf("scene.describe: %s, want the canvas size", desc)
	}
	if !strings.Contains(desc, `"id":"s2"`) {
		t.Fatalf("scene.describe: %s, want object s2", desc)
	}
	before := f.render(t, int(w), int(h))

	// A shell call moves s2; the page logs it; the next render differs.
	mv := d.cli(t, cliInput{}, "call", "shape.move", `{"id":"s2","dx":60,"dy":0}`)
	if mv.code != 0 || mv.doc(t)["ok"] != true {
		t.Fatalf("call shape.move: exit %d, stdout %q, stderr %q; want exit 0 and ok", mv.code, mv.stdout, mv.stderr)
	}
	logText := browserGet(t, tab, "read the tab's activity log", console, chromedp.Text(chromedp.CSS(`#log`)))
	if !strings.Contains(logText, "shape.move") || !strings.Contains(logText, "scene.render") {
		t.Errorf("the tab's activity log: %q, want shape.move and scene.render listed", logText)
	}
	after := f.render(t, int(w), int(h))
	if bytes.Equal(before, after) {
		t.Errorf("scene.render after shape.move: the same %d bytes as before, want the moved rose", len(after))
	}

	// A bad argument is a clear error, not a crash.
	bad := d.cli(t, cliInput{}, "call", "shape.recolor", `{"id":"s2","color":"not-a-colour"}`)
	if bad.code != 1 || !strings.Contains(bad.stdout, "bad_args") || !strings.Contains(bad.stdout, "colour") {
		t.Errorf("call shape.recolor with a bad colour: exit %d, stdout %q; want exit 1 and a bad_args envelope naming the colour", bad.code, bad.stdout)
	}

	// design.export's files land under the names the bridge builds with
	// --save (§7.15): the SVG holds well-formed XML, or it would be text.
	out := t.TempDir()
	if ex := d.cli(t, cliInput{}, "call", "design.export", "--save", out); ex.code != 0 {
		t.Errorf("call design.export --save: exit %d, stdout %q, stderr %q", ex.code, ex.stdout, ex.stderr)
	}
	for _, name := range []string{"design.stitchslop.svg", "design.stitchslop.png"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || len(data) == 0 {
			t.Errorf("design.export --save: %s: %v, want the file", name, err)
		}
		if name == "design.stitchslop.png" {
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("design.png does not decode: %v", err)
			}
		} else if !bytes.Contains(data, []byte("<svg")) {
			t.Errorf("design.svg: %q, want an SVG", data)
		}
	}

	// A second tab of the demo is refused busy (protocol.md §2.6), says so,
	// and the first keeps the connection.
	second, cancelSecond := chromedp.NewContext(tab)
	collectConsole(second, console)
	browserDo(t, second, "open a second demo tab and wait for it to show busy", console,
		chromedp.Navigate(d.pageURL),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="busy"]`)),
	)
	cancelSecond()
	if st := browserGet(t, tab, "read the first tab's state", console, chromedp.Evaluate[string](`document.getElementById("conn").dataset.state`)); st != "connected" {
		t.Errorf("the first tab after a second one was refused: %q, want connected", st)
	}

	// A page from another origin, in the same browser, is refused at the
	// upgrade: its socket never opens, and the bridge logs the refusal.
	checkOtherOriginRefused(t, tab, d, console)

	// The page ran under its CSP without a violation or an exception.
	for _, m := range console.all() {
		if strings.Contains(m, "Content Security Policy") || strings.Contains(m, "Refused to") || strings.Contains(strings.ToLower(m), "uncaught") {
			t.Errorf("the tabs' console: %q, want no CSP violation and no uncaught exception", m)
		}
	}

	// Ctrl-C: the demo exits 0, and the config dir holds none of its pairing.
	f.cs.Close()
	if code := d.stop(t); code != 0 {
		t.Errorf("demo exit after Ctrl-C: %d, want 0; stderr:\n%s", code, d.stderr)
	}
	// The spent token's fingerprint may stay (spent tokens stay spent);
	// no secret for the demo's site may.
	if raw, err := os.ReadFile(filepath.Join(dir, "pairing.json")); err == nil {
		var top map[string]pairingEntry
		if err := json.Unmarshal(raw, &top); err != nil {
			t.Fatalf("pairing.json after the demo: %v", err)
		}
		if e, ok := top[d.site()]; ok && (e.Secret != "" || len(e.Secrets) > 0) {
			t.Errorf("pairing.json after the demo: %s, want no secret left for %s", raw, d.site())
		}
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("pairing.json after the demo still holds the tab's secret")
		}
	}
}

// otherPage dials the bridge from its own origin and reports whether the
// socket ever opened, and how it closed.
const otherPage = `<!doctype html><title>another site</title><script>
window.outcome = new Promise((resolve) => {
  const ws = new WebSocket("ws://127.0.0.1:%d/");
  let opened = false;
  ws.onopen = () => { opened = true; ws.send('{"token":"tok_00000000000000000000000000000000"}'); };
  ws.onclose = (e) => resolve({opened: opened, code: e.code});
});
</script>`

func checkOtherOriginRefused(t *testing.T, tab context.Context, d *demoProc, console *stream[string]) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, otherPage, d.port)
	}))
	defer srv.Close()
	if srv.URL == d.site() {
		t.Fatalf("the other page's origin %s is the demo's", srv.URL)
	}
	other, cancel := chromedp.NewContext(tab) // a second tab, same browser
	defer cancel()
	ws := newStream[string]()
	err := chromedp.Listen(other, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventWebSocketCreated:
			ws.add("created " + ev.URL)
		case *network.EventWebSocketHandshakeResponseReceived:
			ws.add("handshake " + strconv.FormatInt(ev.Response.Status, 10))
		case *network.EventWebSocketFrameError:
			ws.add("error " + ev.ErrorMessage)
		}
	})
	if err != nil {
		t.Fatalf("open a second tab: %v", err)
	}
	collectConsole(other, console)
	from := d.stderr.lines.len()
	type socketOutcome struct {
		Opened bool `json:"opened"`
		Code   int  `json:"code"`
	}
	if _, err := chromedp.Call(other, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("Network.enable: %v", err)
	}
	browserDo(t, other, "open a page of another origin that dials the bridge", console, chromedp.Navigate(srv.URL+"/"))
	outcome := browserGet(t, other, "await the other origin's socket", console,
		chromedp.Evaluate[socketOutcome](`window.outcome`, chromedp.EvalAwaitPromise))
	if outcome.Opened || outcome.Code != 1006 {
		t.Errorf("the other origin's socket: %+v, want it never opened (close code 1006)", outcome)
	}
	line, _, ok := d.stderr.lines.await(from, browserGuard, func(l string) bool {
		return strings.Contains(l, "refused a connection (403)") && strings.Contains(l, srv.URL)
	})
	if !ok {
		t.Errorf("the demo's bridge did not log a 403 refusal of %s; stderr:\n%s", srv.URL, d.stderr)
	} else {
		t.Logf("the bridge: %s", line)
	}
	if _, _, ok := ws.await(0, browserGuard, func(e string) bool { return strings.HasPrefix(e, "error ") && strings.Contains(e, "403") }); !ok {
		t.Errorf("Chromium's WebSocket events: %q, want a handshake error naming the 403", ws.all())
	}
	events := ws.all()
	if !slices.Contains(events, "created ws://127.0.0.1:"+strconv.Itoa(d.port)+"/") {
		t.Errorf("Chromium's WebSocket events: %q, want the socket to the bridge created", events)
	}
	if slices.Contains(events, "handshake 101") {
		t.Errorf("Chromium's WebSocket events: %q, want no 101 Switching Protocols", events)
	}
	t.Logf("Chromium's WebSocket events: %q", events)
	// The demo's own tab is still attached.
	if st := d.cli(t, cliInput{}, "status").doc(t); st["connected"] != true {
		t.Errorf("status after the other origin's attempt: %v, want the demo's tab still connected", st)
	}
}
