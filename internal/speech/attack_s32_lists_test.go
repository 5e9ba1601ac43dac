package speech

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// TestSec_T9_VoiceAnswerOfALongSelectionAllocatesLessThanTwiceIt: a
// voice.listen answer of one utterance and a selection of 1 MB of tiny
// entries ({"name":"a"}, 80,000 of them). The voice channel names 20 of
// them and counts the rest ("and 80,639 more"), yet meta cleans every
// entry's name in full before it knows the name is only counted:
// Entry.String decodes it, Clip builds a strings.Replacer of its own
// for each call (kilobytes of tables), cleans, splits and joins it, and
// plain maps it again. So the answer costs some 530 MB of garbage
// (under -race, seconds of CPU) (60 MB: 32 GB and 10 s, against the door's
// 0.3 s), and the tab may answer every ask. An outside attack's finding: it failed on 56bb0e5
// and at bf91d3c alike.
func TestSec_T9_VoiceAnswerOfALongSelectionAllocatesLessThanTwiceIt(t *testing.T) {
	n := 1 << 20 / 13
	sel := strings.TrimSuffix(strings.Repeat(`{"name":"a"},`, n), ",")
	reply := []byte(`{"ok":true,"heard":[{"text":"make it red","atMs":1}],"selection":[` + sel + `]}`)
	got, alloc := answerAllocs(t, reply)
	if len(got) != 1 || !strings.HasSuffix(got[0].Meta["selection"], fmt.Sprintf("and %d more", n-20)) {
		t.Fatalf("events %+v, want one naming 20 of the selection and counting the rest", got)
	}
	if alloc >= uint64(2*len(reply)) {
		t.Errorf("the voice channel allocated %d KiB for an answer of %d KiB, want less than twice it", alloc>>10, len(reply)>>10)
	}
}

// TestSec_T9_VoiceAnswerOfALongHeardAllocatesLessThanTwiceIt: the same
// for heard, 1 MB of utterances of one letter ({"text":"a"}, 80,000):
// MaxUtterances are sent and the rest dropped and counted, yet answer
// clipped (Clip, above) every utterance's text before it counted it. It failed
// on 56bb0e5 and at bf91d3c alike (an outside attack's finding).
func TestSec_T9_VoiceAnswerOfALongHeardAllocatesLessThanTwiceIt(t *testing.T) {
	heard := strings.TrimSuffix(strings.Repeat(`{"text":"a"},`, 1<<20/13), ",")
	reply := []byte(`{"ok":true,"heard":[` + heard + `]}`)
	got, alloc := answerAllocs(t, reply)
	if len(got) == 0 || len(got) > MaxUtterances+1 {
		t.Fatalf("%d events, want at most %d utterances and a note of the rest", len(got), MaxUtterances)
	}
	if alloc >= uint64(2*len(reply)) {
		t.Errorf("the voice channel allocated %d KiB for an answer of %d KiB, want less than twice it", alloc>>10, len(reply)>>10)
	}
}

// answerAllocs is the events the voice channel sends of reply, and what
// it allocates to.
func answerAllocs(t *testing.T, reply []byte) ([]Event, uint64) {
	t.Helper()
	env, err := envelope.Decode(reply)
	if err != nil {
		t.Fatal(err)
	}
	var got []Event
	var b budget
	voice := ""
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.answer(Read(env), &voice, func(e Event) { got = append(got, e) })
	runtime.ReadMemStats(&after)
	return got, after.TotalAlloc - before.TotalAlloc
}
