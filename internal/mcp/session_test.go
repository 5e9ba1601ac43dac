package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// silentPage is an attached page that takes every frame and answers none.
type silentPage struct{ frames chan []byte }

func (p *silentPage) Send(b []byte) error { p.frames <- b; return nil }
func (p *silentPage) Close()              {}
func (p *silentPage) Reachable() bool     { return true }

func sessionWithPage(t *testing.T) (*Session, *capture, *silentPage) {
	t.Helper()
	srv := newTestServer()
	page := &silentPage{frames: make(chan []byte, MaxInFlight+8)}
	if _, err := srv.Hub.Reserve(page, false); err != nil {
		t.Fatal(err)
	}
	srv.Hub.Commit(page)
	out := newCapture()
	s := srv.NewSession(context.Background(), out)
	t.Cleanup(func() { s.Close() })
	return s, out, page
}

func call(s *Session, id int) {
	s.Handle([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"slow","arguments":{}}}`))
}

// MaxInFlight bounds the requests that wait; the next one is refused at
// once, and a cancelled one gives its slot back.
func TestSessionInFlightBound(t *testing.T) {
	s, out, page := sessionWithPage(t)
	for i := 1; i <= MaxInFlight; i++ {
		call(s, i)
		<-page.frames
	}
	call(s, MaxInFlight+1)
	lines := out.lines()
	if len(lines) != 1 || !strings.Contains(string(lines[0]), `"code":-32000`) || !strings.Contains(string(lines[0]), "too many requests") {
		t.Fatalf("request %d over the bound: got %q, want one -32000 refusal", MaxInFlight+1, lines)
	}
	s.Handle([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`))
	call(s, MaxInFlight+2)
	select {
	case <-page.frames:
	default:
		t.Fatal("after a cancel freed a slot, the next call did not reach the page")
	}
}

// A request id still in flight cannot be reused.
func TestSessionDuplicateID(t *testing.T) {
	s, out, page := sessionWithPage(t)
	call(s, 5)
	<-page.frames
	call(s, 5)
	if lines := out.lines(); len(lines) != 1 || !strings.Contains(string(lines[0]), "still in flight") {
		t.Fatalf("a second request with id 5: got %q, want it refused", lines)
	}
}

// Close cancels everything in flight and answers nothing more.
func TestSessionCloseCancelsAll(t *testing.T) {
	s, out, page := sessionWithPage(t)
	for i := 1; i <= 3; i++ {
		call(s, i)
		<-page.frames
	}
	s.Handle([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wait_for_connection","arguments":{"timeoutSeconds":120}}}`))
	<-page.frames // the wait, attached at once, is asking for scene.describe
	// The wait returns as soon as the session ends. Were the session to end
	// before Close holds the flights, that wait could finish and leave
	// uncounted; make it always do so then, as a busy machine sometimes did.
	end := s.end
	s.end = func() {
		end()
		if s.mu.TryLock() {
			s.mu.Unlock()
			s.running.Wait()
		}
	}
	if n := s.Close(); n != 4 {
		t.Fatalf("Close cancelled %d requests, want 4", n)
	}
	s.running.Wait()
	if lines := out.lines(); len(lines) != 0 {
		t.Fatalf("after Close the session wrote %q, want nothing", lines)
	}
	if len(s.slots) != 0 {
		t.Fatalf("%d slots still held after Close", len(s.slots))
	}
}

// The 2025-era connection never gets subscription traffic, and a modern
// subscription never gets the unsolicited legacy notification.
func TestListChangedByEra(t *testing.T) {
	s, _, _ := sessionWithPage(t)
	s.Handle([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	if got := s.ListChanged(); len(got) != 0 {
		t.Fatalf("before notifications/initialized: %d notifications, want 0", len(got))
	}
	s.Handle([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	got := s.ListChanged()
	if len(got) != 1 || string(got[0].join()) != string(legacyListChanged) {
		t.Fatalf("legacy list change: got %q", got)
	}

	m, out, _ := sessionWithPage(t)
	out.holding = true
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	m.Handle([]byte(`{"jsonrpc":"2.0","id":"s1","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}`))
	if got := m.ListChanged(); len(got) != 0 {
		t.Fatalf("modern change before a subscription's ack is written: %q, want none yet", got)
	}
	out.release()
	if len(m.kick) != 1 {
		t.Fatal("a change missed before the ack did not ask the writer to look again")
	}
	got = m.ListChanged()
	if len(got) != 1 {
		t.Fatalf("modern list change: got %d notifications, want 1", len(got))
	}
	var n struct {
		Method string
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
	}
	json.Unmarshal(got[0].join(), &n)
	if n.Method != "notifications/tools/list_changed" || string(n.Params.Meta["io.modelcontextprotocol/subscriptionId"]) != `"s1"` {
		t.Fatalf("modern list change %s: want list_changed on subscription \"s1\"", got[0].join())
	}
}

// Every tool the bridge lists as its own is in ReservedTools, so the page
// side drops a page tool that would shadow it.
func TestBridgeToolsReserved(t *testing.T) {
	s, _, _ := sessionWithPage(t)
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(s.toolList(false), &list); err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		found := false
		for _, r := range ReservedTools {
			found = found || r == tool.Name
		}
		if !found {
			t.Errorf("bridge tool %q is not in ReservedTools", tool.Name)
		}
	}
}

// TestReservedWordsAreTheBridgesNamesAndTitles: what a page's tool may be
// neither named nor titled is read from the bridge's own tools, every one.
func TestReservedWordsAreTheBridgesNamesAndTitles(t *testing.T) {
	if len(ReservedWords) != 2*len(ReservedTools) {
		t.Fatalf("ReservedWords = %q, want a name and a title for each of %q", ReservedWords, ReservedTools)
	}
	for i, w := range ReservedWords {
		if w == "" || i%2 == 0 && w != ReservedTools[i/2] {
			t.Errorf("ReservedWords[%d] = %q; want %q's name and title in order", i, w, ReservedTools)
		}
	}
}
