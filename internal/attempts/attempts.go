// Package attempts keeps what the bridge saw of tabs trying to attach: how
// many dialled, when the last did, and the last refusals with their
// reasons. The page shows a refused tab only as "Waiting to connect", so
// this record is how the agent (connection_status, a timed-out wait) and the
// shell (/status) tell protocol.md §5's two cases apart: the browser never
// tried (nothing dialled: the app's switch, or the site's CSP), or it tried
// and was turned away (and why, and what fixes it).
package attempts

import (
	"strconv"
	"sync"
	"time"
)

// Reasons a tab is refused.
const (
	Site         = "site"          // its Origin is not the site this bridge serves
	SpentToken   = "spent_token"   // its token was already redeemed
	WrongPairing = "wrong_pairing" // its stored secret matches no pairing here
	UnknownToken = "unknown_token" // its token is not the one this bridge holds
	Busy         = "busy"          // another tab is attached
	RateLimited  = "rate_limited"  // too many wrong credentials just now
)

// Keep is how many distinct refusals are kept; a repeat is merged into its
// earlier entry, with a count.
const Keep = 10

// Refusal is one kind of refusal, merged over its repeats.
type Refusal struct {
	Reason  string `json:"reason"`
	Origin  string `json:"origin,omitempty"`
	Count   int    `json:"count"`
	LastAt  string `json:"lastAt"`
	Message string `json:"message"`
	last    time.Time
}

// Log is safe for concurrent use. A nil *Log records nothing.
type Log struct {
	mu       sync.Mutex
	attempts int
	last     time.Time
	refusals []Refusal // oldest first
	// elsewhere counts refusals of sites the bridge would not admit.
	elsewhere     int
	elsewhereLast time.Time
}

// RefuseElsewhere records a refusal of a site that is not allowed at all:
// counted, with its time, and nothing else of it kept.
func (l *Log) RefuseElsewhere() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.elsewhere++
	l.elsewhereLast = time.Now()
}

// Attempt records a tab dialling the port (an upgrade that named this
// bridge's host).
func (l *Log) Attempt() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts++
	l.last = time.Now()
}

// Refuse records a refusal of a site the bridge may admit (configured or
// allowed: security/origin.AllowedSite). origin is the tab's, already
// bounded for display (origin.Clip); message says what fixes it.
func (l *Log) Refuse(reason, origin, message string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	for i, r := range l.refusals {
		if r.Reason == reason && r.Origin == origin {
			r.Count++
			r.last, r.LastAt, r.Message = now, stamp(now), message
			l.refusals = append(append(l.refusals[:i:i], l.refusals[i+1:]...), r)
			return
		}
	}
	l.refusals = append(l.refusals, Refusal{Reason: reason, Origin: origin, Count: 1, LastAt: stamp(now), Message: message, last: now})
	if len(l.refusals) > Keep {
		l.refusals = l.refusals[len(l.refusals)-Keep:]
	}
}

// Snapshot is the record at one moment.
type Snapshot struct {
	Attempts      int       `json:"attempts"`
	LastAttemptAt string    `json:"lastAttemptAt,omitempty"`
	Refusals      []Refusal `json:"refusals"`
	// RefusedElsewhere counts the refusals of sites that are not allowed
	// at all, which any web page can cause.
	RefusedElsewhere int       `json:"refusedElsewhere"`
	elsewhereLast    time.Time // the last of them
	at               time.Time // when the snapshot was taken
}

// Snapshot returns the record, newest refusal last.
func (l *Log) Snapshot() Snapshot {
	if l == nil {
		return Snapshot{Refusals: []Refusal{}, at: time.Now()}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Snapshot{Attempts: l.attempts, Refusals: append([]Refusal{}, l.refusals...), RefusedElsewhere: l.elsewhere, elsewhereLast: l.elsewhereLast, at: time.Now()}
	if !l.last.IsZero() {
		s.LastAttemptAt = stamp(l.last)
	}
	return s
}

// Since returns what happened after an earlier snapshot: how many tabs
// dialled, and the refusals that came after it, newest last.
func (s Snapshot) Since(before Snapshot) (dialled int, refused []Refusal) {
	for _, r := range s.Refusals {
		if r.last.After(before.at) {
			refused = append(refused, r)
		}
	}
	return s.Attempts - before.Attempts, refused
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Explain says, for a wait that timed out, which of protocol.md §5's cases
// it was, leading with a refusal if the tab was turned away during it.
func Explain(now, before Snapshot) string {
	dialled, refused := now.Since(before)
	elsewhere := ""
	if n := now.RefusedElsewhere - before.RefusedElsewhere; n > 0 {
		elsewhere = " " + ElsewhereNote(n)
	}
	switch {
	case len(refused) > 0:
		r := refused[len(refused)-1]
		return "The tab is dialling and being refused (" + r.Reason + "): " + r.Message + elsewhere
	case elsewhere != "":
		return "No tab from a site this bridge may serve dialled during the wait." + elsewhere + " Check that the Stitch Slop tab is open with Allow agent connections on; waiting again is fine."
	case dialled > 0:
		return "Something dialled this bridge during the wait but did not finish attaching; waiting again is fine."
	case now.Attempts == 0:
		return "Nothing has dialled this bridge at all: the browser never tried. Check that the Stitch Slop tab is open with Allow agent connections on; if it is, the site's Content-Security-Policy may be blocking it (the browser console names it). Waiting again is fine."
	}
	return "No tab dialled during the wait (the last attempt was at " + now.LastAttemptAt + "). Check that the tab is open with Allow agent connections on; waiting again is fine."
}

// ElsewhereNote words n refusals of sites that are not allowed, in general
// terms: the one sentence the agent and the shell get about them.
func ElsewhereNote(n int) string {
	what := strconv.Itoa(n) + " connections"
	if n == 1 {
		what = "1 connection"
	}
	return what + " from sites that are not allowed were refused; any web page can cause these, so they say nothing about your tab and need nothing done."
}
