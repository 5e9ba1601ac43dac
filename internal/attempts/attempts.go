// Package attempts keeps what the bridge saw of tabs trying to attach: how
// many dialled, when the last did, and the last refusals with their
// reasons. The page shows a refused tab only as "Waiting to connect", so
// this record is how the agent (connection_status, a timed-out wait) and the
// shell (/status) tell protocol.md §5's two cases apart: the browser never
// tried (nothing dialled: the app's switch, or the site's CSP), or it tried
// and was turned away (and why, and what fixes it).
package attempts

import (
	"slices"
	"strconv"
	"strings"
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
	DemoPairing  = "demo_pairing"  // its pairing is one `stitchslop demo` made (T17)
)

// Keep is how many distinct refusals are kept; a repeat adds to a count.
const Keep = 10

// Refusal is one kind of refusal, merged over its repeats.
type Refusal struct {
	Reason  string `json:"reason"`
	Origin  string `json:"origin,omitempty"`
	Count   int    `json:"count"`
	LastAt  string `json:"lastAt"`
	Message string `json:"message"`
}

// Log is safe for concurrent use. A nil *Log records nothing.
type Log struct {
	mu       sync.Mutex
	attempts int
	lastAt   string    // stamp of the last attempt
	refusals []Refusal // oldest first
	// elsewhere counts refusals of sites the bridge would not admit.
	elsewhere int
}

func (l *Log) do(f func()) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

// RefuseElsewhere records a refusal of a site that is not allowed at all:
// counted, and nothing else of it kept.
func (l *Log) RefuseElsewhere() { l.do(func() { l.elsewhere++ }) }

// Attempt records a tab dialling the port (an upgrade that named this
// bridge's host).
func (l *Log) Attempt() {
	l.do(func() { l.attempts, l.lastAt = l.attempts+1, stamp(time.Now()) })
}

// Refuse records a refusal of a site the bridge may admit; origin is
// already clipped, and message says what fixes it.
func (l *Log) Refuse(reason, origin, message string) {
	l.do(func() {
		r := Refusal{Reason: reason, Origin: origin, Count: 1, LastAt: stamp(time.Now()), Message: message}
		if i := slices.IndexFunc(l.refusals, func(o Refusal) bool { return o.Reason == reason && o.Origin == origin }); i >= 0 {
			r.Count += l.refusals[i].Count
			l.refusals = slices.Delete(l.refusals, i, i+1)
		}
		l.refusals = append(l.refusals, r)
		l.refusals = l.refusals[max(0, len(l.refusals)-Keep):]
	})
}

type Snapshot struct {
	Attempts      int       `json:"attempts"`
	LastAttemptAt string    `json:"lastAttemptAt,omitempty"`
	Refusals      []Refusal `json:"refusals"`
	// RefusedElsewhere counts the refusals of sites that are not allowed
	// at all, which any web page can cause.
	RefusedElsewhere int       `json:"refusedElsewhere"`
	at               time.Time // when the snapshot was taken
}

// Snapshot returns the record, newest refusal last.
func (l *Log) Snapshot() Snapshot {
	if l == nil {
		return Snapshot{Refusals: []Refusal{}, at: time.Now()}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return Snapshot{Attempts: l.attempts, LastAttemptAt: l.lastAt, Refusals: append([]Refusal{}, l.refusals...), RefusedElsewhere: l.elsewhere, at: time.Now()}
}

// Since returns what happened after an earlier snapshot, each refusal's
// Count the times it came after. A refusal is after it when new, when its
// count grew, or when its last time (to the millisecond, as /status has
// it) is later: an entry pushed out and back has a smaller count.
func (s Snapshot) Since(before Snapshot) (dialled int, refused []Refusal) {
	prior := map[string]int{}
	for _, r := range before.Refusals {
		prior[r.Reason+" "+r.Origin] = r.Count
	}
	for _, r := range s.Refusals {
		c, seen := prior[r.Reason+" "+r.Origin]
		if last, _ := time.Parse(stampLayout, r.LastAt); !seen || r.Count > c || last.After(before.at) {
			r.Count = max(r.Count-c, 1)
			refused = append(refused, r)
		}
	}
	return s.Attempts - before.Attempts, refused
}

const stampLayout = "2006-01-02T15:04:05.000Z"

func stamp(t time.Time) string { return t.UTC().Format(stampLayout) }

// Taken returns s as taken at t: a record read from another bridge's
// /status is dated when it was read.
func (s Snapshot) Taken(t time.Time) Snapshot {
	s.at = t
	if s.Refusals == nil {
		s.Refusals = []Refusal{}
	}
	return s
}

// Explain says, for a wait that timed out, what the bridge saw since
// before. Refusals of sites not allowed are only counted: any web page can
// cause them.
func Explain(now, before Snapshot) string {
	dialled, refused := now.Since(before)
	elsewhere := ""
	switch n := now.RefusedElsewhere - before.RefusedElsewhere; {
	case n == 1:
		elsewhere = " 1 connection" + elsewhereNote
	case n > 1:
		elsewhere = " " + strconv.Itoa(n) + " connections" + elsewhereNote
	}
	switch {
	case len(refused) > 0:
		parts := make([]string, 0, len(refused))
		for _, r := range refused {
			times := strconv.Itoa(r.Count) + " times"
			if r.Count == 1 {
				times = "once"
			}
			from := ""
			if r.Origin != "" {
				from = " from " + r.Origin
			}
			parts = append(parts, r.Reason+from+" ("+times+"): "+Advice(r.Reason))
		}
		return "The tab is dialling and being refused, so it is not a question of waiting: " + strings.Join(parts, " ") + elsewhere
	case elsewhere != "":
		return "No tab from a site this bridge may serve dialled during the wait." + elsewhere + " " + noAttempt
	case dialled > 0:
		return "Something dialled this bridge during the wait but did not finish attaching; waiting again is fine."
	case now.Attempts == 0:
		return "Nothing has dialled this bridge at all: the browser never tried. " + noAttempt
	}
	return "No tab dialled during the wait (the last attempt was at " + now.LastAttemptAt + "). " + noAttempt
}

const elsewhereNote = " from sites that are not allowed were refused; any web page can cause these, so they say nothing about your tab and need nothing done."

const noAttempt = "That is not a credential problem (do not ask for a token): the tab is not trying. " +
	"The Allow agent connections switch in the Stitch Slop tab may be off, the browser may be blocking the connection, or the tab may be connected to another bridge or another tab; the words the Stitch Slop panel shows under Allow agent connections say which. Waiting again is fine."

// Advice is a sentence for the agent, the same whatever the tab sent.
func Advice(reason string) string {
	if a, ok := advice[reason]; ok {
		return a
	}
	return "ask the user to paste the line the Stitch Slop agent panel shows, then call pair with it."
}

const unknownCredential = "the tab's pairing or token is not one this bridge knows; ask the user to paste the line the Stitch Slop agent panel shows, then call pair with its token (and origin)."

var advice = map[string]string{
	Site:         "this bridge does not admit the tab's site without a credential for it; ask the user to paste the line the Stitch Slop agent panel shows (a token and the site), then call pair with its token and origin.",
	SpentToken:   "the tab's token was used already, and tokens work once; ask the user to reload the Stitch Slop page for a new token, then paste the panel's line, and call pair with it.",
	WrongPairing: unknownCredential,
	UnknownToken: unknownCredential,
	Busy:         "another tab is attached to this bridge; ask the user whether two tabs are meant, and if so call wait_for_connection with ownBridge: true for the second.",
	RateLimited:  "too many wrong credentials were tried just now; the tab gets in a moment after they stop, so wait and call again.",
	DemoPairing:  "the tab's pairing was made by `stitchslop demo`, and only a demo admits it: the demo's page is not Stitch Slop. If the user means the real app, ask them to open it and paste the line its agent panel shows, then call pair with it.",
}

// PanelWords lets the user read out the panel's status words when a wait
// times out.
const PanelWords = `What the Stitch Slop panel shows under "Allow agent connections" says which case it is: ` +
	`"Not connected": the switch is off; ask the user to turn it on. ` +
	`"Waiting to connect": the tab is trying; refusals (above, and in connection_status) say why it is not let in. ` +
	`"Blocked by your browser": the browser refused the site local network access; the user allows it in the site's settings (Chrome remembers a refusal, so it must be changed there), then reloads. ` +
	`"Connected in another tab": another Stitch Slop tab holds the connection; use that tab, or close it. ` +
	`"Agent needs an update": this bridge speaks an older protocol than the app; update stitchslop-bridge. ` +
	`"Connected": the tab is attached to a different bridge; connection_status lists the other bridges (otherBridges).`
