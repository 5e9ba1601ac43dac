package e2e

// The page writer (issue 19): every frame to the tab is written against a
// deadline of its own. A frame larger than the writer's 64 KiB buffer goes
// to the socket as it is written, not at the flush; written against the
// deadline of the last flush, long expired after 10 s of quiet, it closed
// a healthy tab's socket (1006) and the call came back disconnected.

import (
	"bytes"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeWait is the bridge's bound on one write to the tab
// (security/limits.WriteWait), written out here rather than imported.
const writeWait = 10 * time.Second

// quietTab is an MCP bridge with a tab attached that has then been left
// quiet for longer than writeWait: nothing written to it since its hello.
// The wait is the point of the test, so it is real time.
func quietTab(t *testing.T) (*bridge, *page) {
	t.Helper()
	b, p := mcpTab(t, "")
	time.Sleep(writeWait + 2*time.Second)
	if p.closed() {
		t.Fatalf("the tab was dropped while quiet; stderr:\n%s", b.stderr)
	}
	return b, p
}

// A tools/call whose arguments are over 64 KB, after the tab has been
// quiet past the write deadline: the tab gets the frame whole and the call
// returns the tab's answer.
func TestSec_LargeFrameAfterQuiet(t *testing.T) {
	t.Parallel()
	b, p := quietTab(t)
	pad := strings.Repeat("x", 100<<10)
	from := p.frames.len()
	r := b.rpc.toolCall("scene.describe", map[string]any{"pad": pad})
	if r.IsError || !strings.Contains(r.text(), "3 shapes") {
		t.Fatalf("tools/call with %d KB of arguments after %v of quiet: %.300q, want the tab's answer; stderr:\n%s",
			len(pad)>>10, writeWait+2*time.Second, r.text(), b.stderr)
	}
	f, _ := p.command(from)
	if args, _ := f.m["args"].(map[string]any); args["pad"] != pad {
		t.Errorf("the tab got a frame of %d bytes, want the %d KB pad whole", len(f.raw), len(pad)>>10)
	}
	b.mustRun()
}

// call_with_file of a 200 KB PNG after the same quiet: the tab gets the
// file whole as a data URL, and the call returns the tab's answer.
func TestSec_LargeFileAfterQuiet(t *testing.T) {
	t.Parallel()
	png := append(append([]byte{}, pngBytes...), bytes.Repeat([]byte{0x5a}, 200<<10)...)
	path := writeFile(t, filepath.Join(t.TempDir(), "big.png"), png)
	b, p := quietTab(t)
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "design.import" {
			return map[string]any{"ok": true, "say": "Imported."}
		}
		return defaultHandler(cmd, args)
	})
	from := p.frames.len()
	r := b.rpc.toolCall("call_with_file", map[string]any{"command": "design.import", "path": path, "fileArg": "design"})
	if r.IsError || !strings.Contains(r.text(), "Imported.") {
		t.Fatalf("call_with_file of a %d KB PNG after %v of quiet: %.300q, want the tab's answer; stderr:\n%s",
			len(png)>>10, writeWait+2*time.Second, r.text(), b.stderr)
	}
	f, _ := p.command(from)
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	if args, _ := f.m["args"].(map[string]any); args["design"] != want {
		t.Errorf("the tab got a frame of %d bytes, want the PNG whole as a data URL (%d bytes)", len(f.raw), len(want))
	}
	b.mustRun()
}
