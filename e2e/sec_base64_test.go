package e2e

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpec3_5_OneBase64Rule: one payload, one outcome on every face that
// saves it. The shell's --out decoded leniently (padding optional, line
// breaks skipped) where --save and call_to_files decoded strictly, so an
// unpadded image was saved by one and refused by the others (issue 34).
// Now each takes files.Base64: what base64.StdEncoding writes, and nothing
// else (docs/protocol.md §3.5).
func TestSpec3_5_OneBase64Rule(t *testing.T) {
	t.Parallel()
	padded := base64.StdEncoding.EncodeToString(pngBytes)
	for name, tt := range map[string]struct {
		payload string
		saved   bool
		why     string // of a refusal, on every face
	}{
		"Padded":   {padded, true, ""},
		"Unpadded": {strings.TrimRight(padded, "="), false, "bad base64"},
		// Line breaks are JSON escapes, which no browser writes in a data
		// URL: refused as such (envelope.EscapedDataURL), on every face too.
		"WithLineBreaks": {padded[:8] + `\r\n` + padded[8:], false, "JSON escape"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := "data:image/png;base64," + tt.payload
			answer := `{"ok":true,"dataUrl":"` + url + `","files":[{"name":"a.png","dataUrl":"` + url + `"}]}`
			want := func(face string, n int, files []string) {
				t.Helper()
				if tt.saved && len(files) != n || !tt.saved && len(files) != 0 {
					t.Errorf("%s saved %q of %s; want the rule's one outcome: saved %v", face, files, name, tt.saved)
				}
			}
			dir := filepath.Join(t.TempDir(), "cfg")
			(&fakeLeader{call: func(string) []byte { return []byte(answer) }}).start(t, dir)

			out := t.TempDir()
			r := runCLI(t, "--config-dir", dir, "call", "render.png", "--out", filepath.Join(out, "out.png"))
			want("call --out", 1, dirNames(t, out))
			if !tt.saved && (r.code == 0 || !strings.Contains(r.stderr, tt.why)) {
				t.Errorf("call --out: exit %d, stderr %.300s; want exit 1 and %s", r.code, r.stderr, tt.why)
			}

			out = t.TempDir()
			r = runCLI(t, "--config-dir", dir, "call", "design.export", "--save", out)
			want("call --save", 1, dirNames(t, out))
			if !tt.saved && !strings.Contains(r.stdout, tt.why) {
				t.Errorf("call --save: stdout %.300s; want the entry's error, %s", r.stdout, tt.why)
			}

			b, p := mcpTab(t, "")
			p.serve(silent)
			out = t.TempDir()
			at := p.frames.len()
			id := b.rpc.request("tools/call", map[string]any{"name": "call_to_files",
				"arguments": map[string]any{"command": "design.export", "dir": out, "fileName": "b.png"}})
			f, _ := p.command(at)
			p.sendText(`{"id":` + string(f.id) + `,` + strings.TrimPrefix(answer, "{"))
			var res toolResult
			b.rpc.result(b.rpc.response(id), &res)
			want("call_to_files", 2, dirNames(t, out))
			if !tt.saved && !strings.Contains(res.text(), tt.why) {
				t.Errorf("call_to_files: text %.300q; want %s", res.text(), tt.why)
			}
		})
	}
}
