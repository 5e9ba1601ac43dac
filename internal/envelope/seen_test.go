package envelope

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// guards are the gate's uses: the model's and the shell's, --raw's, and
// call_to_files'.
var guards = []gate.Guard{
	{Remedy: func(gate.Left) string { return "R" }},
	{Whole: true},
	{EveryDataURL: true},
}

// sameAsWalk fails unless the gate writes r's members as it writes them
// read again, without what the door saw (gate.Seen): the one read costs
// no byte of the gate's output.
func sameAsWalk(t *testing.T, r Reply) {
	t.Helper()
	unseen := r.Members().Without()
	for i := range unseen {
		unseen[i].Seen = gate.Seen{}
	}
	for _, g := range guards {
		got := g.AppendObject(nil, r.Members().All(false), nil)
		want := g.AppendObject(nil, unseen.All(false), nil)
		if string(got) != string(want) {
			t.Fatalf("%+v: the gate wrote %.300q from the door's reading, %.300q reading it again", g, got, want)
		}
	}
}

// TestSeenWritesAsTheWalk: at and past each bound the gate knows (a
// string's or a name's length, a container's entries, the budget), with
// space, escapes, characters to clean and strings that start as a note
// does, a member the door saw is written as a walk over it writes it.
func TestSeenWritesAsTheWalk(t *testing.T) {
	q := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	list := func(n int) string { return "[" + strings.Repeat("0,", n-1) + "0]" }
	obj := func(n int) string {
		var o strings.Builder
		for i := range n {
			fmt.Fprintf(&o, `,"k%d":%d`, i, i)
		}
		return "{" + o.String()[1:] + "}"
	}
	pad := `"` + strings.Repeat("b", gate.MaxTotal-40) + `"`
	for _, v := range []string{
		`[]`, `{}`, `[1,{"a":[true,null,-1.5e3]},"x"]`,
		`[` + q(gate.MaxDataURL) + `]`, `[` + q(gate.MaxDataURL+1) + `]`,
		`{` + q(gate.MaxMemberName) + `:1}`,
		list(gate.MaxItems), list(gate.MaxItems + 1), `[` + list(gate.MaxItems+1) + `]`,
		obj(gate.MaxItems), obj(gate.MaxItems + 1), `[` + obj(gate.MaxItems+1) + `]`,
		"[" + strings.Repeat("[],", gate.MaxItems-1) + "{}]", "[" + strings.Repeat("[],", gate.MaxItems) + "{}]",
		`{"a":` + pad + `,"b":[1,2,3]}`, `[` + pad + `,` + pad + `]`,
		`[` + strings.Repeat(pad+`,`, 3) + `1]`, `[` + strings.Repeat(q(gate.MaxDataURL)+`,`, 60) + `1]`,
		`[` + strings.Repeat(q(gate.MaxDataURL)+`,`, 99) + `1]`, `{"a":[` + strings.Repeat(q(gate.MaxDataURL)+`,`, 99) + `1]}`,
		`[ 1]`, `{"a" :1}`, "[1,\n2]", `["\u00e9"]`, `["a\u200bb"]`, `["\u005bbridge: x"]`, `["é … ✓"]`, "[\"a\x7fb\"]", "[\"a\u2028b\"]", "[\"\ufeffa\"]", "{\"é\":\"\U0001F600\"}", "[\"\ufffd\"]", "[\"a\u200bb\"]", `{"\u0061b":1}`,
		`[` + strings.Repeat("1", gate.MaxNumber) + `]`, `[` + strings.Repeat("1", gate.MaxNumber+1) + `]`,
		`[1e999,-1.5E3,true,false,null]`, `{"a":1e2}`,
		`["[bridge: x"]`, `{"[bridge]":1,"b":2}`, `["data:,x"]`, `{"DATA:x":1}`, `[["data:image/png;base64,AAAA"]]`,
		`["d\u0061ta:,x"]`, `{"\u0064ata:x":1}`, `["a\nb","\u0041","\/","\ud83d\ude00"]`, `["\u0000"]`, `["\u005b"]`,
	} {
		for _, at := range []string{"", `"s":` + q(gate.MaxTotal/2) + `,`} {
			r, err := Decode([]byte(`{"id":1,` + at + `"v":` + v + `}`))
			if err != nil {
				t.Fatalf("Decode(%.100s) = %v", v, err)
			}
			sameAsWalk(t, r)
		}
	}
}
