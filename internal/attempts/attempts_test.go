package attempts

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
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
	l.Refuse(SpentToken, "https://a", "Open the agent panel for a fresh token.")
	if got := Explain(l.Snapshot(), before); !strings.HasPrefix(got, "The tab is dialling and being refused") ||
		!strings.Contains(got, "spent_token from https://a (2 times): ") || !strings.Contains(got, "reload the Stitch Slop page for a new token") {
		t.Errorf("refused during the wait: %q, want spent_token twice with its advice", got)
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

// Each reason has its own advice; no attempt is never a credential matter.
func TestAdviceAndNoAttempt(t *testing.T) {
	for reason, want := range map[string]string{
		Site: "call pair with its token and origin", SpentToken: "reload the Stitch Slop page", WrongPairing: "paste the line",
		UnknownToken: "paste the line", Busy: "ownBridge: true",
	} {
		if got := Advice(reason); !strings.Contains(got, want) {
			t.Errorf("Advice(%q) = %q, want it to say %q", reason, got, want)
		}
	}
	var l Log
	if got := Explain(l.Snapshot(), l.Snapshot()); !strings.Contains(got, "not a credential problem") {
		t.Errorf("Explain with no attempt = %q, want it to say it is not a credential problem", got)
	}
}

// A refusal read back from /status keeps its time, so Since works on a
// host's record.
func TestRefusalJSONKeepsItsTime(t *testing.T) {
	var l Log
	before := l.Snapshot()
	l.Refuse(Busy, "https://a", "m")
	b, _ := json.Marshal(l.Snapshot())
	var got Snapshot
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if _, refused := got.Taken(time.Now()).Since(before); len(refused) != 1 {
		t.Errorf("Since on a snapshot read from JSON = %v, want the one refusal", refused)
	}
}
