package speech

import (
	"fmt"
	"strings"
	"testing"
)

// wide is a list of two objects of 10,000 members (gate.MaxMembers,
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

// TestSec_VoiceUtteranceAfterAWideListIsHeard: what the user said
// reaches the channel whatever lists the answer carries before it. (The
// reverted door counted it dropped after a list of wide objects.)
func TestSec_VoiceUtteranceAfterAWideListIsHeard(t *testing.T) {
	voice := ""
	got := events(t, `{"ok":true,"a":`+wide()+`,"heard":[{"text":"make it red","atMs":1}]}`, &voice)
	if len(got) != 1 || got[0].Content != "make it red" {
		t.Errorf("events %+v: want the one utterance", got)
	}
}

// TestSec_VoiceUtteranceAfterBlankEntriesIsHeard: blank utterances are
// skipped, not counted (answer), however many come first. (The reverted
// door kept 128 entries, so one after 128 blank ones was counted dropped.)
func TestSec_VoiceUtteranceAfterBlankEntriesIsHeard(t *testing.T) {
	voice := ""
	got := events(t, `{"ok":true,"heard":[`+strings.Repeat(`{"text":" "},`, 128)+`{"text":"make it red"}]}`, &voice)
	if len(got) != 1 || got[0].Content != "make it red" {
		t.Errorf("events %+v: want the one utterance", got)
	}
}

// TestSec_VoiceSelectionAfterNamelessEntriesIsNamed: the selection's
// names (meta) skip entries without a name, however many come first. (The
// reverted door neither named nor counted one after 128 nameless ones.)
func TestSec_VoiceSelectionAfterNamelessEntriesIsNamed(t *testing.T) {
	voice := ""
	got := events(t, `{"ok":true,"heard":[{"text":"make it red"}],"selection":[`+strings.Repeat(`{"id":"x"},`, 128)+`{"id":"r","name":"Rose"}]}`, &voice)
	if len(got) != 1 || got[0].Meta["selection"] != "Rose" {
		t.Errorf("events %+v: want the utterance with selection Rose", got)
	}
}
