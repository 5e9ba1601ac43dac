package e2e

import (
	"strings"
	"testing"
)

// No byte a hostile page sends drives the terminal: ESC and BEL in its
// reply's message, its tool names and its replies reach neither the
// bridge's stderr nor the shell verb's, and values are quoted once.
func TestSpec4_4_NoControlBytesOnTerminal(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	hostile := "\x1b]0;owned\x07\x1b[2J\u009b31m boom"
	p.mustSend(map[string]any{"tools": []any{
		map[string]any{"name": "evil\x1b[31m", "inputSchema": map[string]any{"type": "object"}},
		map[string]any{"name": "scene.describe", "description": hostile, "inputSchema": map[string]any{"type": "object"}},
	}})
	p.serve(func(string, map[string]any) map[string]any {
		return map[string]any{"ok": false, "message": hostile}
	})
	r := b.cli("call", "scene.describe")
	if r.code != 1 {
		t.Fatalf("call against a failing page: exit %d, want 1; stderr %q", r.code, r.stderr)
	}
	b.awaitStatus("the tool list", func(st map[string]any) bool { return len(st["tools"].([]any)) > 0 })
	for name, text := range map[string]string{"the shell verb's stderr": r.stderr, "the bridge's stderr": b.stderr.String()} {
		for _, c := range []string{"\x1b", "\x07", "\u009b"} {
			if strings.Contains(text, c) {
				t.Errorf("%s carries %q raw:\n%q", name, c, text)
			}
		}
	}
	if !strings.Contains(r.stderr, `\x1b]0;owned\a`) {
		t.Errorf("the page's message is not on the shell's stderr, escaped: %q", r.stderr)
	}
	if strings.Contains(b.stderr.String(), `\"`) {
		t.Errorf("a value on the bridge's stderr is quoted twice:\n%s", b.stderr)
	}
}
