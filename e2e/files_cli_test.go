package e2e

// Files by path from a shell (issue 10; protocol.md §7.15): call
// --file and --file-text put files from disk into a command's arguments,
// --save and --text-file write what the tab returns; --out and --save
// replace nothing without --overwrite. A refused file sends nothing to the
// tab; a hostile name from the tab writes nothing.

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var dstBytes = []byte{0x4c, 0x41, 0x3a, 0x00, 0xff}

func b64URL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// cliTab starts a bridge with a tab attached that answers with h, and
// returns them with the flags that point a CLI verb at that bridge.
func cliTab(t *testing.T, h pageHandler) (*bridge, *page, []string) {
	t.Helper()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(h)
	b.awaitConnected(true)
	return b, p, []string{"--config-dir", b.configDir, "--port", strconv.Itoa(b.port)}
}

// sentNothingSince checks that the tab got no command since frame from:
// the next command it gets is a scene.describe sent now. A call the CLI
// had sent would have reached the tab before the CLI's answer, so before
// this one.
func sentNothingSince(t *testing.T, p *page, base []string, from int, what string) {
	t.Helper()
	if r := runCLI(t, append(base, "call", "scene.describe")...); r.code != 0 {
		t.Fatalf("call scene.describe: exit %d, %s", r.code, r.stderr)
	}
	if f, _ := p.command(from); f.str("command") != "scene.describe" {
		t.Errorf("after %s the tab got %s, want nothing", what, f.raw)
	}
}

func TestRef_CLIFileIn(t *testing.T) {
	t.Parallel()
	_, p, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		if cmd == "design.import" {
			return map[string]any{"ok": true, "say": "Imported."}
		}
		return defaultHandler(cmd, args)
	})
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "rose.dst"), dstBytes)
	writeFile(t, filepath.Join(work, "colours.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"><g/></svg>`))
	writeFile(t, filepath.Join(work, "meta.json"), []byte(`{"stitches":12}`))
	writeFile(t, filepath.Join(work, "photo"), pngBytes) // an image known by its bytes alone

	from := p.frames.len()
	r := runCLIWith(t, cliInput{dir: work}, append(base, "call", "design.import", `{"mode":"replace","big":12345678901234567}`,
		"--file", "design=rose.dst", "--file-text", "sidecar.data=colours.svg", "--file-text", "a.b.meta=meta.json", "--file", "preview=photo")...)
	if r.code != 0 {
		t.Fatalf("call with files: exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	f, _ := p.command(from)
	args, _ := f.m["args"].(map[string]any)
	sidecar, _ := args["sidecar"].(map[string]any)
	a, _ := args["a"].(map[string]any)
	b, _ := a["b"].(map[string]any)
	if f.str("command") != "design.import" || args["mode"] != "replace" ||
		args["design"] != b64URL("application/octet-stream", dstBytes) ||
		args["preview"] != b64URL("image/png", pngBytes) ||
		sidecar["data"] != `<svg xmlns="http://www.w3.org/2000/svg"><g/></svg>` ||
		b["meta"] != `{"stitches":12}` {
		t.Errorf("the tab got %s", f.raw)
	}
	if !strings.Contains(string(f.raw), `"big":12345678901234567`) {
		t.Errorf("a large number in JSON-ARGS changed on its way: %s", f.raw)
	}
	if d := r.doc(t); d["ok"] != true || d["say"] != "Imported." {
		t.Errorf("stdout: %v, want the tab's reply", d)
	}
	if !strings.Contains(r.stderr, stderrPrefix+`sending "rose.dst" (5 bytes, application/octet-stream) as design`) || strings.Contains(r.stderr, "base64") {
		t.Errorf("stderr %q, want word of each file sent, without its data", r.stderr)
	}

	// JSON as a data URL.
	from = p.frames.len()
	r = runCLIWith(t, cliInput{dir: work}, append(base, "call", "design.import", "--file", "doc=meta.json")...)
	if f, _ := p.command(from); r.code != 0 || f.m["args"].(map[string]any)["doc"] != b64URL("application/json", []byte(`{"stitches":12}`)) {
		t.Errorf("call --file doc=meta.json: exit %d, the tab got %s", r.code, f.raw)
	}
}

func TestRef_CLIFileRefusedSendsNothing(t *testing.T) {
	t.Parallel()
	_, p, base := cliTab(t, defaultHandler)
	work := t.TempDir()
	dst := writeFile(t, filepath.Join(work, "rose.dst"), dstBytes)
	big := writeFile(t, filepath.Join(work, "big.dst"), nil)
	if err := os.Truncate(big, 15<<20); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		exit int
		code string
		why  string
		file bool // the file itself is refused, not how it was named
	}{
		{"a text file named .png", []string{"--file", "image=" + writeFile(t, filepath.Join(work, "x.png"), []byte("not an image"))},
			64, "usage", "its bytes are not a PNG, JPEG, GIF or WebP image", true},
		{"a hidden file", []string{"--file", "d=" + writeFile(t, filepath.Join(work, ".secret.json"), []byte(`{}`))},
			64, "usage", "hidden files and folders are not sent", true},
		{"a hidden folder", []string{"--file-text", "d=" + writeFile(t, filepath.Join(work, ".ssh", "id.json"), []byte(`{}`))},
			64, "usage", "hidden files and folders are not sent", true},
		{"a private key", []string{"--file", "d=" + writeFile(t, filepath.Join(work, "id_rsa"), []byte("-----BEGIN OPENSSH PRIVATE KEY-----"))},
			64, "usage", "is not a kind of file sent to the tab", true},
		{"over 14 MB", []string{"--file", "d=" + big}, 64, "usage", "over the 14 MB limit", true},
		{"a machine format as text", []string{"--file-text", "d=" + dst}, 64, "usage", "cannot be sent as text", true},
		{"one good, one refused", []string{"--file", "ok=" + dst, "--file", "bad=" + filepath.Join(work, "x.png")}, 64, "usage", "--file bad", true},
		{"five files", []string{"--file", "a=" + dst, "--file", "b=" + dst, "--file", "c=" + dst, "--file", "d=" + dst, "--file", "e=" + dst},
			64, "usage", "at most 4 files", false},
		{"four parts", []string{"--file", "a.b.c.d=" + dst}, 64, "usage", "want 1 to 3 non-empty names", false},
		{"no KEY=", []string{"--file", dst}, 64, "usage", "want KEY=PATH", false},
		{"into a number", []string{`{"a":1}`, "--file", "a.b=" + dst}, 64, "usage", "not an object", false},
	}
	from := p.frames.len()
	for _, tt := range tests {
		r := runCLI(t, append(append(base, "call", "design.import"), tt.args...)...)
		d := r.doc(t)
		msg, _ := d["message"].(string)
		if r.code != tt.exit || d["ok"] != false || d["error"] != tt.code || !strings.Contains(msg, tt.why) {
			t.Errorf("call with %s: exit %d, %v; want exit %d, error %s saying %q", tt.name, r.code, d, tt.exit, tt.code, tt.why)
		}
		if tt.file && !strings.Contains(msg, "nothing was sent to the tab") {
			t.Errorf("call with %s: message %q, want it to say nothing was sent", tt.name, msg)
		}
		if !strings.Contains(r.stderr, stderrPrefix+"error: ") || !strings.Contains(r.stderr, stderrPrefix+"hint: ") {
			t.Errorf("call with %s: stderr %q, want an error and a hint", tt.name, r.stderr)
		}
	}
	sentNothingSince(t, p, base, from, "refused files")
}

func TestRef_CLISaveHostileNames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	out := filepath.Join(root, "out")
	home := filepath.Join(root, "home")
	for _, d := range []string{out, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hostile := []string{
		"../x.png", "../../x.dst", "../home/.bashrc", ".bashrc", "..", "a/b.dst", filepath.Join(root, "abs.dst"),
		`C:\x.dst`, `..\x.dst`, "C:x.dst", "x.dst:stream", "x\x00.dst", "x\x1b[31m.dst", "x\u0085.dst\n",
		"x.sh", "x.exe", "x.bat", "x.ps1", "run", "x.png", "CON.dst", "x.dst.", "OK.DST",
	}
	_, p, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		if cmd != "design.export" {
			return defaultHandler(cmd, args)
		}
		files := []any{map[string]any{"name": "ok.dst", "dataUrl": b64URL("application/octet-stream", dstBytes),
			"savedTo": "/etc/passwd", "error": "none"}}
		for _, n := range hostile {
			data := []byte("#!/bin/sh\nrm -rf ~\n") // a script; x.png's bytes are not a PNG
			if strings.HasSuffix(n, ".png") && n != "x.png" {
				data = pngBytes
			}
			files = append(files, map[string]any{"name": n, "dataUrl": b64URL("application/octet-stream", data)})
		}
		return map[string]any{"ok": true, "say": "Exported.", "files": files}
	})

	r := runCLIWith(t, cliInput{dir: out, env: []string{"HOME=" + home}}, append(base, "call", "design.export", "--save", out)...)
	if r.code != 1 {
		t.Errorf("call --save with hostile names: exit %d, want 1 (x.png holds no PNG); stderr: %s", r.code, r.stderr)
	}
	// Every other file is saved under a name the bridge built (issue 35).
	for _, n := range dirNames(t, out) {
		if !builtName.MatchString(n) {
			t.Errorf("--save folder holds %q, a name the bridge does not build", n)
		}
	}
	if got := dirNames(t, root); !slices.Equal(got, []string{"home", "out"}) {
		t.Errorf("beside the --save folder: %q, want nothing new", got)
	}
	if got := dirNames(t, home); len(got) != 0 {
		t.Errorf("HOME holds %q, want nothing", got)
	}
	if strings.Contains(r.stdout, "base64") || strings.Contains(r.stdout, "rm -rf") {
		t.Errorf("stdout carries file data: %.300s", r.stdout)
	}
	d := r.doc(t)
	files, _ := d["files"].([]any)
	if d["ok"] != true || d["say"] != "Exported." || len(files) != len(hostile)+1 {
		t.Fatalf("stdout: %v, want the reply with %d entries", d, len(hostile)+1)
	}
	if e := files[0].(map[string]any); e["savedTo"] != filepath.Join(out, "ok.stitchslop.dst") || e["savedBytes"] != float64(len(dstBytes)) || e["error"] != nil {
		t.Errorf("ok.stitchslop.dst entry: %v, want savedTo %s, savedBytes, no error", e, filepath.Join(out, "ok.stitchslop.dst"))
	}
	for i, n := range hostile {
		e := files[i+1].(map[string]any)
		why, _ := e["error"].(string)
		to, _ := e["savedTo"].(string)
		switch {
		case e["dataUrl"] != nil:
			t.Errorf("entry for %q: %v, want no dataUrl", n, e)
		case n == "x.png":
			if !strings.Contains(why, "its bytes are not image/png") || to != "" {
				t.Errorf("entry for %q: %v, want it refused by its bytes", n, e)
			}
		case why != "" || filepath.Dir(to) != out || !builtName.MatchString(filepath.Base(to)):
			t.Errorf("entry for %q: %v, want it saved in %s under a built name", n, e, out)
		}
	}
	want := stderrPrefix + "error: --save: 1 of the reply's " + strconv.Itoa(len(hostile)+1) + " files were not saved"
	if !strings.Contains(r.stderr, want) || strings.ContainsAny(r.stderr, "\x1b\x00\u0085") || strings.Contains(r.stderr, "bashrc") {
		t.Errorf("stderr %q: want %q, and no name from the tab, no control character", r.stderr, want)
	}
	// --save into a hidden folder, or a missing one under it: refused
	// before the call (TestSec_SaveCreatesMissingFolder: a missing folder
	// elsewhere is created).
	from := p.frames.len()
	hidden := filepath.Join(root, ".config")
	os.Mkdir(hidden, 0o755)
	for _, dir := range []string{hidden, filepath.Join(hidden, "missing")} {
		r := runCLI(t, append(base, "call", "design.export", "--save", dir)...)
		if d := r.doc(t); r.code != 1 || d["error"] != "bad_dir" {
			t.Errorf("call --save %s: exit %d, %v; want 1, bad_dir", dir, r.code, d)
		}
	}
	if got := dirNames(t, hidden); len(got) != 0 {
		t.Errorf("hidden folder holds %q, want nothing", got)
	}
	sentNothingSince(t, p, base, from, "--save into a hidden folder")
}

// A page's names that show as something they are not are not used:
// U+202E RIGHT-TO-LEFT OVERRIDE shows evil<RLO>gnp.exe as evilexe.png,
// and C1 controls (U+0085, U+009B) drive terminals. Each file is saved
// under a name the bridge built, which holds none of them; stderr never
// carries them.
func TestRef_CLISaveRefusesShowyNames(t *testing.T) {
	t.Parallel()
	_, _, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		dst := b64URL("application/octet-stream", dstBytes)
		return map[string]any{"ok": true, "files": []any{
			map[string]any{"name": "evil\u202Egnp.exe", "dataUrl": b64URL("application/octet-stream", []byte("MZ"))},
			map[string]any{"name": "report\u202Efdp.dst", "dataUrl": dst},
			map[string]any{"name": "x\u0085.dst", "dataUrl": dst},
			map[string]any{"name": "x\u009b2J.dst", "dataUrl": dst},
			map[string]any{"name": "\u00fcber.dst", "dataUrl": dst},
			map[string]any{"name": "U\u0308BER.dst", "dataUrl": b64URL("x", []byte("second"))},
			"x.dst",
		}}
	})
	out := t.TempDir()
	r := runCLI(t, append(base, "call", "design.export", "--save", out, "--overwrite")...)
	if r.code != 1 {
		t.Errorf("call --save with an entry that is no object: exit %d, want 1; stderr: %s", r.code, r.stderr)
	}
	built := []string{"evilgnp.stitchslop.txt", "reportfdp.stitchslop.dst", "x.stitchslop.dst", "x2j.stitchslop.dst", "ber.stitchslop.dst", "uber.stitchslop.dst", ""}
	if got, want := dirNames(t, out), []string{"ber.stitchslop.dst", "evilgnp.stitchslop.txt", "reportfdp.stitchslop.dst", "uber.stitchslop.dst", "x.stitchslop.dst", "x2j.stitchslop.dst"}; !slices.Equal(got, want) {
		t.Errorf("--save folder holds %q, want %q", got, want)
	}
	files, _ := r.doc(t)["files"].([]any)
	if len(files) != len(built) {
		t.Fatalf("stdout: %s, want %d entries", r.stdout, len(built))
	}
	for i, n := range built {
		e, _ := files[i].(map[string]any)
		why, _ := e["error"].(string)
		if n == "" && why != "it is not an object" || n != "" && e["savedTo"] != filepath.Join(out, n) {
			t.Errorf("files[%d] = %v, want it saved as %q", i, e, n)
		}
	}
	if strings.ContainsAny(r.stderr, "\u202e\u0085\u009b") {
		t.Errorf("stderr %q: a character of a name from the tab", r.stderr)
	}
}

func TestRef_CLISaveText(t *testing.T) {
	t.Parallel()
	_, p, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		if cmd == "describe" {
			return map[string]any{"ok": true, "text": "Three colours.\n", "textSavedTo": "/etc/passwd"}
		}
		return defaultHandler(cmd, args)
	})
	out := t.TempDir()
	notes := filepath.Join(out, "notes.stitchslop.txt")
	r := runCLI(t, append(base, "call", "describe", "--save", out, "--text-file", "notes.txt")...)
	d := r.doc(t)
	if r.code != 0 || d["textSavedTo"] != notes || d["text"] != nil || d["textError"] != nil {
		t.Errorf("call --text-file: exit %d, %v; want 0, textSavedTo %s, no text", r.code, d, notes)
	}
	if b, err := os.ReadFile(notes); string(b) != "Three colours.\n" {
		t.Errorf("%s holds %q (%v), want the text", notes, b, err)
	}

	// It exists now: not replaced without --overwrite.
	os.WriteFile(notes, []byte("mine"), 0o644)
	r = runCLI(t, append(base, "call", "describe", "--save", out, "--text-file", "notes.txt")...)
	d = r.doc(t)
	why, _ := d["textError"].(string)
	if r.code != 1 || d["text"] != "Three colours.\n" || d["textSavedTo"] != nil || !strings.Contains(why, "already exists; pass --overwrite") {
		t.Errorf("call --text-file over a file: exit %d, %v; want 1, the text kept, textError", r.code, d)
	}
	if b, _ := os.ReadFile(notes); string(b) != "mine" {
		t.Errorf("%s replaced without --overwrite: %q", notes, b)
	}
	r = runCLI(t, append(base, "call", "describe", "--save", out, "--text-file", "notes.txt", "--overwrite")...)
	if b, _ := os.ReadFile(notes); r.code != 0 || string(b) != "Three colours.\n" {
		t.Errorf("call --text-file --overwrite: exit %d, file %q; want 0 and the text", r.code, b)
	}

	// A name of a kind that is not text: refused by its bytes.
	r = runCLI(t, append(base, "call", "describe", "--save", out, "--text-file", "notes.png")...)
	if d := r.doc(t); r.code != 1 || d["text"] != "Three colours.\n" || d["textError"] == nil || exists(filepath.Join(out, "notes.png")) {
		t.Errorf("call --text-file notes.png: exit %d, %v; want 1, textError, nothing written", r.code, d)
	}

	// No --save: usage errors, and nothing is sent. (Any NAME is built,
	// issue 35: TestSec_NamesBuiltShell.)
	from := p.frames.len()
	for _, args := range [][]string{
		{"--text-file", "notes.txt"},
		{"--overwrite"},
	} {
		r := runCLI(t, append(append(base, "call", "describe"), args...)...)
		if d := r.doc(t); r.code != 64 || d["error"] != "usage" {
			t.Errorf("call %q: exit %d, %v; want 64, usage", args, r.code, d)
		}
	}
	if got := dirNames(t, out); !slices.Equal(got, []string{"notes.stitchslop.txt"}) {
		t.Errorf("--save folder holds %q, want notes.stitchslop.txt alone", got)
	}
	sentNothingSince(t, p, base, from, "usage errors")
}

func TestRef_CLIOutNoClobber(t *testing.T) {
	t.Parallel()
	_, p, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		if cmd == "render.png" {
			return map[string]any{"ok": true, "dataUrl": b64URL("image/png", pngBytes)}
		}
		return defaultHandler(cmd, args)
	})
	dir := t.TempDir()
	out := writeFile(t, filepath.Join(dir, "out.png"), []byte("mine"))
	from := p.frames.len()
	r := runCLI(t, append(base, "call", "render.png", "--out", out)...)
	d := r.doc(t)
	msg, _ := d["message"].(string)
	if r.code != 1 || d["error"] != "file_exists" || !strings.Contains(msg, "pass --overwrite") || !strings.Contains(msg, "nothing was sent to the tab") {
		t.Errorf("call --out over a file: exit %d, %v; want 1, file_exists", r.code, d)
	}
	if b, _ := os.ReadFile(out); string(b) != "mine" {
		t.Errorf("--out replaced a file without --overwrite: %q", b)
	}
	r = runCLI(t, append(base, "call", "render.png", "--out", filepath.Join(dir, "missing", "out.png"))...)
	if d := r.doc(t); r.code != 1 || d["error"] != "write_failed" {
		t.Errorf("call --out into a missing folder: exit %d, %v; want 1, write_failed", r.code, d)
	}
	sentNothingSince(t, p, base, from, "--out over a file")

	r = runCLI(t, append(base, "call", "render.png", "--out", out, "--overwrite")...)
	if b, _ := os.ReadFile(out); r.code != 0 || string(b) != string(pngBytes) {
		t.Errorf("call --out --overwrite: exit %d, file %q; want 0 and the image", r.code, b)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"out.png"}) {
		t.Errorf("folder holds %q, want out.png alone", got)
	}

	// A page that sends no image cannot say it saved one.
	p.serve(func(cmd string, args map[string]any) map[string]any {
		return map[string]any{"ok": true, "savedTo": "/etc/passwd", "savedBytes": 1}
	})
	r = runCLI(t, append(base, "call", "render.png", "--out", filepath.Join(dir, "new.png"))...)
	if d := r.doc(t); d["savedTo"] != nil || d["savedBytes"] != nil || exists(filepath.Join(dir, "new.png")) {
		t.Errorf("call --out, no image: %v, want no savedTo and nothing written", d)
	}
}

// Files written by --save and --out take 0666 less the umask of the shell
// that runs the CLI, and are never executable.
func TestRef_CLISaveUmask(t *testing.T) {
	t.Parallel()
	_, _, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		return map[string]any{"ok": true, "dataUrl": b64URL("image/png", pngBytes), "text": "notes",
			"files": []any{map[string]any{"name": "rose.dst", "dataUrl": b64URL("application/octet-stream", dstBytes)}}}
	})
	for umask, want := range map[string]os.FileMode{"077": 0o600, "022": 0o644, "000": 0o666} {
		dir := t.TempDir()
		args := append([]string{"-c", "umask " + umask + ` && exec "$0" "$@"`, binPath},
			append(base, "call", "export", "--out", "out.png", "--save", ".", "--text-file", "notes.md")...)
		cmd := exec.Command("/bin/sh", args...)
		cmd.Env, cmd.Dir = childEnv(t.TempDir()), dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("call --out --save under umask %s: %v\n%s", umask, err, out)
		}
		for _, n := range []string{"out.png", "rose.stitchslop.dst", "notes.stitchslop.md"} {
			if got := fileMode(t, filepath.Join(dir, n)); got != want {
				t.Errorf("%s under umask %s: mode %o, want %o", n, umask, got, want)
			}
		}
	}
}
