//go:build lexcount

package mcp

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// TestAttack_ReplyCarryingToolsIsReadOnce: a reply of the tab that carries
// a member named "tools" (a design tool's palette, say) is read twice
// since the door hands every top-level "tools" value to toollist.Sanitize
// (envelope.DecodeTools, as page.Server.serve reads every frame, replies
// included): the door records that member with a zero gate.Seen, so the
// gate's walk reads it again when the MCP face writes the result, and
// Sanitize builds a tool list of it that nothing uses (the frame has an id,
// so the hub is given no list). Issue 34 wants one read per reply per
// process and docs/reviewing.md says a relay's reply is read once, as it
// was when the door read the member itself (envelope.Decode, which
// page.Server.serve used before merge bf91d3c: 1 read).
//
// Fails on bf91d3c and on f2ee21c: 2 reads.
func TestAttack_ReplyCarryingToolsIsReadOnce(t *testing.T) {
	env := []byte(`{"id":3,"ok":true,"say":"Listed.","tools":[{"id":"pen","name":"Pen"},{"id":"brush","name":"Brush","sizes":[1,2,3]}],"text":"hi"}`)
	var list toollist.List
	before := envelope.Lexes()
	r, err := envelope.DecodeTools(env, toollist.Sanitize(&list, ReservedWords))
	if err != nil {
		t.Fatal(err)
	}
	m := toolResponse([]byte("3"), r, ownWords{}, false)
	if got := envelope.Lexes() - before; got != 1 {
		t.Errorf("a reply carrying a tools member read %d times, want once, as one without it", got)
	}
	if b := m.join(); !strings.Contains(string(b), `\"sizes\":[1,2,3]`) {
		t.Errorf("result = %s, want the reply's tools member", b)
	}
}
