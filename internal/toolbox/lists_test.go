package toolbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// listenLines is what listen prints of the tab's answer reply.
func listenLines(t *testing.T, reply string) ([]map[string]json.RawMessage, int) {
	t.Helper()
	answer, err := door([]byte(reply), nil)
	if err != nil {
		t.Fatalf("door: %v", err)
	}
	lines, dropped := heardLines(readVoice(answer))
	var out []map[string]json.RawMessage
	for _, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		out = append(out, m)
	}
	return out, dropped
}

// TestSec_ListenHeardAfterAWideListIsPrinted: listen prints what the
// user said whatever lists the answer carries before it. (The reverted
// door counted it dropped after two objects of gate.MaxMembers.)
func TestSec_ListenHeardAfterAWideListIsPrinted(t *testing.T) {
	var b strings.Builder
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
	lines, dropped := listenLines(t, `{"ok":true,"a":[`+b.String()+`],"heard":[{"text":"make it red","atMs":1}]}`)
	if len(lines) != 1 || string(lines[0]["heard"]) != `"make it red"` || dropped != 0 {
		t.Errorf("lines %q, %d dropped: want the one utterance", lines, dropped)
	}
}

// TestSec_ListenSelectionAfterEntriesWithoutIDIsPrinted: the selection
// leaves out entries without an id, however many come first. (The
// reverted door printed an empty selection after 128 of them.)
func TestSec_ListenSelectionAfterEntriesWithoutIDIsPrinted(t *testing.T) {
	lines, _ := listenLines(t, `{"ok":true,"heard":[{"text":"make it red","atMs":1}],"selection":[`+strings.Repeat(`{"name":"no id"},`, 128)+`{"id":"r","name":"Rose"}]}`)
	if len(lines) != 1 || string(lines[0]["selection"]) != `[{"id":"r","name":"Rose"}]` || lines[0]["selectionMore"] != nil {
		t.Errorf("lines %q: want the selection [{id r, name Rose}], nothing more", lines)
	}
}
