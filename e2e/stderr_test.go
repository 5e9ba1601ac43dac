package e2e

// stderr is an exit like stdout (issue 34 item 4; THREAT_MODEL T8, T9): a
// page's words reach it cut at the gate's bound with a note of what was
// left out, and a page's events (tool lists, connections) are counted, one
// line per kind per window, not written one line each.

import (
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

// stderrBound is what one line of a page's words may cost stderr:
// ui.MaxPiece for the message, and room for the note and the bridge's words.
const stderrBound = ui.MaxPiece + 4<<10

// leftOut is the gate's note on a text it cut.
const leftOut = "more bytes of this text were left out]"

// A page's ok:false message of 5 MB: the shell's call prints it cut on
// stdout (the gate), and on stderr too.
func TestSec_CallStderrBoundsAPagesMessage(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	huge := strings.Repeat("x", 5<<20)
	p.serve(func(string, map[string]any) map[string]any { return refusedBy(huge) })
	b.awaitStatus("tools listed", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })
	r := b.cli("call", "scene.describe", "{}")
	if r.code != 1 {
		t.Errorf("call answered ok:false: exit %d, want 1", r.code)
	}
	if len(r.stderr) > stderrBound {
		t.Errorf("call wrote %d bytes to stderr for a 5 MB message, want at most %d", len(r.stderr), stderrBound)
	}
	if !strings.Contains(r.stderr, leftOut) {
		t.Errorf("call's stderr has no note of what was left out: %.300q", r.stderr)
	}
}

// listen's error line names the tab's refusal and its message, 5 MB here;
// a failure it retries names the tab's error and message in its warning,
// 5 MB each.
func TestSec_ListenStderrBoundsAPagesRefusal(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPageListing(t, b, map[string]any{"token": tok}, voiceTools)
	huge := strings.Repeat("x", 5<<20)
	var asks atomic.Int32
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd != "voice.listen" {
			return defaultHandler(cmd, args)
		}
		if asks.Add(1) == 1 {
			return map[string]any{"ok": false, "error": huge, "message": huge}
		}
		return refusedBy(huge)
	})
	b.awaitConnected(true)
	l := startCLI(t, "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "listen")
	select {
	case <-l.done:
	case <-time.After(2 * guard):
		t.Fatalf("listen did not exit after the tab refused; %d bytes of stderr", len(l.stderr.String()))
	}
	if l.code != 1 {
		t.Errorf("listen after the tab refused: exit %d, want 1", l.code)
	}
	se := l.stderr.String()
	// The warning and the error line: each cut at the bound.
	if len(se) > 2*stderrBound {
		t.Errorf("listen wrote %d bytes to stderr for 15 MB of the tab's words, want at most %d", len(se), 2*stderrBound)
	}
	if n := strings.Count(se, leftOut); n != 2 {
		t.Errorf("listen's stderr has %d notes of what was left out, want 2 (the failure, the refusal): %.300q", n, se)
	}
}

// pageLines counts the bridge's stderr lines that hold any of words.
func pageLines(b *bridge, words ...string) (n int, some []string) {
	for _, l := range b.stderr.lines.all() {
		for _, w := range words {
			if strings.Contains(l, w) {
				n++
				if len(some) < 8 {
					some = append(some, l)
				}
				break
			}
		}
	}
	return n, some
}

// perWindow is how many lines a counted flood of one kind may write over
// d: the first, and one count per window it lasted (ui.RepeatWindow, 10 s),
// and the one written at the exit.
func perWindow(d time.Duration) int { return 2 + int(d/(10*time.Second)) }

// 20,000 frames of {"tools":[]} wrote 20,000 lines (issue 34).
func TestSec_ToolListFloodIsCountedOnStderr(t *testing.T) {
	if testing.Short() {
		t.Skip("floods 20,000 frames")
	}
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	start := time.Now()
	const n = 20_000
	for range n {
		p.sendText(`{"tools":[]}`)
	}
	// Frames are read in order: once this list is in, all the rest are.
	p.mustSend(map[string]any{"tools": withTools("last")})
	b.awaitStatus("the last tool list", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 3 })
	took := time.Since(start)
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0", code)
	}
	lines, some := pageLines(b, "tool list")
	t.Logf("%d tool lists in %v wrote %d stderr lines: %q", n+2, took, lines, some)
	if lines > perWindow(took) {
		t.Errorf("%d tool lists in %v wrote %d stderr lines about them, want at most %d (one per window)", n+2, took, lines, perWindow(took))
	}
	if all := b.stderr.lines.len(); all > 20+lines {
		t.Errorf("%d tool lists: %d stderr lines in all", n+2, all)
	}
}

// 1,000 reconnections wrote 2,000 lines (issue 34).
func TestSec_ReconnectionFloodIsCountedOnStderr(t *testing.T) {
	if testing.Short() {
		t.Skip("reconnects 1,000 times")
	}
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, args: []string{"--takeover"}})
	p, hello := connectPage(t, b, map[string]any{"token": tok})
	secret := hello.str("pairingSecret")
	if secret == "" {
		t.Fatalf("hello %s: no pairing secret", hello.raw)
	}
	start := time.Now()
	const n = 1000
	for i := range n {
		next := openPage(t, b.port, true)
		if f := next.handshake(map[string]any{"secret": secret}); f.str("hello") == "" {
			t.Fatalf("reconnection %d: %s, want hello", i, f.raw)
		}
		p.conn.Close()
		<-p.gone
		p = next
	}
	b.awaitConnected(true)
	took := time.Since(start)
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0", code)
	}
	kinds := []string{"tab connected", "tab disconnected", "displaced"}
	lines, some := pageLines(b, kinds...)
	// The stop's own disconnection is no reconnection: written before the
	// exit's counts, it is among them; after, a line of its own.
	if stop, _ := pageLines(b, `reason="the bridge is stopping"`); stop > 0 {
		lines -= stop
	}
	t.Logf("%d reconnections in %v wrote %d stderr lines about them: %q", n, took, lines, some)
	if max := len(kinds) * perWindow(took); lines > max {
		t.Errorf("%d reconnections in %v wrote %d stderr lines about them, want at most %d (one per kind per window)", n, took, lines, max)
	}
	if all := b.stderr.lines.len(); all > 20+lines {
		t.Errorf("%d reconnections: %d stderr lines in all", n, all)
	}
}

// 5,000 identical tool lists sent 349 tools/list_changed (issue 34): the
// list changed once, so the client is told once.
func TestSpec3_3_SameToolListNotifiesOnce(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, mcp: true})
	b.rpc.initialize()
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	first := b.rpc.awaitListChanged(0)
	const n = 5000
	for range n {
		p.mustSend(map[string]any{"tools": defaultTools})
	}
	// Frames are read in order: once this list is in, all the rest are,
	// and its change is notified.
	p.mustSend(map[string]any{"tools": withTools("last")})
	b.awaitStatus("the last tool list", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 3 })
	b.rpc.awaitListChanged(first + 1)
	b.rpc.call("ping", nil)
	var got int
	for _, m := range b.rpc.msgs.all()[first+1:] {
		if m.method() == listChanged {
			got++
		}
	}
	if got != 1 {
		t.Errorf("%d tool lists the same as the first, then one other: %d more %s, want 1", n, got, listChanged)
	}
}
