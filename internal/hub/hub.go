// Package hub ties the one attached page to its callers: the MCP face and
// the control plane. It holds the page's connection, its tool list and the
// calls waiting for a reply, and it is the only place that knows whether a
// page is attached.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// Conn is an authenticated page connection, as the hub needs it.
type Conn interface {
	// Send queues a frame for the page. It never blocks; an error means the
	// page cannot take it (gone or too slow) and is being closed.
	Send(frame []byte) error
	// Close closes the connection. The page side then calls Detach.
	Close()
	// Reachable reports whether the page is live: socket open and heard
	// from recently (protocol.md §2.6).
	Reachable() bool
}

// Error codes of envelopes the bridge answers with itself.
const (
	CodeNotConnected = "not_connected"
	CodeTimeout      = "timeout"
	CodeDisconnected = "disconnected"
	CodeCancelled    = "cancelled"
)

// NotConnectedMessage is the sentence for a call with no page attached.
const NotConnectedMessage = "No Stitch Slop tab is connected to this bridge yet. Call wait_for_connection (or run `stitchslop-bridge wait`): the tab attaches on its own while its Allow agent connections switch is on; there is nothing for the user to press."

// ErrBusy is returned by Attach while another page is attached and reachable.
var ErrBusy = errors.New("another tab is attached")

// Hub is safe for concurrent use.
type Hub struct {
	callTimeout time.Duration

	mu           sync.Mutex
	conn         Conn
	tools        []toollist.Tool
	dropped      []toollist.Dropped
	pending      map[int64]chan []byte
	nextID       int64
	attached     chan struct{} // closed while a page is attached
	everAttached bool
	subs         []func()
}

// New returns a hub whose page calls time out after callTimeout.
func New(callTimeout time.Duration) *Hub {
	return &Hub{
		callTimeout: callTimeout,
		pending:     map[int64]chan []byte{},
		attached:    make(chan struct{}),
	}
}

// OnToolsChanged registers f to run (in its own goroutine) whenever the
// page's tool list arrives, changes or goes.
func (h *Hub) OnToolsChanged(f func()) {
	h.mu.Lock()
	h.subs = append(h.subs, f)
	h.mu.Unlock()
}

func (h *Hub) notifyLocked() {
	for _, f := range h.subs {
		go f()
	}
}

// Attach makes c the attached page. With a reachable page already attached
// it returns ErrBusy and changes nothing. An unreachable incumbent is
// displaced: displace runs for it (to tell it so) and it is closed. Then
// admit runs, still under the hub's lock so no second page can slip in;
// if admit fails, c is not attached.
func (h *Hub) Attach(c Conn, displace func(old Conn), admit func() error) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old := h.conn; old != nil {
		if old.Reachable() {
			return ErrBusy
		}
		displace(old)
		h.detachLocked(old)
		old.Close()
	}
	if err := admit(); err != nil {
		return err
	}
	h.conn = c
	h.everAttached = true
	close(h.attached)
	return nil
}

// Detach forgets c if it is the attached page: its tools go, its pending
// calls fail at once with "disconnected".
func (h *Hub) Detach(c Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.detachLocked(c)
}

func (h *Hub) detachLocked(c Conn) {
	if h.conn != c || c == nil {
		return
	}
	h.conn = nil
	h.attached = make(chan struct{})
	for id, ch := range h.pending {
		ch <- envelope.Bridge(CodeDisconnected, "The Stitch Slop tab disconnected before it answered.")
		delete(h.pending, id)
	}
	hadTools := h.tools != nil
	h.tools, h.dropped = nil, nil
	if hadTools {
		h.notifyLocked()
	}
}

// SetTools records the tool list c sent.
func (h *Hub) SetTools(c Conn, tools []toollist.Tool, dropped []toollist.Dropped) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn != c {
		return
	}
	if tools == nil {
		tools = []toollist.Tool{}
	}
	h.tools, h.dropped = tools, dropped
	h.notifyLocked()
}

// Deliver hands c's reply to the call waiting for id. A reply nobody waits
// for (late, or never asked) is dropped; it reports false then.
func (h *Hub) Deliver(c Conn, id int64, reply []byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch, ok := h.pending[id]
	if !ok || h.conn != c {
		return false
	}
	delete(h.pending, id)
	ch <- reply
	return true
}

// Snapshot is the hub's state at one moment.
type Snapshot struct {
	Connected    bool
	EverAttached bool
	Tools        []toollist.Tool
	Dropped      []toollist.Dropped
}

// State returns the current state.
func (h *Hub) State() Snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Snapshot{
		Connected:    h.conn != nil,
		EverAttached: h.everAttached,
		Tools:        append([]toollist.Tool(nil), h.tools...),
		Dropped:      append([]toollist.Dropped(nil), h.dropped...),
	}
}

// Wait blocks until a page is attached (true) or ctx ends (false).
func (h *Hub) Wait(ctx context.Context) bool {
	for {
		h.mu.Lock()
		if h.conn != nil {
			h.mu.Unlock()
			return true
		}
		ch := h.attached
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// Attached returns a channel closed once the next page attaches (or already
// closed if one is attached).
func (h *Hub) Attached() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.attached
}

type request struct {
	ID      int64           `json:"id"`
	Command string          `json:"command"`
	Args    json.RawMessage `json:"args"`
}

// Call sends command with args to the page and returns its reply envelope.
// It always returns an envelope: when there is no page, the page does not
// answer within the call timeout, or it leaves, the envelope is the
// bridge's own, with ok:false.
func (h *Hub) Call(ctx context.Context, command string, args json.RawMessage) []byte {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	h.mu.Lock()
	c := h.conn
	if c == nil {
		h.mu.Unlock()
		return envelope.Bridge(CodeNotConnected, NotConnectedMessage)
	}
	h.nextID++
	id := h.nextID
	ch := make(chan []byte, 1)
	h.pending[id] = ch
	h.mu.Unlock()

	frame, err := json.Marshal(request{id, command, args})
	if err == nil {
		err = c.Send(frame)
	}
	if err != nil {
		h.forget(id, ch)
		return envelope.Bridge(CodeDisconnected, "The Stitch Slop tab could not take the command: "+err.Error())
	}
	t := time.NewTimer(h.callTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r
	case <-t.C:
		if r, ok := h.forget(id, ch); ok {
			return r
		}
		return envelope.Bridge(CodeTimeout, "The Stitch Slop tab did not answer "+command+" within "+h.callTimeout.String()+". It may be busy or asleep; try again.")
	case <-ctx.Done():
		if r, ok := h.forget(id, ch); ok {
			return r
		}
		return envelope.Bridge(CodeCancelled, "The call was cancelled before the tab answered.")
	}
}

// forget drops a pending call. If its reply raced in first, that reply is
// returned: Deliver sends under the lock after removing the entry, so once
// the entry is gone here the reply is either in ch or never coming.
func (h *Hub) forget(id int64, ch chan []byte) ([]byte, bool) {
	h.mu.Lock()
	delete(h.pending, id)
	h.mu.Unlock()
	select {
	case r := <-ch:
		return r, true
	default:
		return nil, false
	}
}
