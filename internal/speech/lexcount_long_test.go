//go:build lexcount

package speech

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// TestOneLexPerVoiceAnswerOfListsPastTheRecords is TestOneLexPerVoiceAnswer
// with a selection of 600 entries before the heard: the door records at
// most 1,024 records of a reply's lists (envelope's maxRecs; an entry of
// two members is three), so such a selection is read again, once, as the
// face walks it (envelope's stream): twice in all, never more, and nothing
// lost. Recording every list whole would cost memory a page sets; an
// outside attack found the second read (issue 34 asks one), and it is the
// price of that bound. Run with go test -tags lexcount.
func TestOneLexPerVoiceAnswerOfListsPastTheRecords(t *testing.T) {
	sel := strings.TrimSuffix(strings.Repeat(`{"id":"r","name":"Rose"},`, 600), ",")
	before := envelope.Lexes()
	voice := ""
	got := events(t, `{"ok":true,"selection":[`+sel+`],"heard":[{"text":"make it red","atMs":1},{"text":"and bigger","atMs":2}]}`, &voice)
	if n := envelope.Lexes() - before; n != 2 || len(got) != 2 {
		t.Errorf("%d events, the answer read %d times: want two utterances, read twice (the selection past the records once more)", len(got), n)
	}
}
