//go:build linux

package e2e

// The memory one hostile reply costs the bridge and the shell (issue 34
// item 3: at most twice the reply's size, peak; THREAT_MODEL.md T9), read
// from Linux's /proc (VmHWM) and getrusage (ru_maxrss, KiB on Linux).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// peakKB is a live process's peak resident set (VmHWM), in KiB; pid 0 is
// this process.
func peakKB(t *testing.T, pid int) int {
	t.Helper()
	who := strconv.Itoa(pid)
	if pid == 0 {
		who = "self"
	}
	data, err := os.ReadFile("/proc/" + who + "/status")
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

// resetPeak sets this process's peak resident set back to what it holds
// now, after a collection, so that a child started next is measured by its
// own memory, not this process's peak (see
// TestSec_ShellSaveOf60MBFileCostsAtMostTwiceTheReply).
func resetPeak(t *testing.T) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset this process's peak memory (Linux 4.0 and later): %v", err)
	}
}

// raceMemory is what the race detector multiplies a process's memory by:
// a plain call of bigFileReply (nothing saved) costs the bridge +384 MB
// under -race, +95 MB without, so a bound of the code is that many times
// larger there.
const raceMemory = 4

// rawReply sends body, a JSON object's members after its id, as the
// page's answer to the command f: raw, so no encoder of the test's
// rewrites a byte of a reply of tens of megabytes.
func rawReply(t *testing.T, p *page, f frame, body string) {
	t.Helper()
	sendBig(t, p, `{"id":`+string(f.id)+`,`+body+`}`)
}

// sendBig sends msg, a frame of tens of megabytes, with time for it under
// -race on a busy machine.
func sendBig(t *testing.T, p *page, msg string) {
	t.Helper()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if err := p.conn.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatalf("page send: %v", err)
	}
}

const bigFileSize = 60 << 20

// bigFileReply is a reply of about 60 MB: one file of the files list, a
// data URL of 45 MB of bytes, comma its comma (or the escape \u002c: the
// same value to a JSON reader, which the bridge refuses to read).
func bigFileReply(comma string) string {
	return `"ok":true,"files":[{"name":"a.dst","dataUrl":"data:application/octet-stream;base64` + comma + strings.Repeat("PDw8", bigFileSize/4) + `"}]`
}

// TestSec_CallToFilesOf60MBFileCostsAtMostTwiceTheReply: issue 34 item 3
// bounds what saving a 60 MB reply costs at twice the reply's size, peak
// (T9). A reply of `<` as text held it (+112 MB); one whose 60 MB are a
// file's data URL, the very thing call_to_files is for, did not: before,
// the bridge went from 11,472 to 181,504 KiB (+170 MB for a 60 MB reply;
// 30,268 to 642,460 KiB under -race): the frame read into a buffer that
// doubled (128 MB allocated for it), the data URL copied out of the reply
// as a string, then decoded whole. With one escape in its header (an
// outside attack: +190 MB, decoded copies), it is refused, by name, within
// the same bound.
func TestSec_CallToFilesOf60MBFileCostsAtMostTwiceTheReply(t *testing.T) {
	// Not parallel: a peak is measured, and three tests of tens of
	// megabytes at once under -race starve each other.
	for _, comma := range []string{",", `\u002c`} {
		t.Run(map[string]string{",": "plain", `\u002c`: "escaped"}[comma], func(t *testing.T) { callToFilesPeak(t, comma) })
	}
}

func callToFilesPeak(t *testing.T, comma string) {
	body := bigFileReply(comma)
	answer, dir, grew, bound := callToFilesGrowth(t, "scene.describe", body)
	names, _ := os.ReadDir(dir)
	switch {
	case comma == "," && len(names) != 1:
		t.Fatalf("call_to_files saved %d files, want 1", len(names))
	case comma != "," && (len(names) != 0 || !strings.Contains(answer, "JSON escape")):
		t.Fatalf("call_to_files of an escaped data URL saved %d files and answered %.300s; want none, and the reason (a JSON escape)", len(names), answer)
	}
	if grew > bound {
		t.Errorf("call_to_files of a %d KiB reply grew the bridge's peak by %d KiB, want at most twice the reply (+%d KiB)", len(body)>>10, grew, bound)
	}
}

// callToFilesGrowth calls call_to_files of command on a new bridge whose
// tab answers body, raw, and returns the answer, the folder the files
// went to, how much the bridge's peak resident set grew (KiB) and the
// bound on that: twice the reply (times raceMemory under -race).
func callToFilesGrowth(t *testing.T, command, body string) (answer, dir string, grew, bound int) {
	t.Helper()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == command {
			return nil // answered raw below
		}
		return defaultHandler(cmd, args)
	})
	before := peakKB(t, b.pid())
	from := len(p.frames.all())
	dir = t.TempDir()
	id := b.rpc.request("tools/call", map[string]any{"name": "call_to_files", "arguments": map[string]any{"command": command, "dir": dir}})
	f, _ := p.frameAt(from, func(f frame) bool { return f.str("command") == command })
	rawReply(t, p, f, body)
	resp := b.rpc.responseWithin(id, 2*time.Minute)
	after := peakKB(t, b.pid())
	bound = 2 * len(body) >> 10
	if raceEnabled {
		bound *= raceMemory
	}
	t.Logf("bridge peak %d KiB before, %d after (+%d; bound +%d)", before, after, after-before, bound)
	return resp.raw, dir, after - before, bound
}

// TestSec_ShellSaveOf60MBFileCostsAtMostTwiceTheReply: the same bound for
// the shell: `call --save DIR` of a reply whose 60 MB are one file's data
// URL. Before, the shell allocated the answer once (its length is given),
// then the data URL again as a string, then the file whole (45 MB).
//
// A child's ru_maxrss on Linux counts its parent's peak too: Go starts
// it with vfork, sharing this process's memory until exec, and the kernel
// keeps that memory's high-water mark as the child's. So this process's
// peak is set back to what it holds now (clear_refs) before the shell
// starts, and the reply is built after: measured without that, a plain
// `call` of the reply seemed to cost the shell 205 MB, this test's own.
func TestSec_ShellSaveOf60MBFileCostsAtMostTwiceTheReply(t *testing.T) {
	// Not parallel: a peak is measured, and three tests of tens of
	// megabytes at once under -race starve each other.
	dir := t.TempDir()
	code, stderr, peak, bound := shellPeak(t, "scene.describe", []string{"--save", dir}, func() string { return bigFileReply(",") })
	if code != 0 {
		t.Fatalf("call --save: exit %d, stderr %s", code, truncate(stderr, 400))
	}
	if peak > bound {
		t.Errorf("call --save of a %d KiB reply peaked at %d KiB, want at most twice the reply (%d KiB)", bigFileSize>>10, peak, bound)
	}
}

// shellPeak runs the shell's `call command extra...` against a new bridge
// whose tab answers with body() sent raw, built only once the shell runs,
// and returns the shell's exit code, its stderr, its peak resident set in
// KiB and the bound on it: twice a reply of bigFileSize, its few bytes of
// JSON aside (times raceMemory under -race).
func shellPeak(t *testing.T, command string, extra []string, body func() string) (code int, stderr string, peak, bound int) {
	t.Helper()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == command {
			return nil // answered raw below
		}
		return defaultHandler(cmd, args)
	})
	b.awaitConnected(true)
	from := len(p.frames.all())
	args := append([]string{"--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "call", command}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binFor(args), args...)
	cmd.Env = childEnv(t.TempDir())
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	resetPeak(t)
	bound = 2 * bigFileSize >> 10
	if raceEnabled {
		bound *= raceMemory
	}
	// Under -race this process keeps the detector's shadow of every test
	// before: over the bound, it hides the shell's own peak.
	self := peakKB(t, 0)
	if self >= bound {
		t.Skipf("this process holds %d KiB, over the bound of %d KiB, so the shell's own peak cannot be told from it", self, bound)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f, _ := p.frameAt(from, func(f frame) bool { return f.str("command") == command })
	rawReply(t, p, f, body())
	cmd.Wait()
	peak = int(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) // KiB on Linux
	t.Logf("this process held %d KiB as the shell started; shell peak %d KiB (bound %d)", self, peak, bound)
	return cmd.ProcessState.ExitCode(), se.String(), peak, bound
}

// TestSec_T9_GreetingOfLongSayCostsNoMoreThanACallOfIt: the greeting
// (wait_for_connection) describes the canvas from the tab's scene.describe,
// its say line clipped to a few hundred characters by internal/mcp's clip.
// At 4cbdb1e clip made the whole say a []rune first, four bytes a
// character: a say of 40 MB cost the bridge +247 MB for a line it prints
// 400 characters of. Here 16 MB, which a bridge under -race on a busy
// machine answers in time; the greeting may cost what a plain call of the
// same reply costs (reading it: issue 34 item 3 bounds that at twice the
// reply) and one copy of the say more, no more. It failed then: the
// greeting +100,000 KiB against the call's +34,000 to +37,000 (under
// -race +183,000 against +150,000 to +159,000); now both are the call's.
func TestSec_T9_GreetingOfLongSayCostsNoMoreThanACallOfIt(t *testing.T) {
	// Not parallel: a peak is measured, and tests of tens of megabytes at
	// once under -race starve each other.
	if raceEnabled {
		// The detector's shadow memory makes a call of this reply cost
		// +150 to +180 MB and the greeting's difference from it move by
		// more than the say (+0 to +50 MB in .ci/run): no bound tells the
		// old clip from the new there. internal/mcp's
		// TestClipCutsBeforeItCleans holds the cause under -race too.
		t.Skip("a peak under -race does not tell the greeting's cost from the race detector's")
	}
	const size = 16 << 20
	say, _ := json.Marshal(strings.Repeat("a", size)) // once, not per bridge
	// cost is the growth of a new bridge's peak memory over tool's call,
	// its tab answering scene.describe with the long say.
	cost := func(t *testing.T, tool string, args map[string]any) (int, string) {
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
		text := b.rpc.toolCallWithin(tool, args, 2*time.Minute).text()
		return peakKB(t, b.pid()) - before, text
	}
	var call, greeting int
	t.Run("call", func(t *testing.T) {
		var text string
		if call, text = cost(t, "scene.describe", map[string]any{}); !strings.Contains(text, `"ok":true`) {
			t.Fatalf("the call did not answer the tab's reply: %.300q", text)
		}
	})
	t.Run("greeting", func(t *testing.T) {
		var text string
		if greeting, text = cost(t, "wait_for_connection", map[string]any{"timeoutSeconds": 30}); !strings.Contains(text, "The canvas (scene.describe): aaa") {
			t.Fatalf("the greeting did not describe the canvas: %.300q", text[max(0, strings.Index(text, "scene.describe")-40):])
		}
	})
	t.Logf("say %d KiB; the bridge's peak grew %d KiB for a call of it, %d KiB for the greeting", size>>10, call, greeting)
	if slack := size >> 10; greeting > call+slack { // one copy of the say, and the noise of a GC's timing
		t.Errorf("the greeting of a %d KiB say grew the bridge's peak by %d KiB, a call of the same reply by %d: want at most %d KiB more", size>>10, greeting, call, slack)
	}
}
