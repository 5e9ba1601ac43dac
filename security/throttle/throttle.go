// Package throttle bounds how fast anyone can guess a tab credential
// (THREAT_MODEL.md T5 cred-guess). Stitch Slop tokens may carry as little
// as 24 bits (tok_ and six hex digits), and a local program or a page can
// open handshakes as fast as the machine allows; without a bound, 3,700
// wrong secrets a second were measured from 12 parallel clients.
//
// Budget is one global failure budget: a burst of Burst failed checks,
// refilled at PerSecond. A handshake takes one unit before its credential
// is compared at all, and gives it back if the credential was right, so at
// most Burst + PerSecond*t checks can fail in t seconds however many
// sockets guess in parallel, and a right credential never costs anything.
// Over the budget, the caller refuses the handshake (rate_limited) without
// comparing anything. A tab that was refused while an attack ran attaches
// again as soon as the budget has a unit: a tenth of a second after the
// attack stops.
//
// It does not tell an attacker from the user's own tab: while guesses keep
// the budget empty, the real tab is refused too. That is the price of the
// bound; the page retries on its own.
package throttle

import (
	"sync"
	"time"
)

// Burst failed checks may come at once; then PerSecond more each second.
const (
	Burst     = 20
	PerSecond = 10
)

// Budget is safe for concurrent use.
type Budget struct {
	mu        sync.Mutex
	units     float64
	last      time.Time
	throttled bool
	now       func() time.Time
}

// New returns a full budget.
func New() *Budget {
	return &Budget{units: Burst, now: time.Now}
}

// Take reserves one unit for a credential check. It reports false when the
// budget is empty: the check must not run. started is true for the first
// refusal of a throttling period, which lasts until the budget has refilled
// completely (Burst/PerSecond seconds without a failure), so a sustained
// attack is logged once, not once per attempt or per refill.
func (b *Budget) Take() (ok, started bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Before the first Take, last is the zero time: the refill since then
	// saturates, and the budget is full, as New made it.
	now := b.now()
	b.units = min(Burst, b.units+now.Sub(b.last).Seconds()*PerSecond)
	b.last = now
	if b.units >= Burst {
		b.throttled = false // quiet long enough to refill: a period is over
	}
	if b.units < 1 {
		started = !b.throttled
		b.throttled = true
		return false, started
	}
	b.units--
	return true, false
}

// Refund gives back the unit of a check that succeeded.
func (b *Budget) Refund() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.units = min(Burst, b.units+1)
}
