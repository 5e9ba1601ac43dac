package e2e

// Issue 28: one way to write a file. call --out, --save and call_to_files
// all go through security/files' walk and one Save decision (THREAT_MODEL
// T16): no hidden component on the path, links walked; created exclusively
// unless asked to overwrite; never over a dotfile; every name of a reply
// built by the bridge (files_names_test.go). What does not need the reply
// is decided before the command is sent.

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// exportReply answers design.export with an export whose top-level dataUrl
// is a line of text, as an export command may send; scene.render with an
// image.
func exportReply(cmd string, args map[string]any) map[string]any {
	switch cmd {
	case "design.export":
		return map[string]any{"ok": true, "say": "Exported.", "dataUrl": b64URL("text/plain", []byte("ssh-ed25519 AAAA attacker"))}
	case "scene.render":
		return map[string]any{"ok": true, "dataUrl": b64URL("image/png", pngBytes)}
	}
	return defaultHandler(cmd, args)
}

// Each --out that issue 28 found writing the tab's bytes is refused before
// the command is sent: exit 1, nothing sent, nothing written or replaced.
func TestSec_OutGoesThroughTheOneWriter(t *testing.T) {
	t.Parallel()
	_, p, base := cliTab(t, exportReply)
	root := t.TempDir()
	hid := filepath.Join(root, ".hid")
	if err := os.Mkdir(hid, 0o755); err != nil {
		t.Fatal(err)
	}
	linkdir := filepath.Join(root, "linkdir")
	if err := os.Symlink(hid, linkdir); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	dotfile := writeFile(t, filepath.Join(root, ".profile_x"), []byte("mine"))
	type outCase struct {
		name string
		args []string
		code string
	}
	cases := []outCase{
		{"a hidden folder", []string{"scene.render", "--out", filepath.Join(hid, "a.png")}, "write_failed"},
		{"a link to a hidden folder", []string{"scene.render", "--out", filepath.Join(linkdir, "b.png")}, "write_failed"},
		{"a name that is no image, in a hidden folder", []string{"design.export", "--out", filepath.Join(hid, "authorized_keys")}, "bad_name"},
		{"a name that is no image", []string{"design.export", "--out", filepath.Join(root, "authorized_keys")}, "bad_name"},
		{"a dotfile, overwrite", []string{"design.export", "--out", dotfile, "--overwrite"}, "bad_name"},
	}
	if runtime.GOOS == "linux" {
		// A folder that exists but takes no new file, even for root.
		cases = append(cases, outCase{"a folder that takes no file", []string{"scene.render", "--out", "/proc/self/x.png"}, "write_failed"},
			outCase{"a sysfs folder, overwrite", []string{"scene.render", "--out", "/sys/kernel/x.png", "--overwrite"}, "write_failed"})
	}
	for _, tt := range cases {
		from := p.frames.len()
		r := runCLI(t, append(append(base, "call"), tt.args...)...)
		d := r.doc(t)
		msg, _ := d["message"].(string)
		if r.code != 1 || d["error"] != tt.code || !strings.Contains(msg, "nothing was sent to the tab") {
			t.Errorf("call --out into %s: exit %d, %v; want exit 1, %s, nothing sent", tt.name, r.code, d, tt.code)
		}
		sentNothingSince(t, p, base, from, "--out into "+tt.name)
	}
	if got := dirNames(t, hid); len(got) != 0 {
		t.Errorf("the hidden folder holds %q, want nothing", got)
	}
	if b, _ := os.ReadFile(dotfile); string(b) != "mine" {
		t.Errorf("the dotfile holds %q, want it untouched", b)
	}
	if got := dirNames(t, root); !slices.Equal(got, []string{".hid", ".profile_x", "linkdir"}) {
		t.Errorf("the folder holds %q, want nothing new", got)
	}
}

// A folder that cannot be made, or is hidden, is found out before the
// command is sent.
func TestSec_SaveFolderDecidedBeforeTheCall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	hid := filepath.Join(root, ".hid")
	linkdir := filepath.Join(root, "linkdir")
	if err := os.Mkdir(hid, 0o755); err != nil {
		t.Fatal(err)
	}
	haveLinks := os.Symlink(hid, linkdir) == nil
	dirs := map[string]string{"a folder that cannot be made": "/proc/nope/out", "a hidden folder": filepath.Join(hid, "new")}
	if haveLinks {
		dirs["a link to a hidden folder"] = linkdir
	}
	if runtime.GOOS == "linux" {
		// Folders that exist but take no new file, even for root.
		dirs["a folder that takes no file"] = "/proc/self"
		dirs["a sysfs folder"] = "/sys/kernel"
	}

	t.Run("shell", func(t *testing.T) {
		_, p, base := cliTab(t, namesAttackReply)
		for what, dir := range dirs {
			from := p.frames.len()
			r := runCLI(t, append(base, "call", "design.export", "--save", dir)...)
			d := r.doc(t)
			msg, _ := d["message"].(string)
			if r.code != 1 || d["error"] != "bad_dir" || !strings.Contains(msg, "nothing was sent to the tab") {
				t.Errorf("call --save into %s: exit %d, %v; want exit 1, bad_dir, nothing sent", what, r.code, d)
			}
			sentNothingSince(t, p, base, from, "--save into "+what)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		b, p := mcpTab(t, "")
		p.serve(namesAttackReply)
		for what, dir := range dirs {
			from := p.frames.len()
			r := b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": dir})
			if !r.IsError || !strings.Contains(r.text(), "Nothing was sent to the tab") {
				t.Errorf("call_to_files into %s: %q, want isError saying nothing was sent", what, r.text())
			}
			b.rpc.toolCall("scene.describe", map[string]any{})
			if f, _ := p.command(from); f.str("command") != "scene.describe" {
				t.Errorf("after call_to_files into %s the tab got %s, want nothing", what, f.raw)
			}
		}
	})
	if got := dirNames(t, hid); len(got) != 0 {
		t.Errorf("the hidden folder holds %q, want nothing", got)
	}
}

// TestSec_OutAndSaveNameOneFile: with --out D/o.png --save D --overwrite, a
// file of the reply also named o.png (or O.PNG) is saved under a name the
// bridge builds (o.stitchslop.png), never over the --out image, and no
// --out may take such a name: one reply's --out and --save never name one
// file, and the reply never says both were saved at one path.
func TestSec_OutAndSaveNameOneFile(t *testing.T) {
	t.Parallel()
	second := append(append([]byte{}, pngBytes...), "second"...)
	_, _, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		if cmd != "scene.render" {
			return defaultHandler(cmd, args)
		}
		return map[string]any{"ok": true, "dataUrl": b64URL("image/png", pngBytes), "files": []any{
			map[string]any{"name": "o.png", "dataUrl": b64URL("image/png", second)},
			map[string]any{"name": "O.PNG", "dataUrl": b64URL("image/png", second)},
		}}
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "o.png")
	r := runCLI(t, append(base, "call", "scene.render", "--out", out, "--save", dir, "--overwrite")...)
	if r.code != 0 {
		t.Errorf("call --out D/o.png --save D with files[0] o.png: exit %d, want 0", r.code)
	}
	if b, _ := os.ReadFile(out); !slices.Equal(b, pngBytes) {
		t.Errorf("%s holds %d bytes, want the --out image (%d bytes)", out, len(b), len(pngBytes))
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"o-2.stitchslop.png", "o.png", "o.stitchslop.png"}) {
		t.Errorf("the folder holds %q, want o.png and the reply's files beside it", got)
	}
	d := r.doc(t)
	if d["savedTo"] != out {
		t.Errorf("savedTo = %v, want %s", d["savedTo"], out)
	}
	list, _ := d["files"].([]any)
	if len(list) != 2 {
		t.Fatalf("files = %v, want two entries", d["files"])
	}
	for i, e := range list {
		m, _ := e.(map[string]any)
		if want := filepath.Join(dir, []string{"o.stitchslop.png", "o-2.stitchslop.png"}[i]); m["savedTo"] != want {
			t.Errorf("files[%d] = %v, want it saved as %s, beside --out's file", i, m, want)
		}
	}
	r = runCLI(t, append(base, "call", "scene.render", "--out", filepath.Join(dir, "O.StitchSlop.png"), "--overwrite")...)
	if d := r.doc(t); r.code != 1 || d["error"] != "bad_name" {
		t.Errorf("call --out D/O.StitchSlop.png: exit %d, %v; want bad_name, a built name's mark", r.code, d)
	}
}
