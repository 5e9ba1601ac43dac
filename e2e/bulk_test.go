package e2e

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The bulk guard (reference notes, "Bulk guard"; THREAT_MODEL.md T8, T9): a
// page's reply must not flood the model's context. Over MCP, and from the
// shell's call unless --raw, a data URL over 2,048 characters (other than
// the image block) and any string over 100,000 are replaced by a note that
// says what was there and how to get it. The limits and wording are written
// here from the brief, not imported.

const (
	bulkBig      = 3 << 20 // a 3 MB string: 3,145,728 characters
	bulkBigChars = "3,145,728"
)

// bulkImage is 3 MB of base64 that starts as a PNG does: an image block,
// and --out, take only what is the image it claims to be.
var bulkImage = "iVBORw0KGgoAAAAN" + strings.Repeat("QUJD", bulkBig/4-4)

// bulkPage answers: dump with a 3 MB string and a 3,000-character data URL
// among ordinary members; render with a 3 MB image; fail with ok:false and
// a 3 MB message.
func bulkPage(cmd string, _ map[string]any) map[string]any {
	big := strings.Repeat("x", bulkBig)
	switch cmd {
	case "dump":
		return map[string]any{"ok": true, "say": "Here it is.", "text": big, "count": 2,
			"members": []any{map[string]any{"name": "a", "dataUrl": "data:image/png;base64," + strings.Repeat("A", 3000-22)}, map[string]any{"name": "b"}}}
	case "render":
		return map[string]any{"ok": true, "width": 2, "dataUrl": "data:image/png;base64," + bulkImage}
	case "fail":
		return map[string]any{"ok": false, "error": "too_big", "message": big}
	}
	return map[string]any{"ok": true}
}

// wantNote checks that s is the guard's note for a string of chars
// characters at path, saying how to get it whole.
func wantNote(t *testing.T, what string, v any, chars, path, how string) {
	t.Helper()
	s, _ := v.(string)
	if !strings.HasPrefix(s, "[bridge: a "+chars+"-character ") || !strings.Contains(s, "("+path+")") || !strings.Contains(s, how) || strings.Contains(s, "\n") {
		t.Errorf("%s = %.300q, want a one-line note of %s characters (%s) naming %q", what, s, chars, path, how)
	}
}

// Over MCP the model gets a note in place of the 3 MB string and the long
// data URL, the rest of the envelope intact; the top-level image still
// arrives whole as an image block; ok:false is still isError.
func TestRef_BulkGuardModelGetsANote(t *testing.T) {
	t.Parallel()
	b, p := mcpTabListing(t, "", withTools("dump", "render", "fail"))
	p.serve(bulkPage)

	r := b.rpc.toolCall("dump", map[string]any{})
	say, env := r.envelope(t)
	if r.IsError || say != "Here it is." || env["ok"] != true || env["count"] != float64(2) || env["say"] != "Here it is." {
		t.Errorf("dump: isError %v, say %q, envelope %.300v; want the rest intact", r.IsError, say, env)
	}
	wantNote(t, "text", env["text"], bulkBigChars, "at text", "call_to_files")
	members, _ := env["members"].([]any)
	if len(members) != 2 {
		t.Fatalf("members = %.300v, want both", env["members"])
	}
	m0, _ := members[0].(map[string]any)
	wantNote(t, "members[0].dataUrl", m0["dataUrl"], "3,000", "at members.0.dataUrl", "call_to_files")
	if m0["name"] != "a" || members[1].(map[string]any)["name"] != "b" {
		t.Errorf("members = %.300v, want their other members intact", members)
	}
	if n := len(r.text()); n > 4000 {
		t.Errorf("dump: the model got %d characters of text, want a few hundred", n)
	}

	r = b.rpc.toolCall("render", map[string]any{})
	if len(r.Content) != 2 || r.Content[1].Type != "image" || r.Content[1].Data != bulkImage {
		t.Errorf("render: got %d blocks, want text and the 3 MB image whole", len(r.Content))
	}
	if _, env := r.envelope(t); env["width"] != float64(2) || env["dataUrl"] != nil {
		t.Errorf("render text envelope = %.300v, want width and no dataUrl", env)
	}

	r = b.rpc.toolCall("fail", map[string]any{})
	_, env = r.envelope(t)
	if !r.IsError || env["error"] != "too_big" {
		t.Errorf("fail: isError %v, envelope %.300v; want isError and the error kept", r.IsError, env)
	}
	wantNote(t, "message", env["message"], bulkBigChars, "at message", "call_to_files")
}

// The shell's call prints the note by default and the whole reply with
// --raw; exit codes follow ok (§4.4); --raw goes only with call; the
// control plane's /call stays verbatim (§4.2).
func TestRef_BulkGuardShellCallNoteByDefaultWholeWithRaw(t *testing.T) {
	t.Parallel()
	b := bulkBridge(t)
	big := strings.Repeat("x", bulkBig)

	r := b.cli("call", "dump")
	if r.code != 0 {
		t.Fatalf("call dump: exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	d := r.doc(t)
	wantNote(t, "call dump: text", d["text"], bulkBigChars, "at text", "--raw")
	if d["count"] != float64(2) || d["say"] != "Here it is." || len(r.stdout) > 4000 {
		t.Errorf("call dump printed %d bytes, %.300v; want a short envelope with the rest intact", len(r.stdout), d)
	}

	r = b.cli("call", "dump", "--raw")
	if r.code != 0 {
		t.Fatalf("call dump --raw: exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	if d := r.doc(t); d["text"] != big || d["members"].([]any)[0].(map[string]any)["dataUrl"] != "data:image/png;base64,"+strings.Repeat("A", 3000-22) {
		t.Errorf("call dump --raw: printed %d bytes, want the 3 MB string and the data URL whole", len(r.stdout))
	}

	r = b.cli("call", "fail")
	if r.code != 1 {
		t.Errorf("call fail: exit %d, want 1 (ok:false)", r.code)
	}
	wantNote(t, "call fail: message", r.doc(t)["message"], bulkBigChars, "at message", "--raw")
	if r = b.cli("call", "fail", "--raw"); r.code != 1 || r.doc(t)["message"] != big {
		t.Errorf("call fail --raw: exit %d, want 1 and the message whole", r.code)
	}

	// Without --out a 3 MB image is left out with word of --out; with
	// --out and --raw it is saved and the rest printed whole.
	r = b.cli("call", "render")
	wantNote(t, "call render: dataUrl", r.doc(t)["dataUrl"], "3,145,750", "at dataUrl", "--out FILE")
	out := t.TempDir() + "/render.png"
	if r = b.cli("call", "render", "--out", out, "--raw"); r.code != 0 || r.doc(t)["savedTo"] != out {
		t.Errorf("call render --out --raw: exit %d, stdout %.300s; want 0 and savedTo", r.code, r.stdout)
	}

	_, env := b.ctl("POST", "/call", map[string]any{"command": "dump", "args": map[string]any{}})
	if env["text"] != big {
		t.Errorf("POST /call: text is %d characters, want the 3 MB string verbatim", len(env["text"].(string)))
	}

	for _, verb := range [][]string{{"status", "--raw"}, {"tools", "--raw"}, {"wait", "1", "--raw"}} {
		if r := b.cli(verb...); r.code != 64 {
			t.Errorf("%v: exit %d, want 64 (--raw goes with call)", verb, r.code)
		}
	}
}

// The image the shell saves with --out is the page's, guard or no guard.
func TestRef_BulkGuardOutSavesTheWholeImage(t *testing.T) {
	t.Parallel()
	b := bulkBridge(t)
	want, _ := base64.StdEncoding.DecodeString(bulkImage)
	dir := t.TempDir()
	r := runCLIIn(t, dir, "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "call", "render", "--out", "render.png")
	if r.code != 0 {
		t.Fatalf("call render --out: exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	if d := r.doc(t); d["savedBytes"] != float64(len(want)) || d["width"] != float64(2) || d["dataUrl"] != nil {
		t.Errorf("call render --out printed %.300v, want savedBytes %d, width 2, no dataUrl", d, len(want))
	}
	if got, err := os.ReadFile(filepath.Join(dir, "render.png")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("render.png: %d bytes (%v), want the page's %d bytes", len(got), err, len(want))
	}
}

// bulkBridge starts a bridge with a tab attached that answers as bulkPage.
func bulkBridge(t *testing.T) *bridge {
	t.Helper()
	b, _, _ := cliTab(t, bulkPage)
	return b
}
