package hub

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
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
	if err := h.Attach(c, func(Conn) {}, func() error { return nil }); err != nil {
		t.Fatalf("Attach = %v, want nil", err)
	}
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
	env := h.Call(context.Background(), "scene.describe", nil)
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
		go func() { results <- string(h.Call(context.Background(), cmd, json.RawMessage(`{"k":1}`))) }()
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
		if !h.Deliver(c, reqs[i].ID, reply) {
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
	if got := errorCode(t, h.Call(context.Background(), "slow", nil)); got != CodeTimeout {
		t.Fatalf("unanswered call: error = %q, want %q", got, CodeTimeout)
	}
}

func TestDetachFailsPendingAndDropsTools(t *testing.T) {
	h := New(time.Hour)
	c := newFake(true)
	attach(t, h, c)
	notified := make(chan struct{}, 4)
	h.OnToolsChanged(func() { notified <- struct{}{} })
	h.SetTools(c, nil, nil)
	<-notified
	done := make(chan []byte)
	go func() { done <- h.Call(context.Background(), "x", nil) }()
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
	if err := h.Attach(newFake(true), func(Conn) { t.Fatal("displaced a reachable tab") }, func() error { return nil }); !errors.Is(err, ErrBusy) {
		t.Fatalf("second tab while first reachable: Attach = %v, want ErrBusy", err)
	}
	first.reachable = false
	var displaced Conn
	second := newFake(true)
	if err := h.Attach(second, func(old Conn) { displaced = old }, func() error { return nil }); err != nil {
		t.Fatalf("second tab after first went stale: Attach = %v, want nil", err)
	}
	if displaced != first || !first.closed {
		t.Fatalf("takeover: displaced=%v closed=%v, want the first tab told and closed", displaced, first.closed)
	}
}

func TestAdmitFailureLeavesNoPage(t *testing.T) {
	h := New(time.Second)
	if err := h.Attach(newFake(true), func(Conn) {}, func() error { return errors.New("disk full") }); err == nil {
		t.Fatal("Attach with failing admit = nil, want error")
	}
	if h.State().Connected {
		t.Fatal("a tab whose admission failed is attached")
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
