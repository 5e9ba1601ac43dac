package speech

import (
	"fmt"
	"strings"
	"testing"
)

// wide is a list of two objects of 10,000 members (envelope.MaxMembers,
// which the door takes), as a design's data could be.
func wide() string {
	var b strings.Builder
	b.WriteString("[")
	for o := range 2 {
		if o > 0 {
			b.WriteString(",")
		}
		b.WriteString("{")
		for i := range 10_000 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"k%d":0`, i)
		}
		b.WriteString("}")
	}
	return b.String() + "]"
}

// TestAttack_VoiceUtteranceAfterAWideListIsHeard: what the user said
// reaches the channel whatever lists the answer carries before it, as
// before the lists were kept. Found: a list of wide objects before heard
// spends the door's maxKept (envelope reply.go lister.add), heard's
// entries are only counted (List.More), and answer counts the utterance
// dropped: the model is told one was dropped, not what the user said.
func TestAttack_VoiceUtteranceAfterAWideListIsHeard(t *testing.T) {
	voice := ""
	got := events(t, `{"ok":true,"a":`+wide()+`,"heard":[{"text":"make it red","atMs":1}]}`, &voice)
	if len(got) != 1 || got[0].Content != "make it red" {
		t.Errorf("events %+v: want the one utterance", got)
	}
}

// TestAttack_VoiceUtteranceAfterBlankEntriesIsHeard: blank utterances are
// skipped, not counted (answer), however many come first. Found: past
// envelope.MaxListed (128) entries the door only counts them, so an
// utterance after 128 blank ones is counted dropped, though
// MaxUtterances (20) is far from reached.
func TestAttack_VoiceUtteranceAfterBlankEntriesIsHeard(t *testing.T) {
	voice := ""
	got := events(t, `{"ok":true,"heard":[`+strings.Repeat(`{"text":" "},`, 128)+`{"text":"make it red"}]}`, &voice)
	if len(got) != 1 || got[0].Content != "make it red" {
		t.Errorf("events %+v: want the one utterance", got)
	}
}

// TestAttack_VoiceSelectionAfterNamelessEntriesIsNamed: the selection's
// names (meta) skip entries without a name, however many come first.
// Found: the 129th entry on is only counted, so the named entry after
// 128 nameless ones is neither named nor counted ("and N more" needs a
// name shown), and the event carries no selection.
func TestAttack_VoiceSelectionAfterNamelessEntriesIsNamed(t *testing.T) {
	voice := ""
	got := events(t, `{"ok":true,"heard":[{"text":"make it red"}],"selection":[`+strings.Repeat(`{"id":"x"},`, 128)+`{"id":"r","name":"Rose"}]}`, &voice)
	if len(got) != 1 || got[0].Meta["selection"] != "Rose" {
		t.Errorf("events %+v: want the utterance with selection Rose", got)
	}
}
