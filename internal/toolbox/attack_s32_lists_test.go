package toolbox

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestSec_T9_ListenAnswerOfALongSelectionAllocatesLessThanTwiceIt: a
// voice.listen answer of one utterance and a selection of 4 MB of tiny
// entries ({"id":"a"}, 380,000 of them). listen prints 100 of them and
// counts the rest (selectionMore), yet selection writes every entry's
// line (line: gate.Guard.AppendObject) before it checks the bounds, so
// the answer costs about 90 MB of garbage (110 MB under -race) and a
// second of CPU of the shell (60 MB: 1.4 GB and 2.6 s), and the tab may answer every ask.
// An outside attack's finding: it failed on 56bb0e5 and at bf91d3c alike.
func TestSec_T9_ListenAnswerOfALongSelectionAllocatesLessThanTwiceIt(t *testing.T) {
	n := 4 << 20 / 11
	sel := strings.TrimSuffix(strings.Repeat(`{"id":"a"},`, n), ",")
	reply := []byte(`{"ok":true,"heard":[{"text":"make it red","atMs":1}],"selection":[` + sel + `]}`)
	answer, err := door(reply, nil)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	lines, _ := heardLines(readVoice(answer))
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	if len(lines) != 1 || !strings.Contains(string(lines[0]), fmt.Sprintf(`"selectionMore":%d`, n-maxSelection)) {
		t.Fatalf("lines %.300s, want one with the selection's count past its bounds", lines)
	}
	if alloc >= uint64(2*len(reply)) {
		t.Errorf("listen allocated %d KiB for an answer of %d KiB, want less than twice it", alloc>>10, len(reply)>>10)
	}
}
