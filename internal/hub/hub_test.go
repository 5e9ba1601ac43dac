package hub

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// fakeConn records frames and answers through the hub when told to.
type fakeConn struct {
	mu        sync.Mutex
	frames    [][]byte
	sent      chan []byte
	reachable bool
	closed    bool
}

func newFake(reachable bool) *fakeConn {
	return &fakeConn{sent: make(chan []byte, 16), reachable: reachable}
}

func (f *fakeConn) Send(b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errors.New("closed")
	}
	f.frames = append(f.frames, b)
	f.sent <- b
	return nil
}
func (f *fakeConn) Close()          { f.mu.Lock(); f.closed = true; f.mu.Unlock() }
func (f *fakeConn) Reachable() bool { return f.reachable }

func attach(t *testing.T, h *Hub, c Conn) {
	t.Helper()
	if _, err := h.Reserve(c, false); err != nil {
		t.Fatalf("Reserve = %v, want nil", err)
	}
	h.Commit(c)
}

func errorCode(t *testing.T, env []byte) string {
	t.Helper()
	var e struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(env, &e); err != nil || e.OK == nil {
		t.Fatalf("envelope %s is not a bridge envelope: %v", env, err)
	}
	return e.Error
}

func TestCallWithoutPage(t *testing.T) {
	h := New(time.Second)
	env := h.Call(context.Background(), "scene.describe", nil, 0).Bytes()
	if got := errorCode(t, env); got != CodeNotConnected {
		t.Fatalf("Call with no page: error = %q, want %q", got, CodeNotConnected)
	}
	if !strings.Contains(string(env), "wait_for_connection") {
		t.Errorf("not-connected message %s does not point at wait_for_connection", env)
	}
}

func TestCallsMatchedByIDInAnyOrder(t *testing.T) {
	h := New(5 * time.Second)
	c := newFake(true)
	attach(t, h, c)
	results := make(chan string, 2)
	for _, cmd := range []string{"a", "b"} {
		go func() { results <- string(h.Call(context.Background(), cmd, json.RawMessage(`{"k":1}`), 0).Bytes()) }()
	}
	var reqs []request
	for range 2 {
		var r request
		json.Unmarshal(<-c.sent, &r)
		reqs = append(reqs, r)
	}
	if reqs[0].ID == reqs[1].ID {
		t.Fatalf("two calls got the same id %d", reqs[0].ID)
	}
	// Answer in reverse order.
	for i := 1; i >= 0; i-- {
		reply, _ := json.Marshal(map[string]any{"id": reqs[i].ID, "ok": true, "cmd": reqs[i].Command})
		if !h.Deliver(c, reqs[i].ID, mustReply(reply)) {
			t.Fatalf("Deliver(%d) = false, want true", reqs[i].ID)
		}
	}
	got := map[string]bool{}
	for range 2 {
		r := <-results
		var m struct{ Cmd string }
		json.Unmarshal([]byte(r), &m)
		got[m.Cmd] = true
	}
	if !got["a"] || !got["b"] {
		t.Fatalf("replies reached callers as %v, want both a and b", got)
	}
}

func TestCallTimeout(t *testing.T) {
	h := New(20 * time.Millisecond)
	attach(t, h, newFake(true))
	if got := errorCode(t, h.Call(context.Background(), "slow", nil, 0).Bytes()); got != CodeTimeout {
		t.Fatalf("unanswered call: error = %q, want %q", got, CodeTimeout)
	}
}

func TestDetachFailsPendingAndDropsTools(t *testing.T) {
	h := New(time.Hour)
	c := newFake(true)
	attach(t, h, c)
	notified, stop := h.Watch()
	defer stop()
	h.SetTools(c, nil, nil)
	<-notified
	done := make(chan []byte)
	go func() { done <- h.Call(context.Background(), "x", nil, 0).Bytes() }()
	<-c.sent
	h.Detach(c)
	if got := errorCode(t, <-done); got != CodeDisconnected {
		t.Fatalf("pending call after detach: error = %q, want %q", got, CodeDisconnected)
	}
	<-notified
	if st := h.State(); st.Connected || st.Tools != nil {
		t.Fatalf("State after detach = %+v, want disconnected with no tools", st)
	}
}

func TestBusyAndTakeover(t *testing.T) {
	h := New(time.Second)
	first := newFake(true)
	attach(t, h, first)
	if d, err := h.Reserve(newFake(true), false); !errors.Is(err, ErrBusy) || d != nil {
		t.Fatalf("second tab while first reachable: Reserve = %v, %v; want nil, ErrBusy", d, err)
	}
	first.reachable = false
	second := newFake(true)
	displaced, err := h.Reserve(second, false)
	if err != nil || displaced != first {
		t.Fatalf("second tab after first went stale: Reserve = %v, %v; want the first tab, nil", displaced, err)
	}
	h.Commit(second)
	if !h.State().Connected {
		t.Fatal("the second tab is not attached after Commit")
	}
}

// While one tab's credential is being redeemed (file I/O, outside the
// lock), the hub answers, and a second tab is refused as busy.
func TestReservationHoldsTheSlotWithoutTheLock(t *testing.T) {
	h := New(time.Second)
	c := newFake(true)
	if _, err := h.Reserve(c, false); err != nil {
		t.Fatalf("Reserve = %v", err)
	}
	if st := h.State(); st.Connected {
		t.Fatal("a reserved tab counts as attached before Commit")
	}
	if _, err := h.Reserve(newFake(true), false); !errors.Is(err, ErrBusy) {
		t.Fatalf("Reserve during another's admission = %v, want ErrBusy", err)
	}
	h.Release(c)
	if h.State().Connected {
		t.Fatal("a released tab is attached")
	}
	if _, err := h.Reserve(newFake(true), false); err != nil {
		t.Fatalf("Reserve after Release = %v, want nil", err)
	}
}

func TestCancelDropsTheLateReply(t *testing.T) {
	h := New(time.Hour)
	c := newFake(true)
	attach(t, h, c)
	called := make(chan []byte, 1)
	cancel := h.Start("slow", nil, 0, func(r envelope.Reply) { called <- r.Bytes() })
	var req request
	json.Unmarshal(<-c.sent, &req)
	if !cancel() {
		t.Fatal("cancel of a pending call = false, want true")
	}
	if h.Deliver(c, req.ID, mustReply([]byte(`{"id":1,"ok":true}`))) {
		t.Fatal("Deliver of a cancelled call's reply = true, want it dropped")
	}
	select {
	case r := <-called:
		t.Fatalf("done ran for a cancelled call with %s", r)
	default:
	}
	if cancel() {
		t.Fatal("a second cancel = true, want false")
	}
}

func TestCallerDeadline(t *testing.T) {
	h := New(time.Hour)
	attach(t, h, newFake(true))
	env := h.Call(context.Background(), "slow", nil, 20*time.Millisecond).Bytes()
	if got := errorCode(t, env); got != CodeTimeout {
		t.Fatalf("call with a 20ms deadline: error = %q, want %q", got, CodeTimeout)
	}
	if !strings.Contains(string(env), "20ms") {
		t.Errorf("timeout envelope %s does not name the deadline", env)
	}
}

// A page that sends many tool lists leaves one signal for a watcher that
// is not reading: changes collapse, nothing queues.
func TestToolChangesCollapse(t *testing.T) {
	h := New(time.Second)
	c := newFake(true)
	attach(t, h, c)
	changed, stop := h.Watch()
	defer stop()
	for range 1000 {
		h.SetTools(c, nil, nil)
	}
	if n := len(changed); n != 1 {
		t.Fatalf("after 1000 tool lists the watcher holds %d signals, want 1", n)
	}
}

func TestRequestFrame(t *testing.T) {
	got := string(requestFrame(7, "scene.describe", []byte(`{"limit":5}`)))
	want := `{"id":7,"command":"scene.describe","args":{"limit":5}}`
	if got != want {
		t.Fatalf("requestFrame = %s, want %s", got, want)
	}
	if got := string(requestFrame(1, `a"b`, []byte(`{}`))); got != `{"id":1,"command":"a\"b","args":{}}` {
		t.Fatalf("requestFrame with a quote in the command = %s", got)
	}
}

func TestWait(t *testing.T) {
	h := New(time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if h.Wait(ctx) {
		t.Fatal("Wait with no page and a done context = true")
	}
	got := make(chan bool)
	go func() { got <- h.Wait(context.Background()) }()
	attach(t, h, newFake(true))
	if !<-got {
		t.Fatal("Wait did not return true when a page attached")
	}
}

// request is a page command frame as the tests read it.
type request struct {
	ID      int64           `json:"id"`
	Command string          `json:"command"`
	Args    json.RawMessage `json:"args"`
}

// With takeover, a live incumbent is displaced instead of the new tab
// being refused.
func TestTakeoverDisplacesALiveTab(t *testing.T) {
	h := New(time.Second)
	first := newFake(true)
	attach(t, h, first)
	second := newFake(true)
	displaced, err := h.Reserve(second, true)
	if err != nil || displaced != first {
		t.Fatalf("Reserve with takeover = %v, %v; want the first tab displaced", displaced, err)
	}
	h.Commit(second)
}

// Next wakes its holder at an attach and at a detach, and not before.
func TestNextWakesOnAttachAndDetach(t *testing.T) {
	h := New(time.Second)
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	next := h.Next()
	c := newFake(true)
	if _, err := h.Reserve(c, false); err != nil {
		t.Fatal(err)
	}
	if closed(next) {
		t.Fatal("Next fired at Reserve, before the tab attached")
	}
	h.Commit(c)
	if !closed(next) {
		t.Fatal("Next did not fire when the tab attached")
	}
	next = h.Next()
	h.SetTools(c, nil, nil)
	if closed(next) {
		t.Fatal("Next fired for a tool list")
	}
	h.Detach(c)
	if !closed(next) {
		t.Fatal("Next did not fire when the tab detached")
	}
}

// A call in flight to a tab that a new one displaces ends with
// "disconnected" at once, as when the tab leaves; it is not left waiting.
func TestDisplacedTabsCallsFail(t *testing.T) {
	h := New(time.Minute)
	attach(t, h, newFake(true))
	got := make(chan envelope.Reply, 1)
	h.Start("scene.describe", nil, 0, func(r envelope.Reply) { got <- r })
	if _, err := h.Reserve(newFake(true), true); err != nil {
		t.Fatalf("Reserve with takeover = %v, want nil", err)
	}
	select {
	case r := <-got:
		if code := errorCode(t, r.Bytes()); code != CodeDisconnected {
			t.Errorf("displaced tab's call ended with %q, want %q", code, CodeDisconnected)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a displaced tab's call has not ended after 5 s, want it failed at once")
	}
}

// A tool list the tab sends again unchanged wakes no watcher: an MCP client
// is told tools/list_changed once per change, not once per frame (issue 34:
// 5,000 identical lists sent 349). The first list, empty or not, and each
// change do wake them.
func TestSameToolListWakesNoWatcher(t *testing.T) {
	h := New(time.Hour)
	c := newFake(true)
	attach(t, h, c)
	notified, stop := h.Watch()
	defer stop()
	woke := func() bool {
		select {
		case <-notified:
			return true
		default:
			return false
		}
	}
	list := func(raw string) []toollist.Tool {
		var l toollist.List
		if _, err := envelope.DecodeTools([]byte(`{"tools":`+raw+`}`), toollist.Sanitize(&l, nil)); err != nil {
			t.Fatal(err)
		}
		return l.Tools
	}
	one := list(`[{"name":"a","inputSchema":{"type":"object"}}]`)
	h.SetTools(c, nil, nil)
	if !woke() {
		t.Fatal("the first (empty) tool list woke no watcher")
	}
	h.SetTools(c, []toollist.Tool{}, nil)
	if woke() {
		t.Error("the same empty list again woke a watcher")
	}
	h.SetTools(c, one, nil)
	if !woke() {
		t.Fatal("a changed list woke no watcher")
	}
	for range 100 {
		h.SetTools(c, list(`[{"name":"a", "inputSchema":{"type":"object"}}]`), []toollist.Dropped{{Name: "b"}})
	}
	if woke() {
		t.Error("the same list again woke a watcher")
	}
	h.SetTools(c, list(`[{"name":"a","inputSchema":{"type":"object","properties":{"x":{}}}}]`), nil)
	if !woke() {
		t.Error("a list whose schema changed woke no watcher")
	}
}
