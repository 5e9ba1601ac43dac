package gate

import (
	"strconv"
	"strings"
	"testing"
)

// TestListWritesAsTheWalk: a List of pieces the gate would change (a
// character to clean, the note's prefix, an escape, a long string or
// number, a container it did not see, an entry past MaxItems members)
// is written as the walk writes it, for every Guard; one with nothing to
// change is written unread.
func TestListWritesAsTheWalk(t *testing.T) {
	q := func(s string) []byte { return AppendString(nil, s) }
	long := `"` + strings.Repeat("a", MaxDataURL+1) + `"`
	for _, tt := range []struct {
		name     string
		members  [][2]string
		verbatim bool
	}{
		{"plain", [][2]string{{`"name"`, `"a.png"`}, {`"n"`, `1`}, {`"ok"`, `true`}}, true},
		{"a data URL", [][2]string{{`"dataUrl"`, `"data:image/png;base64,AA"`}}, true},
		{"invisible", [][2]string{{`"name"`, "\"a\u200bb\""}}, false},
		{"an invisible name", [][2]string{{"\"n\u200b\"", `1`}}, false},
		{"the note's prefix", [][2]string{{`"name"`, `"[bridge: saved"`}}, false},
		{"a reserved name", [][2]string{{`"[Bridge]"`, `1`}}, false},
		{"an escape", [][2]string{{`"name"`, `"a\u0062"`}}, false},
		{"long", [][2]string{{`"text"`, long}}, false},
		{"a long number", [][2]string{{`"n"`, "1e999"}}, false},
		{"a container unseen", [][2]string{{`"w"`, `[1, 2]`}}, false},
	} {
		for _, entries := range []int{1, 3} {
			l := NewList(0)
			for range entries {
				l.Open()
				for _, m := range tt.members {
					l.Member([]byte(m[0]), Value{Raw: []byte(m[1])})
				}
				l.Member(q("savedTo"), Value{Raw: q("/tmp/x.stitchslop.png")})
				l.Close()
			}
			v := l.Value()
			if got := (Guard{}).verbatim(v.Seen, len(v.Raw)); got != tt.verbatim {
				t.Errorf("%s: written unread %v, want %v", tt.name, got, tt.verbatim)
			}
			sameAsWalk(t, tt.name, v)
		}
	}
	// Members and entries past MaxItems.
	for _, n := range []int{MaxItems - 1, MaxItems, MaxItems + 1} {
		l := NewList(0)
		l.Open()
		for i := range n {
			l.Member(q("m"+strconv.Itoa(i)), Value{Raw: []byte("1")})
		}
		l.Close()
		sameAsWalk(t, "members", l.Value())
		l = NewList(0)
		for range n {
			l.Open()
			l.Close()
		}
		sameAsWalk(t, "entries", l.Value())
	}
}

func sameAsWalk(t *testing.T, name string, v Value) {
	t.Helper()
	for _, g := range []Guard{{}, {Whole: true}, {EveryDataURL: true}} {
		members := func(v Value) func(func(string, Value) bool) {
			return func(yield func(string, Value) bool) { yield("files", v) }
		}
		got := g.AppendObject(nil, members(v), nil)
		want := g.AppendObject(nil, members(Value{Raw: v.Raw}), nil)
		if string(got) != string(want) {
			t.Fatalf("%s, %+v: written %.300q from the List's seeing, %.300q read again", name, g, got, want)
		}
	}
}
