//go:build lexcount

package cli

import (
	"path/filepath"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// The shell reads each answer of the bridge once, at its door, whatever it
// does with it: printing (nested lists and objects included), --raw, --out
// (issue 34: a --save read it five times). envelope.Lexes counts every
// read by the standard's reader, the door's and the gate's. Run with go
// test -tags lexcount.
func TestOneLexPerReply(t *testing.T) {
	reply := `{"ok":true,"say":"Exported.","dataUrl":"data:image/png;base64,` + pngB64 + `","shapes":[{"id":"a1","name":"Rosé … ✓","at":[1,2.5,{"k":null}]},{"id":"a2"}],"meta":{"n":1,"tags":["x","y"]},"n":1}`
	dir := replyWith(t, reply)
	for name, extra := range map[string][]string{
		"print": nil,
		"raw":   {"--raw"},
		"out":   {"--out", filepath.Join(t.TempDir(), "out.png")},
	} {
		before := envelope.Lexes()
		code, out, stderr := runRaw(t, dir, append([]string{"call", "design.export"}, extra...)...)
		if got := envelope.Lexes() - before; code != 0 || got != 1 {
			t.Errorf("call %s: exit %d, read %d times, want 0 and once; stdout %.200s; stderr %.200s", name, code, got, out, stderr)
		}
	}
}

// call --save reads the answer once, at its door: it walks the files list
// from what the door recorded (envelope.Reply.Entries), and the list it
// prints in its place, built of the entries' pieces (gate.List), is
// written from what the door saw of them, unread, however many entries.
// (3 and one more an entry before issue 34's records; 2 while the gate
// walked the built list.)
func TestOneLexPerSavedReply(t *testing.T) {
	file := `{"name":"a.png","w":[1,{"k":2}],"dataUrl":"data:image/png;base64,` + pngB64 + `"}`
	dir := replyWith(t, `{"ok":true,"say":"Exported.","files":[`+file+`,`+file+`,`+file+`],"n":1}`)
	before := envelope.Lexes()
	code, out, stderr := runRaw(t, dir, "call", "design.export", "--save", t.TempDir())
	if got := envelope.Lexes() - before; code != 0 || got != 1 {
		t.Errorf("call --save: exit %d, read %d times, want 0 and once; stdout %.300s; stderr %.200s", code, got, out, stderr)
	}
}
