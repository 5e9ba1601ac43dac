//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// A tab that stops reading is dropped at the write deadline, and the log
// says why: a write that timed out, not "no pong or frame", which names
// the read side's dead time and sent the person looking at the wrong end.
func TestSec_WriteTimeoutLoggedAsSuch(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	c, _, err := smallBufferDialer.Dial("ws://127.0.0.1:"+itoa(b.port)+"/", originHeader(testOrigin))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	c.WriteMessage(websocket.TextMessage, mustJSON(map[string]any{"token": tok}))
	if _, _, err := c.ReadMessage(); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	c.WriteMessage(websocket.TextMessage, mustJSON(map[string]any{"tools": defaultTools}))
	b.awaitStatus("tools listed", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })
	// From here the tab reads nothing; 4 MB fills its buffer and the
	// bridge's socket buffer behind it.
	from := b.stderr.lines.len()
	env, err := callEnv(b.port, b.session().Key, map[string]any{"command": "scene.describe", "args": map[string]any{"blob": strings.Repeat("x", 4<<20)}})
	if err != nil {
		t.Fatalf("call to a tab that stopped reading: %v, want an answer", err)
	}
	wantFailure(t, "call to a tab that stopped reading", env, "disconnected")
	line, _, ok := b.stderr.lines.await(from, writeWait, func(l string) bool { return strings.Contains(l, "tab disconnected") })
	if !ok {
		t.Fatalf("got no \"tab disconnected\" line within %v of the call's answer; stderr:\n%s", writeWait, b.stderr)
	}
	if !strings.Contains(line, "write to the tab timed out") || strings.Contains(line, "no pong") {
		t.Errorf("log line %q: want the reason to be the write timeout", line)
	}
	b.mustRun()
}
