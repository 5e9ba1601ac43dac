package toolbox

import (
	"encoding/json"
	"fmt"
	"strconv"
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

// TestListenSelectionBoundedAsWritten: entries whose names the gate
// cleans, and so writes again with each "<" six bytes, or marks (a note's
// "["), are measured as the line prints them: the selection stays within
// maxSelectionBytes, and the entries past it are counted.
func TestListenSelectionBoundedAsWritten(t *testing.T) {
	for _, name := range []string{strings.Repeat("<", 120) + "\u200b", "[bridge: " + strings.Repeat("x", 110), "plain"} {
		var sel []string
		for i := range maxSelection {
			sel = append(sel, fmt.Sprintf(`{"id":"%d","name":%q}`, i, name))
		}
		lines, _ := listenLines(t, `{"ok":true,"heard":[{"text":"hi","atMs":1}],"selection":[`+strings.Join(sel, ",")+`]}`)
		var list []json.RawMessage
		if len(lines) != 1 || json.Unmarshal(lines[0]["selection"], &list) != nil {
			t.Fatalf("lines %.300q, want one with a selection", lines)
		}
		more, _ := strconv.Atoi(string(lines[0]["selectionMore"]))
		if n := len(lines[0]["selection"]); n > maxSelectionBytes || len(list)+more != maxSelection || name != "plain" && more == 0 {
			t.Errorf("%.20q: a selection of %d bytes, %d entries and %d more; want at most %d bytes, %d in all", name, n, len(list), more, maxSelectionBytes, maxSelection)
		}
	}
}
