//go:build lexcount

package speech

import (
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// The voice channel reads an answer once, at the door, and its heard and
// selection from what the door recorded (envelope.Reply.Entries): 1 in
// all. (Before, 7 here: each list read again, and each entry again into
// an object.) Run with go test -tags lexcount.
func TestOneLexPerVoiceAnswer(t *testing.T) {
	before := envelope.Lexes()
	voice := ""
	got := events(t, `{"ok":true,"heard":[{"text":"make it red","atMs":1},{"text":"and bigger","atMs":2}],"selection":[{"id":"r","name":"Rose"},{"id":"s","name":"Stem"}]}`, &voice)
	if n := envelope.Lexes() - before; n != 1 || len(got) != 2 || got[0].Meta["selection"] != "Rose, Stem" {
		t.Errorf("events %+v, the answer read %d times: want two utterances with the selection, once", got, n)
	}
}
