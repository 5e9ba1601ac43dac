package attempts

import (
	"strconv"
	"strings"
	"testing"
)

// Repeats merge with a count and move to the end; at most Keep kinds stay.
func TestRefusalsMergeAndBound(t *testing.T) {
	var l Log
	l.Refuse(Busy, "https://a", "close the other tab")
	l.Refuse(Site, "https://evil", "wrong site")
	l.Refuse(Busy, "https://a", "close the other tab")
	s := l.Snapshot()
	if len(s.Refusals) != 2 || s.Refusals[1].Reason != Busy || s.Refusals[1].Count != 2 {
		t.Fatalf("refusals %+v, want site then busy x2", s.Refusals)
	}
	for i := range 3 * Keep {
		l.Refuse(Site, "https://o"+strconv.Itoa(i), "m")
	}
	if s := l.Snapshot(); len(s.Refusals) != Keep {
		t.Fatalf("%d refusals kept, want %d", len(s.Refusals), Keep)
	}
}

// A timed-out wait tells "the browser never tried" from "it tried and was
// turned away", and leads with the refusal.
func TestExplain(t *testing.T) {
	var l Log
	if got := Explain(l.Snapshot(), l.Snapshot()); !strings.Contains(got, "never tried") {
		t.Errorf("nothing dialled: %q", got)
	}
	before := l.Snapshot()
	l.Attempt()
	l.Refuse(SpentToken, "https://a", "Open the agent panel for a fresh token.")
	if got := Explain(l.Snapshot(), before); !strings.HasPrefix(got, "The tab is dialling and being refused (spent_token)") {
		t.Errorf("refused during the wait: %q", got)
	}
	later := l.Snapshot()
	if got := Explain(l.Snapshot(), later); strings.Contains(got, "refused") || strings.Contains(got, "never tried") {
		t.Errorf("a refusal before the wait, none during it: %q", got)
	}
	var nilLog *Log
	nilLog.Attempt()
	nilLog.Refuse(Busy, "", "")
	if s := nilLog.Snapshot(); s.Attempts != 0 || s.Refusals == nil {
		t.Errorf("a nil log: %+v", s)
	}
}
