//go:build linux

package e2e

// The memory one hostile reply costs the bridge and the shell (issue 34
// item 3: at most twice the reply's size, peak), read from Linux's
// /proc (VmHWM) and getrusage (ru_maxrss, KiB on Linux).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// peakKB is a live process's peak resident set (VmHWM), in KiB.
func peakKB(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("the bridge's peak memory: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err == nil {
				return n
			}
		}
	}
	t.Fatalf("/proc/%d/status has no VmHWM", pid)
	return 0
}

// TestAttack30_GreetingOfLongSayCostsAtMostTwiceTheReply: the greeting
// (wait_for_connection) describes the canvas from the tab's scene.describe,
// its say line clipped to a few hundred characters by internal/mcp's clip,
// which makes the whole say a []rune first: four bytes a character. A say
// of 40 MB cost the bridge +247 MB for a line it prints 400 characters of,
// where a plain scene.describe call of the same reply costs it +74 MB;
// here 16 MB, which a bridge under -race on a busy machine answers in time.
// Fails on main (numbers in the message).
func TestAttack30_GreetingOfLongSayCostsAtMostTwiceTheReply(t *testing.T) {
	// Not parallel: a peak is measured, and three tests of tens of
	// megabytes at once under -race starve each other.
	const size = 16 << 20
	say, _ := json.Marshal(strings.Repeat("a", size)) // once, not per call
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd != "scene.describe" {
			return defaultHandler(cmd, args)
		}
		return map[string]any{"ok": true, "say": json.RawMessage(say), "items": []any{}}
	})
	b.awaitConnected(true)
	before := peakKB(t, b.pid())
	g := b.rpc.toolCallWithin("wait_for_connection", map[string]any{"timeoutSeconds": 30}, 2*time.Minute).text()
	if !strings.Contains(g, "The canvas (scene.describe): aaa") {
		t.Fatalf("the greeting did not describe the canvas: %.300q", g)
	}
	after := peakKB(t, b.pid())
	bound := 2*size>>10 + 8<<10 // twice the reply, as a plain call of it costs, and 8 MiB of slack
	if raceEnabled {
		bound *= 2 // the race detector's shadow of the heap
	}
	t.Logf("say %d KiB; bridge peak %d KiB before the greeting, %d after", size>>10, before, after)
	if after-before > bound {
		t.Errorf("the greeting of a %d KiB say took the bridge from %d to %d KiB (+%d), want at most twice the reply (+%d KiB)", size>>10, before, after, after-before, bound)
	}
}

// rawReply sends body, a JSON object's members after its id, as the
// page's answer to the command f: raw, so no encoder of the test's
// rewrites a byte of a reply of tens of megabytes.
func rawReply(t *testing.T, p *page, f frame, body string) {
	t.Helper()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if err := p.conn.WriteMessage(websocket.TextMessage, []byte(`{"id":`+string(f.id)+`,`+body+`}`)); err != nil {
		t.Fatalf("page send: %v", err)
	}
}

// bigFileReply is a reply of about 60 MB: one file of the files list, a
// data URL of 45 MB of bytes.
func bigFileReply() string {
	const size = 60 << 20
	return `"ok":true,"files":[{"name":"a.dst","dataUrl":"data:application/octet-stream;base64,` + strings.Repeat("PDw8", size/4) + `"}]`
}

// TestAttack30_CallToFilesOf60MBFileCostsAtMostTwiceTheReply: issue 34
// item 3 bounds what saving a 60 MB reply costs at twice the reply's
// size, peak. A reply of `<` as text holds it (+112 MB); one whose 60 MB
// are a file's data URL, the very thing call_to_files is for, does not.
// Fails on main: the bridge goes from 11,472 to 181,504 KiB (+170 MB for
// a 60 MB reply; 30,268 to 642,460 KiB under -race).
func TestAttack30_CallToFilesOf60MBFileCostsAtMostTwiceTheReply(t *testing.T) {
	// Not parallel: a peak is measured, and three tests of tens of
	// megabytes at once under -race starve each other.
	body := bigFileReply()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "scene.describe" {
			return nil // answered raw below
		}
		return defaultHandler(cmd, args)
	})
	before := peakKB(t, b.pid())
	from := len(p.frames.all())
	dir := t.TempDir()
	id := b.rpc.request("tools/call", map[string]any{"name": "call_to_files", "arguments": map[string]any{"command": "scene.describe", "dir": dir}})
	f, _ := p.frameAt(from, func(f frame) bool { return f.str("command") == "scene.describe" })
	rawReply(t, p, f, body)
	b.rpc.responseWithin(id, 2*time.Minute)
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Fatalf("call_to_files saved %d files, want 1", len(names))
	}
	after := peakKB(t, b.pid())
	bound := 2 * len(body) >> 10
	if raceEnabled {
		bound *= 2 // the race detector's shadow of the heap
	}
	if after-before > bound {
		t.Errorf("call_to_files of a %d KiB reply took the bridge from %d to %d KiB (+%d), want at most twice the reply (+%d KiB)", len(body)>>10, before, after, after-before, bound)
	}
}

// TestAttack30_ShellSaveOf60MBFileCostsAtMostTwiceTheReply: the same
// bound for the shell: `call --save DIR` of a reply whose 60 MB are one
// file's data URL. Fails on main: the shell peaks at 181,192 KiB (a
// plain `call` of the same reply at 205,132 KiB, so the cost is in reading
// the reply, not in saving it).
func TestAttack30_ShellSaveOf60MBFileCostsAtMostTwiceTheReply(t *testing.T) {
	// Not parallel: a peak is measured, and three tests of tens of
	// megabytes at once under -race starve each other.
	body := bigFileReply()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "scene.describe" {
			return nil // answered raw below
		}
		return defaultHandler(cmd, args)
	})
	b.awaitConnected(true)
	from := len(p.frames.all())
	dir := t.TempDir()
	args := []string{"--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "call", "scene.describe", "--save", dir}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binFor(args), args...)
	cmd.Env = childEnv(t.TempDir())
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f, _ := p.frameAt(from, func(f frame) bool { return f.str("command") == "scene.describe" })
	rawReply(t, p, f, body)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("call --save: exit %d, stderr %s", code, truncate(se.String(), 400))
	}
	peak := int(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) // KiB on Linux
	bound := 2 * len(body) >> 10
	if raceEnabled {
		bound *= 2 // the race detector's shadow of the heap
	}
	if peak > bound {
		t.Errorf("call --save of a %d KiB reply peaked at %d KiB, want at most twice the reply (%d KiB)", len(body)>>10, peak, bound)
	}
}
