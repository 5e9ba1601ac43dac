package hub

import (
	"testing"
	"time"
)

func TestListeners(t *testing.T) {
	old := listenerAlive
	t.Cleanup(func() { listenerAlive = old })
	dead := map[int]bool{}
	listenerAlive = func(pid int) bool { return !dead[pid] }
	h := New(time.Second)
	h.NoteListener(30)
	h.NoteListener(20)
	h.NoteListener(0)
	if got := h.Listeners(); len(got) != 2 || got[0] != 20 || got[1] != 30 {
		t.Fatalf("Listeners() = %v, want [20 30]", got)
	}
	dead[20] = true
	h.mu.Lock()
	h.listeners[30] = time.Now().Add(-ListenerSilence - time.Second)
	h.mu.Unlock()
	if got := h.Listeners(); len(got) != 0 {
		t.Errorf("Listeners() = %v after one died and one fell silent, want none", got)
	}
}

func TestAttachedBy(t *testing.T) {
	h := New(time.Second)
	c := newFake(true)
	h.SetAttachedBy(c, ByToken) // not attached: ignored
	attach(t, h, c)
	if got := h.State().AttachedBy; got != "" {
		t.Errorf("AttachedBy before it is said = %q, want empty", got)
	}
	h.SetAttachedBy(c, ByPairing)
	if got := h.State().AttachedBy; got != ByPairing {
		t.Errorf("AttachedBy = %q, want %q", got, ByPairing)
	}
	h.Detach(c)
	if got := h.State().AttachedBy; got != "" {
		t.Errorf("AttachedBy with no tab = %q, want empty", got)
	}
}
