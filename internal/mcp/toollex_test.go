//go:build lexcount

package mcp

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// A tab's tool list is read twice, whatever its nesting: once at the door
// (envelope.Decode, as page.Server.serve reads each frame) and once by
// toollist.Sanitize's one pass. Keeping it, checking a call's arguments
// against it and writing it for tools/list in both eras read no byte of
// it again (issue 34). Run with go test -tags lexcount.
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
	r, err := envelope.Decode(frame)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := toollist.Sanitize(r.Get("tools"), ReservedTools)
	s.srv.Hub.SetTools(page, list, nil)
	if names, ok := s.srv.Hub.ArgNames("scene.describe"); !ok || strings.Join(names, ",") != "deep,limit" {
		t.Errorf("ArgNames(scene.describe) = %q, %v; want deep,limit", names, ok)
	}
	for _, modern := range []bool{false, true} {
		if b := s.toolList(modern); !strings.Contains(string(b), `"Describe <it> & more."`) {
			t.Errorf("tools/list = %.300s..., want the tab's tool", b)
		}
	}
	if got := envelope.Lexes() - before; got != 2 {
		t.Errorf("a tool list read %d times, want twice: the door and Sanitize", got)
	}
}
