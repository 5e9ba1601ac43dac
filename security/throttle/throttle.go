// Package throttle bounds how fast anyone can guess a tab credential
// (THREAT_MODEL.md T5): Stitch Slop tokens may carry as little as 24 bits.
//
// Budget is one global failure budget: a check takes a unit and a right
// credential gives it back, so at most Burst + PerSecond*t checks fail in t
// seconds however many sockets guess. While guesses keep it empty the
// user's tab is refused too, and the page retries on its own.
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

func New() *Budget {
	return &Budget{units: Burst, now: time.Now}
}

// Take reserves one unit for a credential check; false means the check
// must not run. started is true for the first refusal until the budget
// refills, so a sustained attack is logged once.
func (b *Budget) Take() (ok, started bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.units = min(Burst, b.units+now.Sub(b.last).Seconds()*PerSecond)
	b.last = now
	if b.units >= Burst {
		b.throttled = false
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
