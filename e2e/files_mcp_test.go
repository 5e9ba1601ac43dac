package e2e

// Files by path (protocol.md §7.15): call_with_file puts a file
// from disk into a command's arguments, call_to_files saves what the tab
// returns; neither passes base64 through the model, and security/files
// decides what may be read and written.

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestRef_CallWithFile(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "design.import" {
			return map[string]any{"ok": true, "say": "Imported."}
		}
		return defaultHandler(cmd, args)
	})
	work := t.TempDir()
	dst := writeFile(t, filepath.Join(work, "design.dst"), []byte{0x4c, 0x41, 0x3a, 0x00, 0xff})
	svg := writeFile(t, filepath.Join(work, "colours.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`))

	from := p.frames.len()
	r := b.rpc.toolCall("call_with_file", map[string]any{
		"command": "design.import", "args": map[string]any{"mode": "replace", "big": 12345678901234567},
		"path": dst, "fileArg": "design", "nameArg": "name",
		"also": []any{map[string]any{"path": svg, "fileArg": "sidecar.data", "as": "text"}},
	})
	f, _ := p.command(from)
	args, _ := f.m["args"].(map[string]any)
	sidecar, _ := args["sidecar"].(map[string]any)
	if f.str("command") != "design.import" || args["mode"] != "replace" || args["name"] != "design.dst" ||
		args["design"] != "data:application/octet-stream;base64,"+base64.StdEncoding.EncodeToString([]byte{0x4c, 0x41, 0x3a, 0x00, 0xff}) ||
		sidecar["data"] != `<svg xmlns="http://www.w3.org/2000/svg"/>` {
		t.Errorf("the tab got %s", f.raw)
	}
	if !strings.Contains(string(f.raw), `"big":12345678901234567`) {
		t.Errorf("a large number in args changed on its way: %s", f.raw)
	}
	// The tab's answer as any call gives it, then the bridge's words.
	if own, _ := toolReply(t, r); r.IsError || r.Content[0].Text != "Imported.\n\n"+`{"ok":true,"say":"Imported."}` ||
		!strings.HasPrefix(own, `[bridge] call_with_file sent "design.dst"`) || strings.Contains(r.text(), "base64,") {
		t.Errorf("call_with_file result: %q", r.text())
	}

	// Refused files send nothing to the tab.
	hiddenDir := writeFile(t, filepath.Join(work, ".ssh", "id.json"), []byte(`{}`))
	for name, path := range map[string]string{
		"a text file named .png": writeFile(t, filepath.Join(work, "x.png"), []byte("not an image")),
		"a hidden file":          writeFile(t, filepath.Join(work, ".secret.json"), []byte(`{}`)),
		"a hidden folder":        hiddenDir,
		"a relative path":        "design.dst",
		"a key":                  writeFile(t, filepath.Join(work, "id_rsa"), []byte("-----BEGIN")),
	} {
		from := p.frames.len()
		r := b.rpc.toolCall("call_with_file", map[string]any{"command": "design.import", "path": path, "fileArg": "design"})
		if !r.IsError || !strings.Contains(r.text(), "Nothing was sent") {
			t.Errorf("call_with_file with %s: %q, want isError and nothing sent", name, r.text())
		}
		// The next call is the next frame the tab sees.
		b.rpc.toolCall("scene.describe", map[string]any{})
		if f, _ := p.command(from); f.str("command") != "scene.describe" {
			t.Errorf("after call_with_file with %s the tab got %s", name, f.raw)
		}
	}
}

func TestRef_CallToFiles(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "design.export" {
			return map[string]any{"ok": true, "say": "Exported.", "files": []any{
				map[string]any{"name": "../../x.sh", "dataUrl": b64URL("text/x-sh", []byte("rm -rf ~"))},
				map[string]any{"name": ".bashrc", "dataUrl": b64URL("text/plain", []byte("evil"))},
				map[string]any{"name": "a/b.dst", "dataUrl": b64URL("application/octet-stream", []byte("x"))},
				map[string]any{"name": "ok.dst", "dataUrl": b64URL("application/octet-stream", []byte("stitches"))},
			}, "dataUrl": b64URL("image/png", pngBytes), "text": "Three colours."}
		}
		return defaultHandler(cmd, args)
	})
	root := t.TempDir()
	out := filepath.Join(root, "a", "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	call := func(overwrite bool) toolResult {
		return b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": out,
			"fileName": "preview.png", "textFile": "notes.txt", "overwrite": overwrite})
	}
	r := call(false)
	// Every name is built (issue 35): the script is text, the dotfile a
	// visible file, the path its last part.
	want := []string{"b.stitchslop.dst", "file.stitchslop.txt", "notes.stitchslop.txt", "ok.stitchslop.dst", "preview.stitchslop.png", "x.stitchslop.txt"}
	if got := dirNames(t, out); !slices.Equal(got, want) {
		t.Errorf("saved: %v, want %v", got, want)
	}
	if got := dirNames(t, root); !slices.Equal(got, []string{"a"}) {
		t.Errorf("beside the folder: %v, want nothing new", got)
	}
	if got := dirNames(t, filepath.Join(root, "a")); !slices.Equal(got, []string{"out"}) {
		t.Errorf("in the folder's parent: %v, want nothing new", got)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "ok.stitchslop.dst")); string(b) != "stitches" {
		t.Errorf("ok.dst holds %q", b)
	}
	// The tab's reply, less the image and text saved, then the bridge's
	// words: no image block, the saved paths in the bridge's block only.
	own, reply := toolReply(t, r)
	if r.IsError || len(r.Content) != 2 || reply["dataUrl"] != nil || reply["text"] != nil || reply["savedTo"] != nil ||
		!strings.HasPrefix(own, "[bridge] call_to_files saved ") ||
		!strings.Contains(own, strconv.Quote(filepath.Join(out, "ok.stitchslop.dst"))) || !strings.Contains(own, strconv.Quote(filepath.Join(out, "x.stitchslop.txt"))) ||
		!strings.Contains(own, "dataUrl -> "+strconv.Quote(filepath.Join(out, "preview.stitchslop.png"))) || !strings.Contains(own, "text -> "+strconv.Quote(filepath.Join(out, "notes.stitchslop.txt"))) ||
		strings.Contains(r.Content[0].Text, out) {
		t.Errorf("call_to_files result (isError %v, %d blocks): %q", r.IsError, len(r.Content), r.text())
	}

	// Saved files are never replaced, unless overwrite.
	os.WriteFile(filepath.Join(out, "ok.stitchslop.dst"), []byte("mine"), 0o644)
	if r := call(false); !r.IsError || !strings.Contains(r.text(), "files[3]: "+strconv.Quote(filepath.Join(out, "ok.stitchslop.dst"))+" already exists") {
		t.Errorf("saving over existing files: %q, want them refused", r.text())
	}
	if b, _ := os.ReadFile(filepath.Join(out, "ok.stitchslop.dst")); string(b) != "mine" {
		t.Errorf("ok.dst replaced without overwrite: %q", b)
	}
	call(true)
	if b, _ := os.ReadFile(filepath.Join(out, "ok.stitchslop.dst")); string(b) != "stitches" {
		t.Errorf("ok.dst with overwrite: %q, want the tab's", b)
	}
	if r := b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": "out"}); !r.IsError {
		t.Errorf("call_to_files with a relative dir: %q, want isError", r.text())
	}
}

// toolReply splits a file tool's result into the tab's reply, its first
// block, decoded, and the bridge's own words, its last text block, which
// must be another.
func toolReply(t *testing.T, r toolResult) (own string, reply map[string]any) {
	t.Helper()
	n := len(r.Content)
	if n < 2 || r.Content[n-1].Type != "text" {
		t.Fatalf("file tool result %+v: want the reply's block, then a text block of the bridge's", r)
	}
	_, reply = r.envelope(t)
	return r.Content[n-1].Text, reply
}

// A page's names that show as something they are not (U+202E shows
// evil<RLO>gnp.exe as evilexe.png; C1 controls drive terminals) are not
// used: each file is saved under a name the bridge builds, which holds
// none of them. Entries that are not objects say so; names one file on
// macOS (NFC, NFD, case) are saved under names of their own, even with
// overwrite.
func TestRef_CallToFilesRefusesNames(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "")
	dst := b64URL("application/octet-stream", dstBytes)
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd != "design.export" {
			return defaultHandler(cmd, args)
		}
		return map[string]any{"ok": true, "say": "Exported.", "files": []any{
			map[string]any{"name": "evil\u202Egnp.exe", "dataUrl": b64URL("application/octet-stream", []byte("MZ"))},
			map[string]any{"name": "report\u202Efdp.dst", "dataUrl": dst},
			map[string]any{"name": "x\u0085.dst", "dataUrl": dst},
			map[string]any{"name": "x\u009b2J.dst", "dataUrl": dst},
			map[string]any{"name": "ok.dst", "dataUrl": dst},
			1, "x.dst", nil,
			map[string]any{"name": "\u00fcber.dst", "dataUrl": dst},
			map[string]any{"name": "u\u0308ber.dst", "dataUrl": b64URL("x", []byte("second"))},
			map[string]any{"name": "\u00dcBER.DST", "dataUrl": b64URL("x", []byte("third"))},
		}}
	})
	out := t.TempDir()
	r := b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": out, "overwrite": true})
	built := []string{"evilgnp.stitchslop.txt", "reportfdp.stitchslop.dst", "x.stitchslop.dst", "x2j.stitchslop.dst", "ok.stitchslop.dst", "", "", "", "ber.stitchslop.dst", "uber.stitchslop.dst", "ber-2.stitchslop.dst"}
	want := slices.DeleteFunc(slices.Clone(built), func(n string) bool { return n == "" })
	if slices.Sort(want); !slices.Equal(dirNames(t, out), want) {
		t.Errorf("saved %q, want %q", dirNames(t, out), want)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "ber.stitchslop.dst")); string(b) != string(dstBytes) {
		t.Errorf("ber.stitchslop.dst holds %q, want the first file's bytes", b)
	}
	own, reply := toolReply(t, r)
	if !r.IsError {
		t.Errorf("call_to_files with entries that are not objects: not isError: %q", r.text())
	}
	for i, name := range built {
		want := fmt.Sprintf("files[%d]: it is not an object", i)
		if name != "" {
			want = fmt.Sprintf("files[%d] -> %q ", i, filepath.Join(out, name))
		}
		if !strings.Contains(own, want) {
			t.Errorf("call_to_files said %q, want %q", own, want)
		}
	}
	if strings.ContainsAny(r.text(), "\u202e\u0085\u009b") || strings.Contains(own, "base64") {
		t.Errorf("call_to_files said %q: an invisible character from the tab, or its data in the bridge's words", r.text())
	}
	if list, _ := reply["files"].([]any); len(list) != 11 {
		t.Fatalf("reply passed on: %v, want its 11 entries", reply)
	}
}

// A reply saves at most 32 files, as call --save does; the rest say why.
func TestRef_CallToFilesAtMost32(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		var list []any
		for i := range 34 {
			list = append(list, map[string]any{"name": fmt.Sprintf("f%02d.dst", i), "dataUrl": b64URL("x", dstBytes)})
		}
		return map[string]any{"ok": true, "files": list}
	})
	out := t.TempDir()
	r := b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": out})
	if got := dirNames(t, out); len(got) != 32 || got[31] != "f31.stitchslop.dst" {
		t.Errorf("call_to_files of 34 files saved %d: %q, want f00.stitchslop.dst to f31.stitchslop.dst", len(got), got)
	}
	own, reply := toolReply(t, r)
	list, _ := reply["files"].([]any)
	if !r.IsError || !strings.Contains(own, "files[32]: one reply may save at most 32 files; files[33]: one reply may save at most 32 files") || len(list) != 34 {
		t.Fatalf("call_to_files of 34 files: isError %v, %q", r.IsError, r.text())
	}
}

// Only the bridge says what was saved, in its own block: an entry with no
// dataUrl, or a files member that is not a list, is reported, never
// skipped, and the tab's own savedTo or textSavedTo stay in the tab's
// block, as a call shows them, never in the bridge's words.
func TestRef_CallToFilesPageCannotClaim(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		switch cmd {
		case "design.export":
			return map[string]any{"ok": true, "savedTo": "/etc/passwd", "textSavedTo": "/etc/shadow", "files": []any{
				map[string]any{"name": "a.dst", "savedTo": "/etc/passwd", "savedBytes": 1},
			}}
		case "design.list":
			return map[string]any{"ok": true, "files": "design.dst"}
		}
		return defaultHandler(cmd, args)
	})
	out := t.TempDir()
	r := b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": out})
	own, _ := toolReply(t, r)
	if !r.IsError || !strings.Contains(own, "saved nothing") || !strings.Contains(own, "files[0]: it carries no dataUrl") {
		t.Errorf("call_to_files with an entry without dataUrl: isError %v, said %q; want nothing saved and an error naming files[0]", r.IsError, own)
	}
	if strings.Contains(own, "/etc/") {
		t.Errorf("call_to_files said %q: the tab's claim in the bridge's words", own)
	}
	r = b.rpc.toolCall("call_to_files", map[string]any{"command": "design.list", "dir": out})
	if own, _ := toolReply(t, r); !r.IsError || !strings.Contains(own, "files: it is not a list") {
		t.Errorf("call_to_files with files a string: isError %v, said %q; want an error saying it is not a list", r.IsError, own)
	}
	if got := dirNames(t, out); len(got) != 0 {
		t.Errorf("wrote %q, want nothing", got)
	}
}
