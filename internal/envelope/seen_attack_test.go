package envelope

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// allGuards are every setting of the gate, --raw with call_to_files'
// included, so that no pairing the faces may one day use goes unheld.
var allGuards = []gate.Guard{
	{},
	{Remedy: func(gate.Left) string { return "R" }},
	{Whole: true},
	{EveryDataURL: true},
	{Whole: true, EveryDataURL: true},
}

// sameAsWalkAll is sameAsWalk for every Guard, written after a face's own
// words (the MCP text's say line) and followed by the bridge's own
// members, as toolResponse and emit write a reply.
func sameAsWalkAll(t *testing.T, r Reply) {
	t.Helper()
	seen := r.Members().With("savedTo", "/tmp/x").Without("text")
	unseen := seen.Without()
	for i := range unseen {
		unseen[i].Seen = gate.Seen{}
	}
	for _, g := range allGuards {
		for _, head := range []string{"", "say\n\n"} {
			got := g.AppendObject([]byte(head), seen.All(false), seen.All(true))
			want := g.AppendObject([]byte(head), unseen.All(false), unseen.All(true))
			if string(got) != string(want) {
				t.Fatalf("%+v: the gate wrote %.300q from the door's reading, %.300q reading it again", g, got, want)
			}
		}
	}
	listsAsWalked(t, r)
}

// listsAsWalked: a list built of each top-level list's entries (as --save
// builds one, gate.List), some members left out and one of the bridge's
// added, is written from what the door saw of its pieces as a walk over
// it writes it, for every Guard.
func listsAsWalked(t *testing.T, r Reply) {
	t.Helper()
	for _, m := range r.Members() {
		for _, drop := range [][]string{nil, {"k"}, {"j", "dataUrl"}} {
			l := gate.NewList(0)
			for _, e := range r.Entries(m.Key) {
				e.AppendTo(l, drop, Object{}.With("savedTo", "/tmp/x"))
			}
			v := l.Value()
			for _, g := range allGuards {
				got := g.AppendObject(nil, Object{{Key: "files", Value: v.Raw, Seen: v.Seen}}.All(false), nil)
				want := g.AppendObject(nil, Object{{Key: "files", Value: v.Raw}}.All(false), nil)
				if string(got) != string(want) {
					t.Fatalf("%+v: %s's entries without %q, built: the gate wrote %.300q from the door's reading, %.300q reading it again", g, m.Key, drop, got, want)
				}
			}
		}
	}
}

// seenAttacks are a hostile page's values for a member the door reads
// and the gate may copy unread: every invisible character class, the
// note's prefix behind them or in names at depth, data URLs in odd case,
// numbers, space between tokens.
var seenAttacks = []string{
	"[\"a\u200bb\"]", "[\"\u202eabc\"]", "[\"\ufeff[bridge: x\"]", "[\"\U000E0041\U000E0042\"]",
	"[\"a\ufe0f\"]", "[\"\u3164\"]", "[\"\u115f\u1160\uffa0\"]", "[\"x\u2029y\"]", "[\"x\u2028\"]",
	"[\"\U000F0000\"]", "[\"\u0378\"]", "[\"\u00ad\"]", "[\"\u061c\"]", "[\"\U0001D173\"]",
	`["\u2028"]`, `["\ud83d\ude00"]`, `["\u005bbridge"]`, `["\\[bridge"]`, `["\/"]`,
	`{"a":{"[bridge":1}}`, `[{"b":{"[bridge]":2}}]`, `[{"[bridgeX":2}]`, `[{"[Bridge":2}]`, `["[Bridge: x"]`,
	`["[bridge"]`, `["[bridg"]`, `[" [bridge"]`, "[\"é[bridge\"]",
	`["DATA:,x"]`, `["dAtA:image/png;base64,AA"]`, `["data:"]`, `["data"]`, `[{"Data:x":1}]`,
	`["d\u0061ta:,x"]`, `[" data:,x"]`, "[\"\u200bdata:,x\"]",
	`[-0,0,-0.0,1E5,1e-5,1e999,-1e999,1.7976931348623157e308,2e308]`,
	`[` + strings.Repeat("9", gate.MaxNumber) + `]`, `[-` + strings.Repeat("9", gate.MaxNumber-1) + `]`,
	`[-` + strings.Repeat("9", gate.MaxNumber) + `]`, `[0.` + strings.Repeat("0", gate.MaxNumber-2) + `]`,
	"[1,\t2]", "[1\n]", "{\"a\":\r1}", "[\n]", "{ }", "[[] ,[]]",
	`[{"a":[{"b":[{"c":[]}]}]}]`,
}

// TestSec_SeenHostileValues: the door's reading of a hostile page's
// values writes what a walk over them writes, for every Guard, with the
// face's words before and the bridge's own members after.
func TestSec_SeenHostileValues(t *testing.T) {
	for _, v := range seenAttacks {
		r, err := Decode([]byte(`{"id":1,"v":` + v + `,"w":[` + v + `],"x":[{"k":` + v + `,"j":1},{"j":` + v + `,"k":[` + v + `]}]}`))
		if err != nil {
			continue // the door refused it: nothing reaches the gate
		}
		sameAsWalkAll(t, r)
	}
}

// TestSec_SeenAtTheBounds: lists and objects at and past MaxItems at
// depth, and a member that ends one byte before, at, and one byte past
// the budget, whose strings each pass the fast path (at most MaxDataURL).
func TestSec_SeenAtTheBounds(t *testing.T) {
	q := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	var docs []string
	for d := -3; d <= 6; d++ {
		for _, head := range []string{`{"id":1,"v":`, `{"id":1,"a":{},"v":`} {
			// the gate writes head as it came, then the list: strings to
			// 40 bytes short, then small entries to end at MaxTotal+d, the
			// last begun just within the budget or just past it
			n := gate.MaxTotal + d - len(head)
			var l strings.Builder
			l.WriteString("[")
			for l.Len()+gate.MaxDataURL+3 < n-40 {
				l.WriteString(q(gate.MaxDataURL) + ",")
			}
			s := n - 40 - l.Len() - 2
			if (n-1-(l.Len()+s+2))%2 != 0 { // the rest in ",0" pairs
				s--
			}
			l.WriteString(q(s))
			for l.Len() < n-1 {
				l.WriteString(",0")
			}
			l.WriteString("]")
			if l.Len() != n {
				t.Fatalf("built %d bytes, not %d", l.Len(), n)
			}
			docs = append(docs, head+l.String()+`}`)
			docs = append(docs, head+"[["+l.String()[1:]+"]}")
		}
	}
	for _, k := range []int{gate.MaxItems - 1, gate.MaxItems, gate.MaxItems + 1} {
		list := "[" + strings.Repeat("0,", k-1) + "0]"
		var o strings.Builder
		for i := range k {
			if i > 0 {
				o.WriteString(",")
			}
			o.WriteString(`"k` + strings.Repeat("x", i%7) + itoa(i) + `":0`)
		}
		obj := "{" + o.String() + "}"
		docs = append(docs, `{"id":1,"v":[[[`+list+`]]]}`, `{"id":1,"v":{"a":{"b":`+obj+`}}}`, `{"id":1,"v":[`+list+`,`+obj+`]}`)
	}
	for _, b := range docs {
		r, err := Decode([]byte(b))
		if err != nil {
			t.Fatalf("Decode(%.80s) = %v", b, err)
		}
		sameAsWalkAll(t, r)
	}
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}

// FuzzSeenAtBounds grows a small value the fuzzer finds to where the
// gate's bounds are (the budget after a pad, MaxItems copies in a list)
// and holds the door's reading to a walk, for every Guard: a fuzzed
// document alone is too small to reach them, and a test that shrinks the
// limits writes no Seen.
func FuzzSeenAtBounds(f *testing.F) {
	for _, v := range seenAttacks {
		f.Add(v, uint16(0), uint16(1))
		f.Add(v, uint16(gate.MaxTotal/gate.MaxDataURL), uint16(3))
	}
	f.Add(`"a"`, uint16(97), uint16(1))
	f.Add(`0`, uint16(0), uint16(gate.MaxItems))
	f.Add(`{"a":0}`, uint16(0), uint16(gate.MaxItems+1))
	f.Fuzz(func(t *testing.T, v string, pads, copies uint16) {
		if copies == 0 || int(copies) > gate.MaxItems+2 || int(pads) > gate.MaxTotal/gate.MaxDataURL+4 || len(v)*int(copies) > 4*gate.MaxTotal {
			return
		}
		pad := `"` + strings.Repeat("p", gate.MaxDataURL) + `"`
		var b strings.Builder
		b.WriteString(`{"id":1,"v":[`)
		for i := range int(pads) {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(pad)
		}
		for i := range int(copies) {
			if i > 0 || pads > 0 {
				b.WriteString(",")
			}
			b.WriteString(v)
		}
		b.WriteString(`],"w":[` + v + `]}`)
		r, err := Decode([]byte(b.String()))
		if err != nil {
			return
		}
		sameAsWalkAll(t, r)
	})
}
