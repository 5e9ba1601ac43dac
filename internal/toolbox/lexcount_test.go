//go:build lexcount

package toolbox

import (
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// listen reads the tab's answer once, at its door, and prints its heard
// and selection from what the door recorded (envelope.Reply.Entries); the
// selection it builds of the entries' pieces (gate.List) is written as it
// is when nothing in it is the gate's to change: once in all, however
// many entries. (Before, 8 here: each list read again, and each entry
// again into an object; then 2, the gate walking the selection.) Run with
// go test -tags lexcount.
func TestOneLexPerListenAnswer(t *testing.T) {
	before := envelope.Lexes()
	lines, dropped := listenLines(t, `{"ok":true,"heard":[{"text":"make it red","atMs":1},{"text":"and bigger","atMs":2}],"selection":[{"id":"r","name":"Rose"},{"id":"s","name":"Stem"}]}`)
	if n := envelope.Lexes() - before; n != 1 || len(lines) != 2 || dropped != 0 || string(lines[0]["selection"]) != `[{"id":"r","name":"Rose"},{"id":"s","name":"Stem"}]` {
		t.Errorf("lines %q, the answer read %d times: want two lines with the selection, once", lines, n)
	}
}
