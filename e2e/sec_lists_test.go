package e2e

// What a face does with a reply's lists, however the reply is shaped
// before them (an outside attack's cases, on a door that kept only a
// bounded share of a reply's top-level lists, since reverted): every
// entry a face looks at is looked at, whatever lists come first.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wideObject is a JSON object of n members "k0":0 ... (a layer's points,
// a palette's colours: a design's data, a few hundred KB).
func wideObject(n int, extra string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, `"k%d":0,`, i)
	}
	b.WriteString(extra)
	return strings.TrimSuffix(b.String(), ",") + "}"
}

func pngEntry(name string) string {
	return `{"name":"` + name + `","dataUrl":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(pngBytes) + `"}`
}

// listsExport answers design.export with the members given, encoded in
// the order of their names (encoding/json sorts a map's).
func listsExport(members map[string]string) pageHandler {
	return func(cmd string, args map[string]any) map[string]any {
		if cmd != "design.export" {
			return defaultHandler(cmd, args)
		}
		out := map[string]any{"ok": true}
		for k, v := range members {
			out[k] = json.RawMessage(v)
		}
		return out
	}
}

// TestSec_T16_FilesAfterAWideListAreSaved: a reply whose files list
// follows a list of two objects of 10,000 members (gate.MaxMembers,
// which the door takes) has its three files saved by call --save and
// call_to_files. (The reverted door spent its bound on the earlier list
// and saved none.)
func TestSec_T16_FilesAfterAWideListAreSaved(t *testing.T) {
	t.Parallel()
	h := listsExport(map[string]string{
		"a":     "[" + wideObject(10_000, "") + "," + wideObject(10_000, "") + "]",
		"files": "[" + pngEntry("f0.png") + "," + pngEntry("f1.png") + "," + pngEntry("f2.png") + "]",
	})
	want := []string{"f0.stitchslop.png", "f1.stitchslop.png", "f2.stitchslop.png"}
	t.Run("CLI", func(t *testing.T) {
		t.Parallel()
		_, _, base := cliTab(t, h)
		out := filepath.Join(t.TempDir(), "out")
		r := runCLI(t, append(base, "call", "design.export", "--save", out)...)
		if got := dirNames(t, out); r.code != 0 || !slices.Equal(got, want) {
			i := strings.LastIndex(r.stdout, `"files"`)
			t.Errorf("call --save: exit %d, saved %q; want exit 0 and %q. files: %.300s", r.code, got, want, r.stdout[max(i, 0):])
		}
	})
	t.Run("MCP", func(t *testing.T) {
		t.Parallel()
		b, p := mcpTab(t, "")
		p.serve(h)
		dir := t.TempDir()
		r := b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": dir})
		if got := dirNames(t, dir); r.IsError || !slices.Equal(got, want) {
			text := r.text()
			t.Errorf("call_to_files: error %v, saved %q; want %q. Its block: %.400s", r.IsError, got, want, text[max(0, len(text)-700):])
		}
	})
}

// TestSec_T16_FilesOfManyMembersAreAllSaved: a files list of
// files.MaxSaved entries, each a file with 700 members of metadata beside
// name and dataUrl, is saved whole. (The reverted door saved 28 of 32.)
func TestSec_T16_FilesOfManyMembersAreAllSaved(t *testing.T) {
	t.Parallel()
	png := base64.StdEncoding.EncodeToString(pngBytes)
	var entries []string
	for i := range 32 {
		entries = append(entries, wideObject(700, fmt.Sprintf(`"name":"f%02d.png","dataUrl":"data:image/png;base64,%s"`, i, png)))
	}
	_, _, base := cliTab(t, listsExport(map[string]string{"files": "[" + strings.Join(entries, ",") + "]"}))
	out := filepath.Join(t.TempDir(), "out")
	r := runCLI(t, append(base, "call", "design.export", "--save", out)...)
	if got := dirNames(t, out); r.code != 0 || len(got) != 32 {
		i := strings.Index(r.stdout, `"error"`)
		t.Errorf("call --save of 32 files of 700 members: exit %d, %d saved; want exit 0 and 32. First error: %.200s", r.code, len(got), r.stdout[max(i, 0):])
	}
}

// TestSec_GreetingNamesItemsAfterAWideList: the greeting names the
// canvas's items whatever lists scene.describe carries before them. (The
// reverted door named none after a list of two 10,000-member objects.)
func TestSec_GreetingNamesItemsAfterAWideList(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	id := b.rpc.request("tools/call", map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 8}})
	b.rpc.call("ping", nil)
	p := openPage(t, b.port, false)
	wide := json.RawMessage("[" + wideObject(10_000, "") + "," + wideObject(10_000, "") + "]")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		d := describeCanvas(cmd, args)
		if cmd == "scene.describe" {
			d["a"] = wide
		}
		return d
	})
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	p.mustSend(map[string]any{"tools": append([]any{voiceListen(false)}, defaultTools...)})
	var r toolResult
	b.rpc.result(b.rpc.response(id), &r)
	text := r.text()
	for _, want := range []string{"Two shapes on the hoop.", "1. Rose, Satin fill, 12,345 stitches", "2. Leaf, run, 1,234,567 stitches", "…and 3 more"} {
		if !strings.Contains(text, want) {
			i := strings.Index(text, "The canvas")
			t.Errorf("greeting: want it to say %q; its canvas: %.200q", want, text[max(i, 0):])
		}
	}
}
