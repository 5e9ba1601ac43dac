package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/fuzzseed"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

func TestFuzzHandleSeeds(t *testing.T) { fuzzseed.Require(t, "FuzzHandle") }

func newTestServer(out io.Writer) *Server {
	return &Server{Hub: hub.New(time.Second), Origin: "https://www.stitchslop.com", Port: 8787,
		Log: ui.NewLogger(io.Discard), out: out}
}

// FuzzHandle: whatever line the client sends, stdout gets only JSON-RPC 2.0
// lines: nothing for a notification, exactly one answer otherwise.
func FuzzHandle(f *testing.F) {
	f.Fuzz(func(t *testing.T, line []byte) {
		var out bytes.Buffer
		s := newTestServer(&out)
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // wait_for_connection must not block the fuzzer
		s.Handle(ctx, line)
		s.calls.Wait()
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if out.Len() == 0 {
			lines = nil
		}
		if len(lines) > 1 {
			t.Fatalf("Handle(%q) wrote %d lines, want at most 1", line, len(lines))
		}
		for _, l := range lines {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(l, &m); err != nil || m.JSONRPC != "2.0" || m.ID == nil || (m.Result == nil) == (m.Error == nil) {
				t.Fatalf("Handle(%q) wrote %q, not a JSON-RPC 2.0 response", line, l)
			}
		}
		var req map[string]json.RawMessage
		if json.Unmarshal(line, &req) == nil && req != nil {
			_, hasID := req["id"]
			isString := bytes.HasPrefix(bytes.TrimSpace(req["method"]), []byte(`"`))
			if !hasID && isString && string(bytes.TrimSpace(req["jsonrpc"])) == `"2.0"` && len(lines) != 0 {
				t.Fatalf("Handle(%q) answered a notification: %q", line, out.Bytes())
			}
		}
	})
}
