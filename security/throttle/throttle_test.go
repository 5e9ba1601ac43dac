package throttle

import (
	"sync"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newBudget() (*Budget, *clock) {
	c := &clock{t: time.Unix(1e9, 0)}
	b := New()
	b.now = c.now
	return b, c
}

func TestBurstThenRate(t *testing.T) {
	b, c := newBudget()
	for i := range Burst {
		if ok, _ := b.Take(); !ok {
			t.Fatalf("failed check %d of the burst refused", i+1)
		}
	}
	ok, started := b.Take()
	if ok || !started {
		t.Fatalf("check %d: Take = %v, %v; want refused, starting a throttled period", Burst+1, ok, started)
	}
	if _, started := b.Take(); started {
		t.Fatal("a second refusal in the same period says it started one: it would be logged twice")
	}
	// One second later, PerSecond more checks may run, and no more.
	c.add(time.Second)
	for i := range PerSecond {
		if ok, _ := b.Take(); !ok {
			t.Fatalf("after 1 s, check %d refused", i+1)
		}
	}
	if ok, _ := b.Take(); ok {
		t.Fatalf("after 1 s, check %d allowed: the rate is over %d/s", PerSecond+1, PerSecond)
	}
}

// A right credential costs nothing: its unit comes back.
func TestRefund(t *testing.T) {
	b, _ := newBudget()
	for range 10 * Burst {
		if ok, _ := b.Take(); !ok {
			t.Fatal("successful checks used up the budget")
		}
		b.Refund()
	}
}

// However many sockets guess at once, no more than the budget fails.
func TestParallelGuessesBounded(t *testing.T) {
	b, _ := newBudget()
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if ok, _ := b.Take(); ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != Burst {
		t.Fatalf("600 parallel guesses in no time: %d checked, want %d", allowed, Burst)
	}
}

// A sustained attack is one throttling period, logged once, however often
// the budget lets one check through.
func TestSustainedAttackIsOnePeriod(t *testing.T) {
	b, c := newBudget()
	periods := 0
	for range 10 * 60 { // a minute of guesses at 10 per refill step
		for range 10 {
			if _, started := b.Take(); started {
				periods++
			}
		}
		c.add(time.Second / 10)
	}
	if periods != 1 {
		t.Fatalf("a minute of sustained guessing started %d throttled periods, want 1", periods)
	}
}

// After an attack stops, a tab is admitted within a tenth of a second; once
// the budget has refilled, the next attack is a new period, logged again.
func TestRecovery(t *testing.T) {
	b, c := newBudget()
	for range 1000 {
		b.Take()
	}
	c.add(time.Second / PerSecond)
	if ok, _ := b.Take(); !ok {
		t.Fatal("a tenth of a second after the attack, the check was still refused")
	}
	c.add(time.Second * Burst / PerSecond)
	for range Burst {
		b.Take()
	}
	if _, started := b.Take(); !started {
		t.Fatal("an attack after the budget refilled did not start a new throttled period")
	}
}
