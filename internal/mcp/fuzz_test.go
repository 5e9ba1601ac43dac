package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

// capture is an Output that keeps what a session sends.
type capture struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	sent chan struct{}
	// holding keeps written callbacks until release, as a writer that has
	// not reached a message yet would.
	holding bool
	held    []func()
}

func newCapture() *capture { return &capture{sent: make(chan struct{}, 1024)} }

func (c *capture) Send(m Message) {
	c.mu.Lock()
	c.buf.Write(m.join())
	c.mu.Unlock()
	c.sent <- struct{}{}
}

func (c *capture) SendHeld(m Message, written func()) {
	c.Send(m)
	if written == nil {
		return
	}
	c.mu.Lock()
	if c.holding {
		c.held = append(c.held, written)
		written = nil
	}
	c.mu.Unlock()
	if written != nil {
		written()
	}
}

// release runs the written callbacks held so far.
func (c *capture) release() {
	c.mu.Lock()
	held := c.held
	c.held = nil
	c.mu.Unlock()
	for _, f := range held {
		f()
	}
}

func (c *capture) lines() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf.Len() == 0 {
		return nil
	}
	return bytes.Split(bytes.TrimSuffix(c.buf.Bytes(), []byte("\n")), []byte("\n"))
}

func newTestServer() *Server {
	return &Server{Hub: hub.New(time.Second), Sites: sites.New("https://www.stitchslop.com", ""), Pairing: noPairings{},
		Open: func(context.Context, bool, string) (int, error) { return 8787, nil }, Where: func() (string, int) { return "serving", 8787 },
		Log: ui.NewLogger(io.Discard)}
}

// noPairings is a pairing store with nothing in it.
type noPairings struct{}

func (noPairings) Spent(string) (bool, error)  { return false, nil }
func (noPairings) Paired(string) (bool, error) { return false, nil }

// FuzzHandle: whatever line the client sends, the session writes only
// JSON-RPC 2.0 lines: nothing for a notification, exactly one answer
// otherwise (a subscription's acknowledgement aside).
func FuzzHandle(f *testing.F) {
	f.Fuzz(func(t *testing.T, line []byte) {
		out := newCapture()
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // wait_for_connection must not block the fuzzer
		s := newTestServer().NewSession(ctx, out)
		s.Handle(line)
		s.Close()
		s.running.Wait() // a wait_for_connection answers from its own goroutine
		var responses int
		for _, l := range out.lines() {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(l, &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("Handle(%q) wrote %q, not JSON-RPC 2.0", line, l)
			}
			if m.Method == "notifications/subscriptions/acknowledged" {
				continue
			}
			if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
				t.Fatalf("Handle(%q) wrote %q, not a JSON-RPC 2.0 response", line, l)
			}
			responses++
		}
		var req map[string]json.RawMessage
		if json.Unmarshal(line, &req) == nil && req != nil {
			_, hasID := req["id"]
			isString := bytes.HasPrefix(bytes.TrimSpace(req["method"]), []byte(`"`))
			if !hasID && isString && string(bytes.TrimSpace(req["jsonrpc"])) == `"2.0"` && responses != 0 {
				t.Fatalf("Handle(%q) answered a notification", line)
			}
		}
		if responses > 1 {
			t.Fatalf("Handle(%q) wrote %d answers, want at most 1", line, responses)
		}
	})
}
