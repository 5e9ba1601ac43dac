package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/bridge"
	"github.com/stitchslop/stitchslop-bridge/internal/control"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
)

// The shell's idea of the bridge's clocks is the bridge's.
func TestTimeoutsMatchTheBridge(t *testing.T) {
	if want := time.Duration(control.WaitDefault) * time.Second; waitDefault != want {
		t.Errorf("waitDefault = %v, want control.WaitDefault, %v", waitDefault, want)
	}
	if want := time.Duration(control.WaitMax) * time.Second; waitMax != want {
		t.Errorf("waitMax = %v, want control.WaitMax, %v", waitMax, want)
	}
	if want := bridge.DefaultTimings.Call; callDefault != want {
		t.Errorf("callDefault = %v, want bridge.DefaultTimings.Call, %v", callDefault, want)
	}
	if callTimeoutMin != hub.MinCallTimeout || callTimeoutMax != hub.MaxCallTimeout {
		t.Errorf("call --timeout bounds = %v to %v, want hub.MinCallTimeout to hub.MaxCallTimeout, %v to %v",
			callTimeoutMin, callTimeoutMax, hub.MinCallTimeout, hub.MaxCallTimeout)
	}
	// Each verb's help states the time the bridge gets to answer it.
	for _, tt := range []struct {
		verb string
		d    time.Duration
	}{{"status", quickTimeout}, {"tools", quickTimeout}, {"wait", answerMargin}, {"call", answerMargin}} {
		if s := strconv.FormatFloat(tt.d.Seconds(), 'f', -1, 64) + " s"; !strings.Contains(helpFor(lookup(tt.verb)), s) {
			t.Errorf("helpFor(%s) does not mention %s, the shell's timeout of %v", tt.verb, s, tt.d)
		}
	}
}

func TestRequest(t *testing.T) {
	tests := []struct {
		args    []string
		method  string
		path    string
		body    string // "" for none
		timeout time.Duration
	}{
		{[]string{"status"}, "GET", "/status", "", 15 * time.Second},
		{[]string{"tools"}, "GET", "/tools", "", 15 * time.Second},
		{[]string{"wait"}, "POST", "/wait", `{}`, 130 * time.Second},
		{[]string{"wait", "2.5"}, "POST", "/wait", `{"seconds":2.5}`, 12500 * time.Millisecond},
		{[]string{"wait", "1e9"}, "POST", "/wait", `{"seconds":1000000000}`, 610 * time.Second},
		{[]string{"call", "scene.describe"}, "POST", "/call", `{"command":"scene.describe","args":{}}`, 70 * time.Second},
		{[]string{"call", "scene.describe", `{"limit":5}`, "--timeout", "1.5"}, "POST", "/call",
			`{"command":"scene.describe","args":{"limit":5},"timeoutMs":1500}`, 11500 * time.Millisecond},
		{[]string{"call", "x", "--timeout=600"}, "POST", "/call", `{"command":"x","args":{},"timeoutMs":600000}`, 610 * time.Second},
		{[]string{"call", "x", "--timeout", "1.0004"}, "POST", "/call", `{"command":"x","args":{},"timeoutMs":1000}`, 11 * time.Second},
	}
	for _, tt := range tests {
		a, err := parse(tt.args)
		if err != nil {
			t.Fatalf("parse(%q) = %v", tt.args, err)
		}
		r, err := request(a)
		if err != nil {
			t.Errorf("request(%q) = %v", tt.args, err)
			continue
		}
		var body string
		if r.Body != nil {
			b, _ := json.Marshal(r.Body)
			body = string(b)
		}
		if r.Method != tt.method || r.Path != tt.path || body != tt.body || r.Timeout != tt.timeout {
			t.Errorf("request(%q) = %s %s %s within %v; want %s %s %s within %v",
				tt.args, r.Method, r.Path, body, r.Timeout, tt.method, tt.path, tt.body, tt.timeout)
		}
	}
}

// fakeBridge serves h on loopback and writes a session file for it in a
// fresh config dir, which it returns.
func fakeBridge(t testing.TB, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	dir := t.TempDir()
	err := session.Write(dir, session.File{Port: port, Key: "k", Origin: "https://x", PID: os.Getpid(), Protocol: 1,
		StartedAt: session.Timestamp(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// shorten swaps in short shell timeouts for one test.
func shorten(t *testing.T, quick, margin time.Duration) {
	t.Helper()
	old := timeouts
	timeouts.quick, timeouts.margin = quick, margin
	t.Cleanup(func() { timeouts = old })
}

func run(t *testing.T, dir string, args ...string) (code int, stdout map[string]any, stderr string) {
	t.Helper()
	var so, se bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), append([]string{"--config-dir", dir}, args...), strings.NewReader(""), &so, &se)
	}()
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("Main(%q) still running after 20 s: it did not give up", args)
	}
	if err := json.Unmarshal(so.Bytes(), &stdout); err != nil {
		t.Fatalf("Main(%q) stdout %q is not one JSON object: %v", args, so.String(), err)
	}
	return code, stdout, se.String()
}

// The field names are written from the spec and the brief, not taken from
// callBody's tags.
func TestCallSendsTimeoutMs(t *testing.T) {
	var got []map[string]any
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		got = append(got, m)
		io.WriteString(w, `{"ok":true}`)
	})
	for _, args := range [][]string{{"call", "x", "--timeout", "2.25"}, {"call", "x"}} {
		if code, _, stderr := run(t, dir, args...); code != 0 {
			t.Fatalf("Main(%q) = %d, %s; want 0", args, code, stderr)
		}
	}
	if len(got) != 2 || got[0]["timeoutMs"] != float64(2250) || got[0]["command"] != "x" {
		t.Fatalf("bodies = %v, want timeoutMs 2250 in the first", got)
	}
	if _, ok := got[1]["timeoutMs"]; ok {
		t.Errorf("body without --timeout = %v, want no timeoutMs", got[1])
	}
}

// frozen is a bridge handler that answers nothing, or with image true
// sends the start of an image and then nothing more, until the client
// hangs up or release is closed.
func frozen(release <-chan struct{}, image bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices the client hang up
		if image {
			io.WriteString(w, `{"ok":true,"dataUrl":"data:image/png;base64,`+strings.Repeat("AAAA", 10000))
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
}

// frozenBridge is a fakeBridge with a frozen handler, released when the
// test ends, before the server is closed.
func frozenBridge(t *testing.T, image bool) string {
	t.Helper()
	release := make(chan struct{})
	dir := fakeBridge(t, frozen(release, image))
	t.Cleanup(func() { close(release) })
	return dir
}

func TestStatusGivesUpOnFrozenBridge(t *testing.T) {
	shorten(t, 100*time.Millisecond, time.Hour)
	dir := frozenBridge(t, false)
	code, doc, stderr := run(t, dir, "status")
	if code != 1 || doc["ok"] != false || doc["error"] != "no_answer" {
		t.Errorf("status against a frozen bridge = %d, %v; want 1, ok:false, error no_answer", code, doc)
	}
	if !strings.Contains(stderr, "did not answer within 0.1 s") || !strings.Contains(stderr, "stitchslop-bridge: error: the bridge on port ") {
		t.Errorf("status against a frozen bridge: stderr %q, want the port and the time waited", stderr)
	}
}

// call --out against a bridge that stops in the middle of the image: the
// call's own deadline plus the margin, then exit 1 and no file of any kind.
func TestCallOutGivesUpOnFrozenBridge(t *testing.T) {
	shorten(t, time.Hour, 100*time.Millisecond)
	dir := frozenBridge(t, true)
	outDir := t.TempDir()
	code, doc, stderr := run(t, dir, "call", "render", "--timeout", "1", "--out", filepath.Join(outDir, "out.png"))
	if code != 1 || doc["error"] != "no_answer" || !strings.Contains(stderr, "did not answer within 1.1 s") {
		t.Errorf("call --out against a frozen bridge = %d, %v, %q; want 1, no_answer, within 1.1 s", code, doc, stderr)
	}
	if names := listDir(t, outDir); len(names) != 0 {
		t.Errorf("call --out against a frozen bridge left %q, want nothing", names)
	}
}

func TestCallOut(t *testing.T) {
	img := withPNG(bytes.Repeat([]byte("\x89PNG\x00\xff"), 50000)[:300000-len(pngSig)]...)
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true,"width":2,"dataUrl":"data:image/png;base64,`+base64.StdEncoding.EncodeToString(img)+`","say":"hi"}`+"\n")
	})
	out := filepath.Join(t.TempDir(), "out.png")
	code, doc, stderr := run(t, dir, "call", "render", "--out", out)
	if code != 0 {
		t.Fatalf("call --out = %d, %s; want 0", code, stderr)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, img) {
		t.Errorf("call --out wrote %d bytes (%v), want the %d-byte image", len(got), err, len(img))
	}
	if _, ok := doc["dataUrl"]; ok || doc["savedTo"] != out || doc["savedBytes"] != float64(len(img)) || doc["savedType"] != "image/png" || doc["say"] != "hi" {
		t.Errorf("call --out printed %v, want savedTo, savedBytes, savedType in place of dataUrl", doc)
	}
	if !strings.Contains(stderr, "saved 300000 bytes of image/png to "+out) {
		t.Errorf("call --out stderr %q, want word of the saved file", stderr)
	}
}

// A token given to pair on the command line is refused with the command to
// run instead, written by the one rule for a command line (shellLine): the
// flags as given, quoted only where a shell needs it, the token left out;
// said in words when shellLine gives no line.
func TestPairOnTheCommandLineNamesTheLineToRun(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		line string
	}{
		{[]string{"pair", "abc", "--origin", "http://localhost:5173"}, "`STITCHSLOP_TOKEN=<token> stitchslop-bridge pair --origin http://localhost:5173`"},
		{[]string{"pair", "abc", "--port", "8788", "--origin", "http://a b"}, "`STITCHSLOP_TOKEN=<token> stitchslop-bridge pair --port 8788 --origin 'http://a b'`"},
		{[]string{"pair", "abc", "--origin", "x\x1by"}, "Run the same command without the token, with STITCHSLOP_TOKEN=<token> before it"},
	} {
		a, err := parse(tt.argv)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pairRequest(a, strings.NewReader(""))
		if err == nil || !strings.Contains(err.Error(), tt.line) || strings.Contains(err.Error(), "abc") {
			t.Errorf("pair %q: %v; want a usage error naming %s and not the token", tt.argv[1:], err, tt.line)
		}
	}
}
