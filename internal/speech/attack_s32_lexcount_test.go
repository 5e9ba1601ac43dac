//go:build lexcount

package speech

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// TestAttack_OneLexPerVoiceAnswerOfLongLists is TestOneLexPerVoiceAnswer
// with a selection of 600 entries before the heard: issue 34 item 2 counts
// one lex per reply per process, but the door records at most 1,024
// records of a reply's lists (envelope's maxRecs; an entry of two members
// is three), so a page that sends a selection of over 341 such entries
// has it read again (envelope's stream) each time a face walks it: 2
// here, 3 with a heard as long. Bounded (a list is read again once a
// walk, and each face walks it once), but not the one read the issue
// asks for. Fails on main at 56bb0e5. Run with go test -tags lexcount.
func TestAttack_OneLexPerVoiceAnswerOfLongLists(t *testing.T) {
	sel := strings.TrimSuffix(strings.Repeat(`{"id":"r","name":"Rose"},`, 600), ",")
	before := envelope.Lexes()
	voice := ""
	got := events(t, `{"ok":true,"selection":[`+sel+`],"heard":[{"text":"make it red","atMs":1},{"text":"and bigger","atMs":2}]}`, &voice)
	if n := envelope.Lexes() - before; n != 1 || len(got) != 2 {
		t.Errorf("%d events, the answer read %d times: want two utterances, read once", len(got), n)
	}
}
