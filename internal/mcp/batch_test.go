package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// open2503 negotiates MCP 2025-03-26, the one revision with batches, and
// forgets the answer.
func open2503(t *testing.T, s *Session, out *capture) {
	t.Helper()
	s.Handle([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`))
	if lines := out.lines(); len(lines) != 1 || !bytes.Contains(lines[0], []byte(`"protocolVersion":"2025-03-26"`)) {
		t.Fatalf("initialize 2025-03-26: got %q", lines)
	}
	out.mu.Lock()
	out.buf.Reset()
	out.mu.Unlock()
}

// frameGuard bounds the wait for a frame the page should already have: the
// call is sent before Handle returns, so only a failure waits this long.
const frameGuard = 10 * time.Second

// awaitFrame returns the page's next frame, failing t with what the session
// wrote if none comes.
func awaitFrame(t *testing.T, page *silentPage, out *capture) []byte {
	t.Helper()
	select {
	case f := <-page.frames:
		return f
	case <-time.After(frameGuard):
		t.Fatalf("the batch's call never reached the page; the session wrote %q", out.lines())
		return nil
	}
}

// batchIDs returns the ids of the answers in a batch line.
func batchIDs(t *testing.T, line []byte) []string {
	t.Helper()
	var answers []map[string]json.RawMessage
	if err := json.Unmarshal(line, &answers); err != nil {
		t.Fatalf("batch answer %q: %v", line, err)
	}
	var ids []string
	for _, a := range answers {
		ids = append(ids, string(a["id"]))
	}
	return ids
}

// A page call in a batch holds the whole array until the page answers, and
// the slot it took is given back once the array is written.
func TestBatchWaitsForItsPageCall(t *testing.T) {
	s, out, page := sessionWithPage(t)
	open2503(t, s, out)
	s.Handle([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`))
	frame := awaitFrame(t, page, out)
	if lines := out.lines(); len(lines) != 0 {
		t.Fatalf("before the page answered: got %q, want nothing (the batch waits for its call)", lines)
	}
	id, _ := gate.Int(gate.Get(frame, "id"))
	if !s.srv.Hub.Deliver(page, id, mustReply([]byte(`{"id":`+string(gate.Get(frame, "id"))+`,"ok":true,"n":1}`))) {
		t.Fatal("the page's reply found nobody waiting")
	}
	lines := out.lines()
	if len(lines) != 1 || strings.Join(batchIDs(t, lines[0]), ",") != "2,1" {
		t.Fatalf("after the page answered: got %q, want one array answering 2 then 1", lines)
	}
	if len(s.slots) != 0 {
		t.Fatalf("%d slots still held after the batch was written", len(s.slots))
	}
}

// A call of a batch that is cancelled leaves the array to the others, and
// gives its slot back; a batch whose every request is cancelled writes
// nothing.
func TestBatchCancelledCall(t *testing.T) {
	s, out, page := sessionWithPage(t)
	open2503(t, s, out)
	s.Handle([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`))
	awaitFrame(t, page, out)
	s.Handle([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`))
	lines := out.lines()
	if len(lines) != 1 || strings.Join(batchIDs(t, lines[0]), ",") != "2" {
		t.Fatalf("after cancelling the call: got %q, want one array answering 2", lines)
	}
	s.Handle([]byte(`[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}]`))
	awaitFrame(t, page, out)
	s.Handle([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`))
	if got := out.lines(); len(got) != 1 {
		t.Fatalf("a batch whose one call was cancelled: got %q, want nothing more written", got[1:])
	}
	if len(s.slots) != 0 {
		t.Fatalf("%d slots still held after the cancels", len(s.slots))
	}
}

// FuzzBatch: whatever line a 2025-03-26 client sends, the session writes at
// most one line for it, JSON-RPC 2.0: an error object, or an array of
// responses, no more of them than the line had messages; and every slot
// is given back once the session ends.
func FuzzBatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, line []byte) {
		out := newCapture()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := newTestServer().NewSession(ctx, out)
		open2503(t, s, out)
		cancel() // wait_for_connection must not block the fuzzer
		s.Handle(line)
		s.Close()
		s.running.Wait()
		lines := out.lines()
		if len(lines) > 1 {
			t.Fatalf("Handle(%q) wrote %d lines, want at most 1", line, len(lines))
		}
		for _, l := range lines {
			if bytes.HasPrefix(l, []byte("[")) {
				var answers []map[string]json.RawMessage
				var sent []json.RawMessage
				if json.Unmarshal(l, &answers) != nil || len(answers) == 0 {
					t.Fatalf("Handle(%q) wrote %q, not a batch answer", line, l)
				}
				if json.Unmarshal(line, &sent) == nil && len(answers) > len(sent) {
					t.Fatalf("Handle(%q) wrote %d answers for %d messages", line, len(answers), len(sent))
				}
				for _, a := range answers {
					if string(a["jsonrpc"]) != `"2.0"` || a["id"] == nil || (a["result"] == nil) == (a["error"] == nil) {
						t.Fatalf("Handle(%q) wrote %q: an answer is no JSON-RPC 2.0 response", line, l)
					}
				}
				continue
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(l, &m) != nil || string(m["jsonrpc"]) != `"2.0"` {
				t.Fatalf("Handle(%q) wrote %q, not JSON-RPC 2.0", line, l)
			}
		}
		if len(s.slots) != 0 {
			t.Fatalf("Handle(%q): %d slots still held after Close", line, len(s.slots))
		}
	})
}
