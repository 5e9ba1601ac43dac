package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSpec4_4_SavedToNeverCut: what the shell saved is said whatever the
// page's reply spent (docs/protocol.md §4.4). The shell bounds a reply's
// members (2,000 of them, about 200 KB); the members it writes itself,
// savedTo, savedBytes and savedType for --out and textSavedTo for
// --text-file, came after the page's and fell past that cut into the
// note, so a wide or heavy reply hid where its image went. Now they come
// after the note, never cut, and the note still counts only the page's
// members it left out.
func TestSpec4_4_SavedToNeverCut(t *testing.T) {
	t.Parallel()
	wide := map[string]any{"ok": true, "text": "Three colours.\n"}
	for i := range 2500 {
		wide[fmt.Sprintf("m%04d", i)] = i
	}
	heavy := map[string]any{"ok": true, "text": "Three colours.\n"}
	for i := range 4 {
		heavy[fmt.Sprintf("big%d", i)] = strings.Repeat("x", 90_000) // each under the gate's 100,000, the four over its 200 KB
	}
	replies := map[string]map[string]any{"wide": wide, "heavy": heavy}
	tab := func(cmd string, _ map[string]any) map[string]any {
		r := map[string]any{"dataUrl": b64URL("image/png", pngBytes)}
		for k, v := range replies[cmd] {
			r[k] = v
		}
		return r
	}
	_, _, base := cliTab(t, tab)
	note := regexp.MustCompile(`^\[bridge: ([0-9,]+) more members were left out here`)
	// cut checks that d holds the page's note of what was left out, and
	// that the page's members shown and those it counts are the page's
	// all: the bridge's own members are neither.
	cut := func(t *testing.T, d map[string]any, own int, pageMembers int) {
		t.Helper()
		s, _ := d["[bridge]"].(string)
		m := note.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("stdout has no note of members left out: [bridge] = %.200q", s)
		}
		left, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if shown := len(d) - 1 - own; shown+left != pageMembers {
			t.Errorf("%d page members shown and %d said left out, want %d in all", shown, left, pageMembers)
		}
	}
	for _, tc := range []struct {
		cmd   string
		pageN int // the page's members the shell prints or counts: all but the one saved (dataUrl, or text)
	}{{"wide", 2503}, {"heavy", 7}} {
		t.Run(tc.cmd+"/out", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.png")
			r := runCLI(t, append(base, "call", tc.cmd, "--out", out)...)
			d := r.doc(t)
			if r.code != 0 || d["savedTo"] != out || d["savedBytes"] != float64(len(pngBytes)) || d["savedType"] != "image/png" {
				t.Fatalf("call %s --out: exit %d, savedTo %v, savedBytes %v, savedType %v; want 0, %s, %d, image/png",
					tc.cmd, r.code, d["savedTo"], d["savedBytes"], d["savedType"], out, len(pngBytes))
			}
			cut(t, d, 3, tc.pageN)
		})
		t.Run(tc.cmd+"/save", func(t *testing.T) {
			dir := t.TempDir()
			r := runCLI(t, append(base, "call", tc.cmd, "--save", dir, "--text-file", "notes.txt")...)
			d := r.doc(t)
			if want := filepath.Join(dir, "notes.stitchslop.txt"); r.code != 0 || d["textSavedTo"] != want {
				t.Fatalf("call %s --save --text-file: exit %d, textSavedTo %v; want 0, %s", tc.cmd, r.code, d["textSavedTo"], want)
			}
			cut(t, d, 1, tc.pageN)
		})
	}
	// call_to_files says what it saved in a block of its own after the
	// reply's, which the reply's members do not spend (§7.15).
	t.Run("wide/call_to_files", func(t *testing.T) {
		b, p := mcpTab(t, "")
		p.serve(tab)
		dir := t.TempDir()
		res := b.rpc.toolCallWithin("call_to_files", map[string]any{"command": "wide", "dir": dir, "fileName": "b.png"}, 30*time.Second)
		saved := "dataUrl -> " + strconv.Quote(filepath.Join(dir, "b.stitchslop.png"))
		if n := len(res.Content); res.IsError || n < 2 || !strings.Contains(res.Content[0].Text, "more members were left out") || !strings.Contains(res.Content[n-1].Text, saved) {
			t.Errorf("call_to_files of a wide reply: isError %v, %d blocks, %.300q; want the reply cut and a last block saying %s", res.IsError, n, res.Content, saved)
		}
	})
}
