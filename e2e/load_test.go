//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Load on loopback (issue 13), bounded: counts, not durations. Every
// assertion is about correctness and a return to the starting figures,
// never about how long something took.

// loadClient is patient: under -race on a shared machine 1,000 calls at
// once may queue for a while; the bound is a failure limit only.
var loadClient = &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 2 * time.Minute}

func loadCall(port int, key string, body any) (map[string]any, error) {
	req, err := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/call", port), bytes.NewReader(mustJSON(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-stitchslop-key", key)
	resp, err := loadClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("HTTP %d, body %q: %v", resp.StatusCode, data, err)
	}
	return m, nil
}

// TestLoad_ConcurrentCalls: 1,000 control-plane /call requests at once with
// a tab attached: every one gets its own answer (the tab echoes each
// call's argument back), and the bridge returns to its starting figures.
func TestLoad_ConcurrentCalls(t *testing.T) {
	t.Parallel()
	const calls = 1000
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	connectPage(t, b, map[string]any{"token": tok})
	b.awaitConnected(true)
	key := b.session().Key
	base := b.figures()
	var rounds []figures
	for round := range 3 {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var wrong []string
		start := make(chan struct{})
		for i := range calls {
			wg.Go(func() {
				<-start
				env, err := loadCall(b.port, key, map[string]any{"command": "render.png", "args": map[string]any{"n": i}})
				var got any
				if err == nil {
					args, _ := env["args"].(map[string]any)
					got = args["n"]
				}
				if err != nil || env["ok"] != true || got != float64(i) {
					mu.Lock()
					wrong = append(wrong, fmt.Sprintf("call %d: %v %v", i, env, err))
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
		if len(wrong) > 0 {
			t.Fatalf("round %d: %d of %d concurrent calls not answered with their own reply; first: %s", round+1, len(wrong), calls, wrong[0])
		}
		rounds = append(rounds, b.awaitBaseline(base, 4))
	}
	wantNoGrowth(t, rounds)
	t.Logf("%d rounds of %d concurrent /call, all answered; before: %v; after each round: %v", len(rounds), calls, base, rounds)
	b.mustRun()
}

// TestLoad_IdleSocketsAndFailedHandshakes: 300 slow or idle sockets held
// open (150 that never finish their HTTP request, 150 upgrades that never
// send a handshake) and 1,000 failed handshakes in a row (bad JSON, an
// oversized first frame, a foreign Origin, a socket closed before its
// first frame): a genuine tab then attaches at its first try, and once the
// sockets go, descriptors, goroutines and memory return to where they
// started.
//
// Wrong credentials are not among the failures: past a burst of them the
// bridge refuses every handshake for a moment by design (THREAT_MODEL T5),
// which TestThrottle covers.
func TestLoad_IdleSocketsAndFailedHandshakes(t *testing.T) {
	t.Parallel()
	const idleHTTP, idleWS, failures = 150, 150, 1000
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	first, hello := connectPage(t, b, map[string]any{"token": tok})
	secret := hello.str("pairingSecret")
	first.conn.Close()
	b.awaitConnected(false)
	base := b.figures()

	var rounds []figures
	var during figures
	for range 3 {
		func() {
			var held []io.Closer
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			addr := fmt.Sprintf("127.0.0.1:%d", b.port)
			for i := range idleHTTP {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatalf("slow socket %d: %v", i, err)
				}
				fmt.Fprintf(c, "GET /status HTTP/1.1\r\nHost: %s\r\n", addr) // and never the blank line
				held = append(held, c)
			}
			for i := range idleWS {
				c, _, err := dialWS(b.port, originHeader(testOrigin))
				if err != nil {
					t.Fatalf("idle upgrade %d: %v", i, err)
				}
				held = append(held, c)
			}

			kinds := []func() error{
				func() error { // bad JSON
					c, _, err := dialWS(b.port, originHeader(testOrigin))
					if err != nil {
						return err
					}
					defer c.Close()
					c.WriteMessage(websocket.TextMessage, []byte("{not json"))
					return wantClosed(c)
				},
				func() error { // a first frame over the pre-auth limit
					c, _, err := dialWS(b.port, originHeader(testOrigin))
					if err != nil {
						return err
					}
					defer c.Close()
					c.WriteMessage(websocket.TextMessage, []byte(`{"secret":"`+strings.Repeat("s", 8<<10)+`"}`))
					return wantClosed(c)
				},
				func() error { // a foreign site
					c, resp, err := dialWS(b.port, originHeader("https://evil.example"))
					if err == nil {
						c.Close()
						return fmt.Errorf("a foreign Origin was upgraded")
					}
					if resp == nil || resp.StatusCode != http.StatusForbidden {
						return fmt.Errorf("a foreign Origin: %v, want 403", err)
					}
					return nil
				},
				func() error { // gone before its first frame
					c, _, err := dialWS(b.port, originHeader(testOrigin))
					if err != nil {
						return err
					}
					return c.Close()
				},
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			var errs []error
			next := make(chan int)
			for range 8 {
				wg.Go(func() {
					for i := range next {
						if err := kinds[i%len(kinds)](); err != nil {
							mu.Lock()
							errs = append(errs, fmt.Errorf("failure %d: %w", i, err))
							mu.Unlock()
						}
					}
				})
			}
			for i := range failures {
				next <- i
			}
			close(next)
			wg.Wait()
			if len(errs) > 0 {
				t.Fatalf("%d of %d failed handshakes did not fail as they should; first: %v", len(errs), failures, errs[0])
			}
			during = b.figures()

			// With all 300 still open, the genuine tab attaches at its first try.
			p := openPage(t, b.port, false)
			p.serve(defaultHandler)
			wantHello(t, p.handshake(map[string]any{"secret": secret}), b.port)
			if _, env := b.ctl("POST", "/call", describe); env["ok"] != true {
				t.Errorf("/call with 300 idle sockets open: got %v, want the tab's answer", env)
			}
			p.conn.Close()
			for _, c := range held {
				c.Close()
			}
			held = nil
			b.awaitConnected(false)
			rounds = append(rounds, b.awaitBaseline(base, 4))
		}()
	}
	wantNoGrowth(t, rounds)
	t.Logf("%d rounds of %d idle sockets and %d failed handshakes; before: %v; under load: %v; after each round: %v", len(rounds), idleHTTP+idleWS, failures, base, during, rounds)
	b.mustRun()
}

// wantClosed reads until the bridge closes c, and fails if it does not.
func wantClosed(c *websocket.Conn) error {
	c.SetReadDeadline(time.Now().Add(guard))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			if isTimeout(err) {
				return fmt.Errorf("socket still open after %v, want it closed", guard)
			}
			return nil
		}
	}
}

// TestRel_SleepAndWake: a bridge suspended (SIGSTOP) for longer than the
// heartbeat's dead time, then resumed (SIGCONT): the call that was waiting
// gets an answer instead of hanging, and the tab re-attaches by its
// pairing at once, whatever the bridge made of the stale socket.
func TestRel_SleepAndWake(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, timings: "ping=100ms,dead=800ms,stale=600ms,call=1500ms"})
	p := openPage(t, b.port, false)
	p.serve(func(command string, args map[string]any) map[string]any {
		if command == "slow.thing" {
			return nil // never answered
		}
		return defaultHandler(command, args)
	})
	hello := p.handshake(map[string]any{"token": tok})
	wantHello(t, hello, b.port)
	key := b.session().Key
	got := make(chan map[string]any, 1)
	go func() {
		env, err := callEnv(b.port, key, map[string]any{"command": "slow.thing", "args": map[string]any{}})
		if err != nil {
			env = map[string]any{"transport error": err.Error()}
		}
		got <- env
	}()
	p.command(0)
	b.signal(syscall.SIGSTOP)
	time.Sleep(2 * time.Second) // the fault: a laptop asleep, longer than dead and the call's timeout
	b.signal(syscall.SIGCONT)
	select {
	case env := <-got:
		wantFailure(t, "call waiting across a sleep", env, "timeout", "disconnected")
	case <-time.After(3 * guard):
		t.Fatal("call waiting across a sleep: no answer, want timeout or disconnected")
	}
	// The tab's own heartbeat gave up during the sleep; it reconnects by
	// its pairing.
	p.conn.Close()
	connectPage(t, b, map[string]any{"secret": hello.str("pairingSecret")})
	if _, env := b.ctl("POST", "/call", describe); env["ok"] != true {
		t.Errorf("/call after the sleep: got %v, want the tab's answer", env)
	}
	b.mustRun()
}
