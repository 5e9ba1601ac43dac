package e2e

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// THREAT_MODEL T5: wrong credentials are bounded at a burst of 20, then 10
// a second, for all sockets together; over the budget a handshake is
// refused rate_limited before any comparison, the throttling is logged
// once, and the real tab attaches again soon after the guessing stops.
func TestLimits_CredentialGuessesThrottled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir})

	const guesses, parallel = 150, 12
	var mu sync.Mutex
	answers := map[string]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for w := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < guesses; i += parallel {
				conn, _, err := dialWS(b.port, originHeader(testOrigin))
				if err != nil {
					continue
				}
				conn.SetReadDeadline(time.Now().Add(guard))
				conn.WriteJSON(map[string]any{"secret": newSecret()})
				var reply map[string]any
				conn.ReadJSON(&reply)
				conn.Close()
				code, _ := reply["error"].(string)
				mu.Lock()
				answers[code]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	checked := answers["bad_credential"]
	if allowed := 20 + int(elapsed.Seconds()*10) + 1; checked > allowed {
		t.Errorf("%d wrong secrets were compared in %v, want at most %d (20, then 10/s)", checked, elapsed, allowed)
	}
	if answers["rate_limited"] == 0 || checked+answers["rate_limited"] != guesses {
		t.Fatalf("answers to %d wrong secrets: %v, want bad_credential and rate_limited only", guesses, answers)
	}
	logged := 0
	for _, l := range b.stderr.lines.all() {
		if strings.Contains(l, "rate_limited") {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("the throttling was logged %d times, want once; stderr:\n%s", logged, b.stderr)
	}

	// The real tab: it retries as the page does, and gets in within seconds.
	deadline := time.Now().Add(guard)
	for {
		p := openPage(t, b.port, false)
		f := p.handshake(map[string]any{"secret": secret})
		if f.str("hello") != "" {
			wantHello(t, f, b.port)
			break
		}
		if f.str("error") != "rate_limited" || time.Now().After(deadline) {
			t.Fatalf("the real tab after the attack: %s", f.raw)
		}
		p.awaitClosed()
		time.Sleep(100 * time.Millisecond) // the page's own retry pause
	}
	t.Logf("answers %v in %v; the tab attached %v after the attack", answers, elapsed, time.Since(start)-elapsed)
}
