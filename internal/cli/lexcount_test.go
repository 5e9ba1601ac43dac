//go:build lexcount

package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// The shell reads each answer of the bridge once, at its door, whatever it
// does with it: printing (nested lists and objects included), --raw, --out,
// --save of a files list (issue 34: a --save read it five times).
// envelope.Lexes counts every read by the standard's reader, the door's and
// the gate's. Run with go test -tags lexcount.
func TestOneLexPerReply(t *testing.T) {
	reply := `{"ok":true,"say":"Exported.","dataUrl":"data:image/png;base64,` + pngB64 + `","shapes":[{"id":"a1","name":"Rosé … ✓","at":[1,2.5,{"k":null}]},{"id":"a2"}],"meta":{"n":1,"tags":["x","y"]},"n":1}`
	files := `,"files":[{"name":"a.png","dataUrl":"data:image/png;base64,` + pngB64 + `","page":1},{"name":"b.png","dataUrl":"data:image/png;base64,` + pngB64 + `","meta":{"w":2,"tags":["x"]}},{"name":"c.png","dataUrl":"data:image/png;base64,` + pngB64 + `"}]}`
	for name, extra := range map[string][]string{
		"print": nil,
		"raw":   {"--raw"},
		"out":   {"--out", filepath.Join(t.TempDir(), "out.png")},
		// Three files saved, and the list written in their place (§4.4).
		"save": {"--save", t.TempDir()},
	} {
		dir := replyWith(t, reply)
		if name == "save" {
			dir = replyWith(t, reply[:len(reply)-1]+files)
		}
		before := envelope.Lexes()
		code, out, stderr := runRaw(t, dir, append([]string{"call", "design.export"}, extra...)...)
		if got := envelope.Lexes() - before; code != 0 || got != 1 {
			t.Errorf("call %s: exit %d, read %d times, want 0 and once; stdout %.200s; stderr %.200s", name, code, got, out, stderr)
		}
		if n := strings.Count(out, `"savedBytes":`); name == "save" && n != 3 {
			t.Errorf("call --save: %d saved, want the three files; stdout %.300s", n, out)
		}
	}
}
