//go:build lexcount

package toolbox

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// listen prints a voice answer's lines, the selection's list included, from
// the door's one reading of it (issue 34). envelope.Lexes counts every read
// by the standard's reader, the door's and the gate's. Run with go test
// -tags lexcount.
func TestOneLexPerVoiceAnswer(t *testing.T) {
	before := envelope.Lexes()
	answer, err := door([]byte(`{"ok":true,"voiceOn":true,"heard":[{"text":"make it red","atMs":1200},{"text":"and \u003cbigger\u003e","atMs":1500}],`+
		`"selection":[{"id":"s1","name":"Rose"},{"id":7,"name":"[bridge leaf"},{"id":"s3","name":"Stem","at":{"x":1}},"not an object"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := heardLines(readVoice(answer))
	if got := envelope.Lexes() - before; got != 1 || len(lines) != 2 || !strings.Contains(string(lines[0]), `"selection":[{"id":"s1","name":"Rose"},{"id":"7","name":"\u005bbridge leaf"},{"id":"s3","name":"Stem"}]`) {
		t.Errorf("read %d times, want once; lines %q", got, lines)
	}
}
