package hub

import (
	"context"
	"testing"
	"time"
)

// One consumer of voice.listen (protocol.md §7.19): the owner's calls
// pass, everyone else's are refused naming it; a follower's claim lapses
// with its process, and the owner is listed once among the listeners.
func TestVoiceOwnerAloneAsks(t *testing.T) {
	alive := map[int]bool{100: true, 200: true}
	old := listenerAlive
	listenerAlive = func(pid int) bool { return alive[pid] }
	t.Cleanup(func() { listenerAlive = old })
	h := New(time.Second)
	ctx := context.Background()
	if r := h.Call(ctx, VoiceCommand, nil, 0); r.Get("error") == nil || string(r.Get("error")) == `"`+CodeVoiceTaken+`"` {
		t.Fatalf("no owner: %s, want not_connected", r.Bytes())
	}
	first, again, other := h.ClaimVoice(100), h.ClaimVoice(100), h.ClaimVoice(200)
	if !first || !again || other {
		t.Fatal("a live follower's claim must hold against another, and be renewable by itself")
	}
	r := h.Call(ctx, VoiceCommand, nil, 0)
	if e, _ := r.String("error"); e != CodeVoiceTaken {
		t.Errorf("another's voice.listen: %s, want refused", r.Bytes())
	}
	if e, _ := h.CallVoice(ctx, nil, 0).String("error"); e != CodeNotConnected {
		t.Errorf("the owner's voice.listen was refused: %s", e)
	}
	if e, _ := h.Call(ctx, "scene.describe", nil, 0).String("error"); e != CodeNotConnected {
		t.Errorf("another command was refused: %s", e)
	}
	h.NoteListener(100)
	if l := h.Listeners(); len(l) != 1 || l[0] != 100 {
		t.Errorf("listeners %v, want the owner once", l)
	}
	delete(alive, 100) // the follower is gone
	if !h.ClaimVoice(200) {
		t.Error("a dead follower's claim still holds")
	}
	h.SetVoiceOwner(300) // this process's own session: never lapses
	if h.ClaimVoice(200) {
		t.Error("a follower took the place of the bridge's own session")
	}
	h.SetVoiceOwner(0)
	if e, _ := h.Call(ctx, VoiceCommand, nil, 0).String("error"); e == CodeVoiceTaken {
		t.Error("refused after the owner gave the place back")
	}
}

// TestSec_VoiceClaimCannotDemoteSession: a keyed caller that names this
// process's own pid in the owner header (ClaimVoice of the session's pid)
// must not turn the session's place, which never lapses, into a
// follower's claim that lapses after ListenerSilence: it is refused, and
// after any silence every other voice.listen still is.
func TestSec_VoiceClaimCannotDemoteSession(t *testing.T) {
	old := listenerAlive
	listenerAlive = func(int) bool { return true }
	t.Cleanup(func() { listenerAlive = old })
	h := New(time.Second)
	ctx := context.Background()
	h.SetVoiceOwner(300)
	if h.ClaimVoice(300) {
		t.Error("a claim in the name of the bridge's own session was accepted")
	}
	h.mu.Lock()
	h.voiceSeen = time.Now().Add(-ListenerSilence - time.Second) // a claim's silence, were there one
	h.mu.Unlock()
	if e, _ := h.Call(ctx, VoiceCommand, nil, 0).String("error"); e != CodeVoiceTaken {
		t.Errorf("voice.listen beside the session after a claim's silence: %q, want %q", e, CodeVoiceTaken)
	}
	if l := h.Listeners(); len(l) != 1 || l[0] != 300 {
		t.Errorf("listeners %v, want the session's 300", l)
	}
	if h.VoiceOwner() != 300 {
		t.Errorf("VoiceOwner %d, want 300", h.VoiceOwner())
	}
}
