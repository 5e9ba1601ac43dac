package envelope

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// heldOut fails when out, what a Guard wrote of a page's reply, holds a
// string or name that decodes to a character unprintable.Is names (but
// tab and newline, which Clean keeps as layout), or, for a guard that
// writes no note (Whole), any raw string that starts "[bridge".
func heldOut(t *testing.T, g gate.Guard, in, out []byte) {
	t.Helper()
	d := jsontext.NewDecoder(bytes.NewReader(out), jsontext.AllowDuplicateNames(true))
	for {
		if d.PeekKind() != '"' {
			if _, err := d.ReadToken(); err != nil {
				break
			}
			continue
		}
		raw, err := d.ReadValue()
		if err != nil {
			break
		}
		u, _ := jsontext.AppendUnquote(nil, raw)
		for _, r := range string(u) {
			if r != '\t' && r != '\n' && unprintable.Is(r) {
				t.Fatalf("%+v: %q reached the output holding %U: %.300q", g, in, r, out)
			}
		}
		// As written: a string whose raw form starts so, in any case (one
		// that starts with an escaped quote does not).
		if g.Whole && len(raw) >= 8 && strings.EqualFold(string(raw[:8]), `"[bridge`) {
			t.Fatalf("%+v: %q wrote a raw \"[bridge string: %.300q", g, in, out)
		}
	}
}

// FuzzAttackSeenDifferential: any document the door accepts is written by
// every Guard exactly as when every Seen is zeroed, and what is written
// holds no invisible character nor an unmarked "[bridge".
func FuzzAttackSeenDifferential(f *testing.F) {
	for _, v := range seenAttacks {
		f.Add(v)
	}
	for _, v := range []string{
		`["\u005Bbridge"]`, `["[\u0062ridge"]`, `["\u200b[bridge"]`, `[{"a":"[bridge"}]`,
		`["D\u0041TA:,x"]`, `["data\u003a,x"]`, `[1E400]`, `[-1e-400]`, `[1e+308]`, `["\t[bridge"]`,
		"[\"\u0378x\"]", "[\"\U000E01EF\"]", "[\"\u034f\"]", "[\"\ufff9\"]", "[\"\U0001BCA0\"]", "[\"\u180e\"]",
		`["\ufffe"]`, `["\uFDD0"]`, `["\udb40\udc41"]`, `["\uDBFF\uDFFF"]`,
	} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		doc := []byte(`{"id":1,"v":` + v + `,"w":[` + v + `],"x":{"k":` + v + `}}`)
		r, err := Decode(doc)
		if err != nil {
			return
		}
		sameAsWalkAll(t, r)
		for _, g := range allGuards {
			heldOut(t, g, []byte(v), g.AppendObject(nil, r.Members().All(false), nil))
		}
	})
}

// escapedLists is a reply of about size bytes: lists of at most 1,000
// entries (under gate.MaxItems, so the door keeps looking), each entry
// elem, a string the gate would not change.
func escapedLists(elem string, size int) []byte {
	inner := "[" + strings.Repeat(elem+",", 999) + elem + "]"
	var b strings.Builder
	b.WriteString(`{"id":1,"v":[`)
	for n := 0; b.Len()+len(inner) < size; n++ {
		if n%1000 == 0 {
			if n > 0 {
				b.WriteString("0],")
			}
			b.WriteString("[")
		}
		b.WriteString(inner + ",")
	}
	b.WriteString(`0]]}`)
	return []byte(b.String())
}

// BenchmarkAttackDoorEscapedStrings: the door alone (Decode) on 8 MB of
// strings with an escape each. gate.Seen once judged each by walk's own
// rule (an unquote and a Clean each): 931,006 allocations for EscapedASCII
// where stopping at the first escape costs 4; it stops there again.
// RawCJK is what the door pays for visible text outside ASCII
// (THREAT_MODEL.md T9).
func BenchmarkAttackDoorEscapedStrings(b *testing.B) {
	for name, elem := range map[string]string{
		"EscapedASCII": `"\u0041"`,
		"EscapedCJK":   `"\/` + strings.Repeat("漢", 600) + `"`,
		"RawCJK":       `"` + strings.Repeat("漢", 600) + `"`,
	} {
		in := escapedLists(elem, 8<<20)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
