package hub

import (
	"slices"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/session"
)

// How a tab got in, for Snapshot.AttachedBy (protocol.md §7.11 and §7.6:
// /status attachedBy and the greeting's first line).
const (
	ByToken   = "token"   // a one-time token, now spent; the machine is paired
	ByPairing = "pairing" // the browser's stored pairing; no token was needed
)

// ListenerSilence is how long a listen process may go without a request
// before it no longer counts as running: six of its 25-second polls.
const ListenerSilence = 150 * time.Second

// listenerAlive is swapped by tests.
var listenerAlive = session.Alive

// SetAttachedBy records how the attached tab c got in; a follower, its
// leader's word.
func (h *Hub) SetAttachedBy(c Conn, how string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn == c {
		h.attachedBy = how
	}
}

// NoteListener records a request of the listen process pid
// (x-stitchslop-listener).
func (h *Hub) NoteListener(pid int) {
	if pid <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.listeners[pid] = time.Now()
}

// Listeners returns, sorted, the voice owner's pid and those of the listen
// processes seen within ListenerSilence and (where the system can tell)
// alive; it forgets the rest.
func (h *Hub) Listeners() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []int{}
	by := h.voiceOwnerLocked()
	if by != 0 {
		out = append(out, by)
	}
	for pid, at := range h.listeners {
		if pid == by {
			continue // listed above, once
		}
		if time.Since(at) > ListenerSilence || !listenerAlive(pid) {
			delete(h.listeners, pid)
			continue
		}
		out = append(out, pid)
	}
	slices.Sort(out)
	return out
}
