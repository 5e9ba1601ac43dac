package e2e

// The gate's bound on the whole of a reply, at the shell's stdout and in
// the model's text (THREAT_MODEL.md T9; security/gate MaxGuarded, MaxText):
// a hostile tab's replies that pass the door (internal/envelope.Decode)
// and, before the gate checked every entry's budget and every long
// string's bytes, reached stdout bigger than security/gate promised, or
// the model as JSON cut mid-way. An outside attack found them (issue 34);
// each test failed on main at c24f885, as its comment says.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The gate's bounds, as security/gate names them (MaxTotal is bytes,
// MaxString characters), and what a reply's JSON may reach on an exit:
// MaxTotal, overshot by one element of at most MaxString characters, each
// at most 4 bytes of UTF-8, and a little for the shell's own members.
const (
	gateMaxTotal  = 200_000
	gateMaxString = 100_000
	exitBound     = gateMaxTotal + 4*gateMaxString + 16<<10
)

// namesAtDepth is an object nested depth levels deep, each level one
// member whose name is a distinct 1,000-byte ASCII name: each name within
// the door's gate.MaxMemberName (1,024 bytes), the depth within jsontext's
// 10,000, and, up to 1,000 deep, the names held open within
// gate.MaxOpenNames, so the door passes it. The gate's walk checked a container's
// budget only from its second entry on, so every level's first member,
// and every name, reached the exit.
func namesAtDepth(depth int) json.RawMessage {
	var b strings.Builder
	b.Grow(depth * 1010)
	for i := range depth {
		fmt.Fprintf(&b, `{"%06d%s":`, i, strings.Repeat("n", 994))
	}
	b.WriteString("1")
	b.WriteString(strings.Repeat("}", depth))
	return json.RawMessage(b.String())
}

// deepNamesPage answers scene.describe with a reply of about 1 MB of
// member names nested 1,000 deep, as deep as the door passes (it was
// 3,000 deep before gate.MaxOpenNames; the bound on stdout is a fifth of
// either).
func deepNamesPage(cmd string, args map[string]any) map[string]any {
	if cmd != "scene.describe" {
		return defaultHandler(cmd, args)
	}
	return map[string]any{"ok": true, "say": "Described.", "scene": namesAtDepth(1000)}
}

// TestSec_GateNamesAtDepthAreBoundedOnTheShell: `call` of a reply of names
// nested deep prints within the bound. Failed before: `call`
// printed it whole, 3,015,048 bytes on stdout, 5 times the bound, and no
// note said anything was left out.
func TestSec_GateNamesAtDepthAreBoundedOnTheShell(t *testing.T) {
	t.Parallel()
	_, _, base := cliTab(t, deepNamesPage)
	r := runCLI(t, append(base, "call", "scene.describe")...)
	if r.code != 0 {
		t.Fatalf("call: exit %d, stderr %s", r.code, truncate(r.stderr, 400))
	}
	r.doc(t) // still one JSON document
	if n := len(r.stdout); n > exitBound {
		t.Errorf("call printed %d bytes of a tab's reply on stdout, want at most %d (gate.MaxTotal %d, one element over by at most gate.MaxString characters); notes of what was left out: %d",
			n, exitBound, gateMaxTotal, strings.Count(r.stdout, "[bridge:"))
	}
}

// TestSec_GateNamesAtDepthAreBoundedOverMCP: the same reply over MCP is
// bounded by the gate's notes, as JSON. Failed before: the gate's walk
// passed every name and only textBlock's backstop (gate.Text, MaxText
// then 464 KB) cut it, mid-JSON: the text was 465,594 bytes, and the
// envelope in it did not parse (it ended in the backstop's note of
// 2,549,516 bytes left out).
func TestSec_GateNamesAtDepthAreBoundedOverMCP(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "")
	p.serve(deepNamesPage)
	r := b.rpc.toolCallWithin("scene.describe", map[string]any{}, time.Minute)
	text := r.text()
	if n := len(text); n > gateMaxTotal+gateMaxString+16<<10 {
		t.Errorf("the reply's text block is %d bytes, want at most %d (gate.MaxTotal, one element over by at most gate.MaxString)", n, gateMaxTotal+gateMaxString+16<<10)
	}
	_, env, ok := strings.Cut(text, "\n\n")
	if !ok {
		t.Fatalf("no say line before the envelope: %q", truncate(text, 200))
	}
	if !json.Valid([]byte(env)) {
		t.Errorf("the envelope the model reads is not JSON (%d bytes, ends %q): the gate did not bound it, the text backstop cut it", len(env), env[max(0, len(env)-120):])
	}
}

// escapedString is a JSON string of n characters, each an astral one the
// page wrote as a surrogate pair of escapes: 12 bytes a character.
func escapedString(n int) json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat(`\ud83d\ude00`, n) + `"`)
}

// TestSec_GateEscapedStringIsBoundedByItsBytes: a string of 99,000
// characters, within gate.MaxString, that the page wrote as escapes of 12
// bytes a character (the gate keeps a page's escapes), is bounded by its
// bytes: past the gate's ceiling it is a note. Failed before: the gate
// counted only its characters and kept it, and one string of one reply
// put 1,188,144 bytes on stdout, six times gate.MaxTotal.
func TestSec_GateEscapedStringIsBoundedByItsBytes(t *testing.T) {
	t.Parallel()
	_, _, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		if cmd != "scene.describe" {
			return defaultHandler(cmd, args)
		}
		return map[string]any{"ok": true, "note": escapedString(99_000)}
	})
	r := runCLI(t, append(base, "call", "scene.describe")...)
	if r.code != 0 {
		t.Fatalf("call: exit %d, stderr %s", r.code, truncate(r.stderr, 400))
	}
	r.doc(t)
	if n := len(r.stdout); n > exitBound {
		t.Errorf("call printed %d bytes for one string of 99,000 characters, want at most %d (gate.MaxTotal %d bytes, one element over by at most gate.MaxString characters of at most 4 bytes)", n, exitBound, gateMaxTotal)
	}
}

// TestSec_GateTextNeverCutsAGuardedEnvelope: gate.MaxText "cuts only text
// no Guard bounded". A reply of two members of 99,000 ASCII characters
// and then one of 99,000 emoji, each member within every per-string
// bound, reaches the model as JSON. Failed before: the guard let the
// members reach gate.MaxTotal bytes and then one more of up to
// gate.MaxString characters (400,000 bytes of emoji), a guarded envelope
// of about 594 KB, and textBlock's backstop (MaxText, then 464 KB) cut it
// mid-string: the text was 465,590 bytes, ending in the backstop's note
// of 128,725 bytes left out, JSON that did not parse.
func TestSec_GateTextNeverCutsAGuardedEnvelope(t *testing.T) {
	t.Parallel()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd != "scene.describe" {
			return defaultHandler(cmd, args)
		}
		return map[string]any{"ok": true, "a1": strings.Repeat("a", 99_000), "a2": strings.Repeat("a", 99_000), "b": strings.Repeat("\U0001F600", 99_000)}
	})
	text := b.rpc.toolCallWithin("scene.describe", map[string]any{}, time.Minute).text()
	if !json.Valid([]byte(text)) {
		t.Errorf("the envelope the model reads is not JSON (%d bytes, ends %q): each member was within the gate's bounds, and the text's backstop cut the whole", len(text), text[max(0, len(text)-100):])
	}
}
