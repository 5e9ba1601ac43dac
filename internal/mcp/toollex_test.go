//go:build lexcount

package mcp

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// A tab's tool list is read once, whatever its nesting: at the door, which
// hands the list to toollist.Sanitize as it meets it
// (envelope.DecodeTools, as page.Server.serve reads each frame). Keeping
// it, checking a call's arguments against it and writing it for
// tools/list in both eras read no byte of it again (issue 34; twice before,
// the door's read and then Sanitize's). Run with go test -tags lexcount.
func TestOneLexPerToolList(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 8) + `{"type":"string"}` + strings.Repeat(`}}`, 8)
	frame := []byte(`{"tools":[
		{"name":"scene.describe","title":"Describe","description":"Describe <it> & more.",
		 "inputSchema":{"type":"object","properties":{"limit":{"type":"integer"},"deep":` + deep + `},
		  "$defs":{"x":{"$ref":"#/x"},"y":{"$ref":"https://evil.test/y"}},"required":["limit"]},
		 "annotations":{"readOnlyHint":true,"runAsRoot":1}},
		{"name":"render.png","inputSchema":{"type":"object","properties":{"size":{"type":"number"}}}},
		{"name":"pair"},{"name":"x\n"},7,
		{"name":"huge","inputSchema":{"type":"object","description":"` + strings.Repeat("x", toollist.MaxSchema) + `"}}]}`)
	s, _, page := sessionWithPage(t)
	before := envelope.Lexes()
	var list toollist.List
	if _, err := envelope.DecodeTools(frame, toollist.Sanitize(&list, ReservedTools)); err != nil {
		t.Fatal(err)
	}
	s.srv.Hub.SetTools(page, list.Tools, nil)
	if names, ok := s.srv.Hub.ArgNames("scene.describe"); !ok || strings.Join(names, ",") != "deep,limit" {
		t.Errorf("ArgNames(scene.describe) = %q, %v; want deep,limit", names, ok)
	}
	for _, modern := range []bool{false, true} {
		if b := s.toolList(modern); !strings.Contains(string(b), `"Describe <it> & more."`) {
			t.Errorf("tools/list = %.300s..., want the tab's tool", b)
		}
	}
	if got := envelope.Lexes() - before; got != 1 {
		t.Errorf("a tool list read %d times, want once: by the door's reader, Sanitize's pass", got)
	}
}
