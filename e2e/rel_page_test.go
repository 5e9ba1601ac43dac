//go:build unix

package e2e

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Pages that stop reading or misbehave (issue 13): the bridge stays
// correct and every caller gets an answer.

var describe = map[string]any{"command": "scene.describe", "args": map[string]any{}}

// TestRel_PageStopsReading: a tab that stops reading (its receive buffer
// full) cannot stall the bridge: the control plane keeps answering while
// the bridge's write to it waits, the write gives up at its deadline, the
// tab is dropped, every caller gets an answer, and the tab re-attaches by
// its pairing.
func TestRel_PageStopsReading(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	c, _, err := smallBufferDialer.Dial("ws://127.0.0.1:"+itoa(b.port)+"/", originHeader(testOrigin))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	c.WriteMessage(websocket.TextMessage, mustJSON(map[string]any{"token": tok}))
	_, hello, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	secret := frameOf(hello).str("pairingSecret")
	c.WriteMessage(websocket.TextMessage, mustJSON(map[string]any{"tools": defaultTools}))
	b.awaitStatus("tools listed", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })
	// From here the tab reads nothing. Calls carrying 1 MB each fill its
	// buffer and the bridge's send queue behind it.
	key := b.session().Key
	big := map[string]any{"command": "scene.describe", "args": map[string]any{"blob": strings.Repeat("x", 1<<20)}}
	const callers = 8
	var wg sync.WaitGroup
	envs := make([]map[string]any, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { envs[i], errs[i] = callEnv(b.port, key, big) })
	}
	// While the writer is stuck, the control plane answers.
	for range 5 {
		if st, _ := b.ctl("GET", "/status", nil); st != 200 {
			t.Errorf("/status while the tab is not reading: HTTP %d, want 200", st)
		}
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d of a tab that stopped reading: %v, want an answer", i, errs[i])
		}
		wantFailure(t, "call to a tab that stopped reading", envs[i], "disconnected", "not_connected")
	}
	b.awaitConnected(false)
	// The tab comes back by its pairing and is served.
	connectPage(t, b, map[string]any{"secret": secret})
	b.awaitConnected(true)
	if _, env := b.ctl("POST", "/call", describe); env["ok"] != true {
		t.Errorf("/call after the tab came back: got %v, want its answer", env)
	}
	b.mustRun()
}

// TestRel_PageVanishesMidCall: a tab whose socket drops (no close frame)
// while a call waits: the caller gets "disconnected" at once, not a
// timeout a minute later.
func TestRel_PageVanishesMidCall(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	p.mustSend(map[string]any{"tools": defaultTools})
	b.awaitConnected(true)
	key := b.session().Key
	got := make(chan map[string]any, 1)
	go func() {
		env, err := callEnv(b.port, key, describe) // the default call timeout is 60 s
		if err != nil {
			env = map[string]any{"transport error": err.Error()}
		}
		got <- env
	}()
	p.command(0)
	p.conn.NetConn().Close() // vanish: no close frame
	select {
	case env := <-got:
		wantFailure(t, "call whose tab vanished", env, "disconnected")
	case <-time.After(3 * guard):
		t.Fatalf("call whose tab vanished: no answer, want disconnected")
	}
	b.mustRun()
}

// TestRel_PageFlaps: a tab that connects and closes every 100 ms (for 5 s
// here; scripts/soak runs it for a minute) while callers keep calling: each
// call gets the tab's answer or a clear not_connected/disconnected, the
// bridge keeps no goroutine or descriptor per flap, and a steady tab then
// works.
func TestRel_PageFlaps(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	first, hello := connectPage(t, b, map[string]any{"token": tok})
	secret := hello.str("pairingSecret")
	key := b.session().Key
	// The first tab goes; the baseline is taken with none attached.
	first.conn.Close()
	b.awaitConnected(false)
	base := b.figures()

	stop := make(chan struct{})
	var calls, answered int
	var wg sync.WaitGroup
	var mu sync.Mutex
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }); wg.Wait() }
	defer halt() // also on a t.Fatal below: no caller outlives the test
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				env, err := callEnv(b.port, key, describe)
				mu.Lock()
				calls++
				switch {
				case err != nil:
					t.Errorf("call during flapping: %v, want an answer", err)
				case env["ok"] == true:
					answered++
				default:
					wantFailure(t, "call during flapping", env, "not_connected", "disconnected")
				}
				mu.Unlock()
			}
		})
	}
	end := time.Now().Add(5 * time.Second)
	flaps, busy := 0, 0
	for time.Now().Before(end) {
		c, _, err := dialWS(b.port, originHeader(testOrigin))
		if err != nil {
			t.Fatalf("flap %d: %v", flaps, err)
		}
		pg := newPage(t, c, false)
		pg.serve(defaultHandler)
		pg.mustSend(map[string]any{"secret": secret})
		// The tab before may not be detached yet (an abrupt close is
		// noticed a moment later): then this one is refused busy, and
		// the next flap tries again, as a real tab would.
		if f, _ := pg.frameAt(0, nil); f.str("error") == "busy" {
			busy++
		} else {
			wantHello(t, f, b.port)
			pg.send(map[string]any{"tools": defaultTools})
		}
		time.Sleep(100 * time.Millisecond) // the fault itself: a tab that lives 100 ms
		if flaps%2 == 0 {
			c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
		}
		c.Close() // every other flap abruptly, without a close frame
		<-pg.gone
		flaps++
	}
	halt()
	t.Logf("%d flaps (%d refused busy), %d calls, %d answered by the tab", flaps, busy, calls, answered)
	b.awaitConnected(false)
	settled := b.awaitBaseline(base, 4)
	t.Logf("before: %v; after: %v", base, settled)
	connectPage(t, b, map[string]any{"secret": secret})
	if _, env := b.ctl("POST", "/call", describe); env["ok"] != true {
		t.Errorf("/call on a steady tab after flapping: got %v, want its answer", env)
	}
	b.mustRun()
}

// TestRel_PageUnansweredPings: a tab that leaves pings unanswered and sends
// nothing is dropped after the heartbeat's dead time; a call waiting on it
// fails with disconnected, and the tab re-attaches by its pairing.
func TestRel_PageUnansweredPings(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, timings: "ping=50ms,dead=600ms,stale=400ms"})
	p := openPage(t, b.port, true) // silent: no pongs
	hello := p.handshake(map[string]any{"token": tok})
	wantHello(t, hello, b.port)
	key := b.session().Key
	env, err := callEnv(b.port, key, describe) // the page never answers
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, "call to a tab that answers no pings", env, "disconnected")
	p.awaitClosed()
	b.awaitConnected(false)
	connectPage(t, b, map[string]any{"secret": hello.str("pairingSecret")})
	if _, env := b.ctl("POST", "/call", describe); env["ok"] != true {
		t.Errorf("/call after the tab came back: got %v, want its answer", env)
	}
}

// TestRel_PageStrayReplies: replies for ids nobody waits for (unknown, or
// timed out a moment ago), ids too large for any number type, and replies
// split into hundreds of fragments: each stray is ignored, each real
// reply reaches its own caller.
func TestRel_PageStrayReplies(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, timings: "call=1s"})
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	p.mustSend(map[string]any{"tools": defaultTools})
	b.awaitConnected(true)
	key := b.session().Key

	// A call the page leaves to time out; its late reply must not answer
	// the next call.
	env, err := callEnv(b.port, key, describe)
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, "unanswered call", env, "timeout")
	late, n := p.command(0)
	p.reply(late, map[string]any{"ok": true, "which": "late"})
	strays := []string{
		`{"id":999999,"ok":true,"which":"unknown"}`,
		`{"id":-1,"ok":true,"which":"negative"}`,
		`{"id":1.5,"ok":true,"which":"fraction"}`,
		`{"id":"1","ok":true,"which":"string"}`,
		`{"id":1e400,"ok":true,"which":"overflow"}`,
		`{"id":` + strings.Repeat("9", 100000) + `,"ok":true,"which":"huge"}`,
		`{"id":{"nested":[1,2,3]},"ok":true,"which":"object"}`,
	}
	for _, s := range strays {
		p.sendText(s)
	}
	// Now the page answers, each reply in 300 fragments with pings
	// between: the caller gets its own answer.
	got := make(chan map[string]any, 1)
	go func() {
		env, err := callEnv(b.port, key, describe)
		if err != nil {
			env = map[string]any{"transport error": err.Error()}
		}
		got <- env
	}()
	f, _ := p.command(n + 1)
	reply := mustJSON(map[string]any{"id": f.id, "ok": true, "which": "fragmented", "pad": strings.Repeat("y", 3000)})
	p.wmu.Lock()
	_, werr := p.conn.NetConn().Write(fragmented(reply, 300))
	p.wmu.Unlock()
	if werr != nil {
		t.Fatalf("write fragments: %v", werr)
	}
	select {
	case env := <-got:
		if env["ok"] != true || env["which"] != "fragmented" {
			t.Errorf("call answered in 300 fragments after %d stray replies: got %v, want the fragmented reply", len(strays), env)
		}
	case <-time.After(3 * guard):
		t.Fatal("call answered in fragments: no answer")
	}
	if p.closed() {
		t.Errorf("tab dropped for stray replies or fragments, want it kept")
	}
	// A tool list in fragments too.
	tools := mustJSON(map[string]any{"tools": defaultTools[:1]})
	p.wmu.Lock()
	p.conn.NetConn().Write(fragmented(tools, 50))
	p.wmu.Unlock()
	b.awaitStatus("one tool, sent in fragments", func(st map[string]any) bool { tl, _ := st["tools"].([]any); return len(tl) == 1 })
	b.mustRun()
}
