package envelope_test

// Attacks, as a hostile page or leader, on the door handing a frame's
// "tools" value to Sanitize (envelope.DecodeTools): if Sanitize left the
// door's reader anywhere but just past that one value, the door would
// read the rest of the frame wrongly (a member after "tools" unchecked, an
// "id" or a "dataUrl" made up of the list's bytes).

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// reserved and frame as security/toollist's tests have them.
var reserved = []string{"wait_for_connection", "pair", "connection_status", "call_with_file", "call_to_files"}

func frame(list string) []byte { return []byte(`{"tools":` + list + `}`) }

// sameDoor fails unless the door reads b, its "tools" value read by
// Sanitize, as it reads b alone: refused alike, or the same members, each
// the same piece of b, the same entries of each top-level list
// (Reply.Entries, recorded by the door as it reads), and the same image.
func sameDoor(t testing.TB, b []byte) {
	t.Helper()
	var l toollist.List
	withList, err1 := envelope.DecodeTools(b, toollist.Sanitize(&l, reserved))
	alone, err2 := envelope.Decode(b)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("%.200q: refused %v with Sanitize reading, %v alone", b, err1, err2)
	}
	if err1 != nil {
		return
	}
	m1, m2 := withList.Members(), alone.Members()
	if len(m1) != len(m2) {
		t.Fatalf("%.200q: %d members with Sanitize reading, %d alone", b, len(m1), len(m2))
	}
	for i := range m1 {
		if m1[i].Key != m2[i].Key || !bytes.Equal(m1[i].Value, m2[i].Value) {
			t.Fatalf("%.200q: member %d is %q=%.100q with Sanitize reading, %q=%.100q alone", b, i, m1[i].Key, m1[i].Value, m2[i].Key, m2[i].Value)
		}
	}
	for _, m := range m1 { // a list after "tools" is recorded as the door records it alone
		l1, l2 := gate.NewList(0), gate.NewList(0)
		for _, e := range withList.Entries(m.Key) {
			e.AppendTo(l1, nil, nil)
		}
		for _, e := range alone.Entries(m.Key) {
			e.AppendTo(l2, nil, nil)
		}
		// What the door saw of each member, but of the tools Sanitize
		// read, which the door did not see: that list is read again.
		if v1, v2 := l1.Value(), l2.Value(); !bytes.Equal(v1.Raw, v2.Raw) || v1.Seen != v2.Seen && m.Key != "tools" {
			t.Fatalf("%.200q: %s's entries are %.200q (%+v) with Sanitize reading, %.200q (%+v) alone", b, m.Key, v1.Raw, v1.Seen, v2.Raw, v2.Seen)
		}
	}
	_, img1 := withList.Image()
	_, img2 := alone.Image()
	if img1 != img2 {
		t.Fatalf("%.200q: an image %v with Sanitize reading, %v alone", b, img1, img2)
	}
}

// TestAttack_ToolsReaderLeavesTheDoorWhereItWas: space and escapes around
// the value, every kind of value, the members after it, and a name the
// door refuses wherever Sanitize reads or skips (an item, a schema, past
// toollist.MaxSchema, past toollist.MaxDepth, annotations, a non-object item, an item past
// toollist.MaxTools): the door reads the frame as it would alone. Held on bf91d3c.
func TestAttack_ToolsReaderLeavesTheDoorWhereItWas(t *testing.T) {
	for _, s := range []string{
		`{"tools" : [ {"name":"a"} ] , "id":1}`,
		"{\"tools\"\t:\n[]\r\n,\"id\":1}",
		`{"\u0074ools":[{"name":"a"}],"x":{"a":1}}`,
		`{"tools": "x", "dataUrl":"data:image/png;base64,AAAA"}`,
		`{"tools": {"a":[1,{"b":2}]}, "y":[1]}`,
		`{"tools":null,"id":2}`,
		`{"tools":[1,"a",null,[[]],{"name":"q","inputSchema":[1]}],"z":2}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"a":[1,2,{"b":[]}]}}],"id":3}`,
		`{"tools":[{"annotations":{"title":"x","a":{"b":1}},"name":"a"}],"k":1}`,
		`{"id":1,"tools":[{"name":"a","description":"{\"id\":9}"}],"dataUrl":"data:image/png;base64,AA"}`,
		`{"items":[{"id":"a"},2],"tools":[{"name":"a"}],"files":[{"path":"x","b":[1]}],"heard":[]}`,
		`{"tools":[[1],{"name":"b"}],"items":[{"id":"a","n":{"k":[]}},"s"]}`,
	} {
		sameDoor(t, []byte(s))
	}
	many := make([]string, 0, gate.MaxMembers+1)
	for i := range gate.MaxMembers + 1 {
		many = append(many, fmt.Sprintf(`"k%d":0`, i))
	}
	bad := []string{`"a":1,"a":2`, `"\u0061":1,"a":2`, `"x\u200by":1`, `"` + strings.Repeat("k", gate.MaxMemberName+1) + `":1`, `"\u202e":1`, strings.Join(many, ",")}
	deep, deepEnd := strings.Repeat(`{"a":`, toollist.MaxDepth+8), strings.Repeat(`}`, toollist.MaxDepth+8)
	pad := strings.Repeat("x", toollist.MaxSchema+10)
	items := make([]string, 0, toollist.MaxTools+2)
	for i := range toollist.MaxTools + 2 {
		items = append(items, fmt.Sprintf(`{"name":"t%d"}`, i))
	}
	full := strings.Join(items, ",")
	for _, b := range bad {
		obj := "{" + b + "}"
		for _, list := range []string{
			`[` + obj + `]`,
			`[1,` + obj + `]`,
			`[[` + obj + `]]`,
			`[{"name":"a",` + b + `}]`,
			`[{"name":"a","inputSchema":` + obj + `}]`,
			`[{"name":"a","inputSchema":{"type":"object","properties":` + obj + `}}]`,
			`[{"name":"a","inputSchema":{"d":"` + pad + `","p":` + obj + `}}]`,
			`[{"name":"a","inputSchema":{"d":"` + pad + `",` + b + `}}]`,
			`[{"name":"a","inputSchema":` + deep + obj + deepEnd + `}]`,
			`[{"name":"a","inputSchema":{"x":[` + deep + obj + deepEnd + `]}}]`,
			`[{"name":"a","annotations":` + obj + `}]`,
			`[{"name":"a","annotations":{"title":` + obj + `}}]`,
			`[{"name":"a","annotations":[` + obj + `]}]`,
			`[{"name":"a","description":` + obj + `}]`,
			`[{"name":` + obj + `}]`,
			`[{"name":"a","title":[` + obj + `]}]`,
			`[` + full + `,` + obj + `]`,
			`[` + full + `,{"name":"zz","inputSchema":` + obj + `}]`,
			obj,
		} {
			sameDoor(t, frame(list))
			sameDoor(t, []byte(`{"id":1,"tools":`+list+`,"z":1}`))
		}
	}
}

// FuzzAttackToolsReaderLeavesTheDoorWhereItWas: FuzzSanitize compares the
// door's refusal with and without Sanitize reading; this compares what
// the door accepts: the same members, the same pieces, the same image.
func FuzzAttackToolsReaderLeavesTheDoorWhereItWas(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"id":1}`))
	f.Add([]byte(`{"id":1,"tools":[{"name":"a","annotations":{"title":"x"}},1,[2]],"dataUrl":"data:image/png;base64,AA"}`))
	f.Add([]byte(`{"tools" : "x" ,"say":"hi"}`))
	f.Add([]byte(`{"items":[{"id":"a"},2],"tools":[{"name":"a"}],"files":[{"path":"x","b":[1]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) { sameDoor(t, b) })
}

// TestSec_T9_ToolListNamesHeldOpenAreBounded: the names a tool list holds
// open count against the door's bound (gate.MaxOpenNames) as a reply's
// do, whether the door or the tool list's reader reads them: a schema of
// nested objects of thousands of names is refused, for its names.
func TestSec_T9_ToolListNamesHeldOpenAreBounded(t *testing.T) {
	level := func(i int) string {
		var b strings.Builder
		b.WriteString(`{`)
		for j := range 9000 {
			fmt.Fprintf(&b, `"p%d_%d":0,`, i, j)
		}
		return b.String() + `"x":`
	}
	var schema strings.Builder
	for i := range 5 {
		schema.WriteString(level(i))
	}
	deep := schema.String() + "0" + strings.Repeat("}", 5)
	for _, frame := range []string{
		`{"tools":[{"name":"a","inputSchema":` + deep + `}]}`,
		`{"tools":[{"name":"a","annotations":` + deep + `}]}`,
		`{"tools":[{"name":"a","x":` + deep + `}]}`,
		`{"id":1,"tools":[{"name":"a","inputSchema":` + deep + `}]}`,
	} {
		var l toollist.List
		_, err := envelope.DecodeTools([]byte(frame), toollist.Sanitize(&l, nil))
		if !errors.Is(err, envelope.ErrBadNames) {
			t.Errorf("%.60s…: %v, want refused for its names", frame, err)
		}
	}
}
