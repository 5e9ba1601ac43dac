package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// The findings of an outside audit (issue 34) against how the bridge
// reported what it saved: it re-encoded the page's reply with
// encoding/json, which writes each <, > and & as six bytes, and sent the
// rewrite back through the door. A reply of < grew six-fold on the way to
// the agent; a member name of 200 < grew to 1,200 bytes, past the door's
// bound on a name, so the door refused the bridge's own rewrite, nothing
// was saved, and the error blamed the reply's member count. Now what was
// saved is written beside the reply's members, which reach the agent as
// the door read them.

const dstURL = "data:application/octet-stream;base64,TEE6AP8=" // a.dst, 5 bytes

// angles is n '<' written raw, as a page writes them.
func angles(n int) string { return strings.Repeat("<", n) }

// saveAnswers are the leader answers the shell saves from: a file, and a
// string or a name of '<'.
var saveAnswers = map[string]string{
	"LongText": `{"ok":true,"files":[{"name":"a.dst","dataUrl":"` + dstURL + `"}],"note":"` + angles(50_000) + `"}`,
	"LongName": `{"ok":true,"files":[{"name":"a.dst","dataUrl":"` + dstURL + `"}],"` + angles(200) + `":1}`,
}

// The shell's --save: the file is saved, the exit is 0, and the page's '<'
// reach stdout as '<', one byte each, the name of 200 among them.
func TestSec_SaveShellDoesNotRewriteTheReply(t *testing.T) {
	t.Parallel()
	for name, answer := range saveAnswers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cfg")
			(&fakeLeader{call: func(string) []byte { return []byte(answer) }}).start(t, dir)
			out := t.TempDir()
			r := runCLI(t, "--config-dir", dir, "call", "design.export", "--save", out)
			wantSavedAsItCame(t, r, answer, out)
		})
	}
}

// The shell's --out: the image is saved and the reply printed the same.
func TestSec_SaveShellOutDoesNotRewriteTheReply(t *testing.T) {
	t.Parallel()
	png := b64URL("image/png", pngBytes)
	for name, answer := range map[string]string{
		"LongText": `{"ok":true,"dataUrl":"` + png + `","note":"` + angles(50_000) + `"}`,
		"LongName": `{"ok":true,"dataUrl":"` + png + `","` + angles(200) + `":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cfg")
			(&fakeLeader{call: func(string) []byte { return []byte(answer) }}).start(t, dir)
			out := t.TempDir()
			r := runCLI(t, "--config-dir", dir, "call", "render.png", "--out", filepath.Join(out, "out.png"))
			wantSavedAsItCame(t, r, answer, out)
		})
	}
}

// wantSavedAsItCame checks a shell call that saved a file of answer into
// dir: exit 0, one file there, and every '<' of the answer on stdout as it
// came.
func wantSavedAsItCame(t *testing.T, r cliResult, answer, dir string) {
	t.Helper()
	n := strings.Count(answer, "<")
	if saved := dirNames(t, dir); r.code != 0 || len(saved) != 1 {
		t.Fatalf("exit %d, %s holds %q; stdout %.300s; stderr %.300s; want exit 0 and the file saved", r.code, dir, saved, r.stdout, r.stderr)
	}
	if got := strings.Count(r.stdout, "<"); got != n || strings.Contains(r.stdout, `\u003c`) {
		t.Errorf("stdout holds %d raw '<' of %d (escaped: %v): the reply was rewritten", got, n, strings.Contains(r.stdout, `\u003c`))
	}
	if len(r.stdout) > len(answer)+1024 {
		t.Errorf("stdout is %d bytes for a reply of %d: it grew", len(r.stdout), len(answer))
	}
	if strings.Contains(r.stderr, "more members") {
		t.Errorf("stderr blames the member count: %.300s", r.stderr)
	}
}

// call_to_files: the file is saved, the result is no error, and the '<'
// reach the model's text as '<'.
func TestSec_SaveCallToFilesDoesNotRewriteTheReply(t *testing.T) {
	t.Parallel()
	for name, answer := range saveAnswers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, p := mcpTab(t, "")
			p.serve(silent)
			out := t.TempDir()
			at := p.frames.len()
			id := b.rpc.request("tools/call", map[string]any{"name": "call_to_files",
				"arguments": map[string]any{"command": "design.export", "dir": out}})
			f, _ := p.command(at)
			p.sendText(`{"id":` + string(f.id) + `,` + strings.TrimPrefix(answer, "{"))
			var r toolResult
			b.rpc.result(b.rpc.response(id), &r)
			text := r.text()
			if saved := dirNames(t, out); r.IsError || len(saved) != 1 {
				t.Fatalf("call_to_files: isError %v, %s holds %q; text %.300q", r.IsError, out, saved, text)
			}
			if n := strings.Count(answer, "<"); strings.Count(text, "<") != n || strings.Contains(text, `\u003c`) {
				t.Errorf("the model's text holds %d raw '<' of %d: the reply was rewritten", strings.Count(text, "<"), n)
			}
			if strings.Contains(text, "more members") {
				t.Errorf("the result blames the member count: %.300q", text)
			}
		})
	}
}
