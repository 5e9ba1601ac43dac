package e2e

// Files by path (reference-bridge-notes.md): call_with_file puts a file
// from disk into a command's arguments, call_to_files saves what the tab
// returns; neither passes base64 through the model, and security/files
// decides what may be read and written.

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
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
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	p, _ := connectPage(t, b, map[string]any{"token": tok})
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
	if r.IsError || !strings.Contains(r.text(), "Sent design.dst") || strings.Contains(r.text(), "base64,") {
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
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	dataURL := func(mime string, data []byte) string {
		return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
	}
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "design.export" {
			return map[string]any{"ok": true, "say": "Exported.", "files": []any{
				map[string]any{"name": "../../x.sh", "dataUrl": dataURL("text/x-sh", []byte("rm -rf ~"))},
				map[string]any{"name": ".bashrc", "dataUrl": dataURL("text/plain", []byte("evil"))},
				map[string]any{"name": "a/b.dst", "dataUrl": dataURL("application/octet-stream", []byte("x"))},
				map[string]any{"name": "ok.dst", "dataUrl": dataURL("application/octet-stream", []byte("stitches"))},
			}, "dataUrl": dataURL("image/png", pngBytes), "text": "Three colours."}
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
	if got := dirNames(t, out); !slices.Equal(got, []string{"notes.txt", "ok.dst", "preview.png"}) {
		t.Errorf("saved: %v, want notes.txt, ok.dst and preview.png only", got)
	}
	if got := dirNames(t, root); !slices.Equal(got, []string{"a"}) {
		t.Errorf("beside the folder: %v, want nothing new", got)
	}
	if got := dirNames(t, filepath.Join(root, "a")); !slices.Equal(got, []string{"out"}) {
		t.Errorf("in the folder's parent: %v, want nothing new", got)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "ok.dst")); string(b) != "stitches" {
		t.Errorf("ok.dst holds %q", b)
	}
	text := r.text()
	if !r.IsError || strings.Contains(text, "base64,") || len(r.Content) != 1 ||
		!strings.Contains(text, filepath.Join(out, "ok.dst")) || !strings.Contains(text, "Not saved") {
		t.Errorf("call_to_files result (isError %v, %d blocks): %q", r.IsError, len(r.Content), text)
	}

	// Saved files are never replaced, unless overwrite.
	os.WriteFile(filepath.Join(out, "ok.dst"), []byte("mine"), 0o644)
	if r := call(false); !r.IsError || !strings.Contains(r.text(), "ok.dst") {
		t.Errorf("saving over existing files: %q, want them refused", r.text())
	}
	if b, _ := os.ReadFile(filepath.Join(out, "ok.dst")); string(b) != "mine" {
		t.Errorf("ok.dst replaced without overwrite: %q", b)
	}
	call(true)
	if b, _ := os.ReadFile(filepath.Join(out, "ok.dst")); string(b) != "stitches" {
		t.Errorf("ok.dst with overwrite: %q, want the tab's", b)
	}
	if r := b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": "out"}); !r.IsError {
		t.Errorf("call_to_files with a relative dir: %q, want isError", r.text())
	}
}
