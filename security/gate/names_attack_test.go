package gate

// Session 33's attack on Reader's count of the names held open: a
// differential fuzz of what it counts for each open object against the
// names that object has had.

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzAttackReaderCountsEachOpenObject: reading any JSON value name by
// name (Check) and token by token, at each name the count kept for every
// object open (Reader.open at its depth) is exactly what that object's
// names cost (raw length and nameRoom each), and the total is at least
// their sum: never less (memory), and what is over is only of depths now
// lists (dropped by recount past the bound).
func FuzzAttackReaderCountsEachOpenObject(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":0,"c":{"d":0}},"e":[{"f":0},[{"g":0}],{"h":0}],"i":{}}`,
		`[{"a":0,"b":0},{"c":[{"d":{"e":0}},{"f":0}]},[[{"g":0}]],{"h":0}]`,
		`{"a":[{"x":0},[{"y":0}],{"x":0}],"b":{"c":{"d":[{}]},"e":0}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(jsontext.NewDecoder(bytes.NewBuffer(b)))
		var want []int // by depth, the names of the object open there; -1 a list
		for {
			depth := r.StackDepth()
			kind, n := r.StackIndex(depth)
			if depth > 0 && kind == '{' && n%2 == 0 && r.PeekKind() == '"' {
				v, err := r.ReadValue()
				if err != nil {
					return
				}
				if _, err := r.Check(v); err != nil {
					return
				}
				want[depth] += len(v) + nameRoom
				sum := 0
				for d := 1; d <= depth; d++ {
					if want[d] >= 0 {
						sum += want[d]
						if d < len(r.open) && r.open[d] != want[d] {
							t.Fatalf("%q: at depth %d an object of names costing %d counted %d", b, d, want[d], r.open[d])
						}
					}
				}
				if r.total < sum {
					t.Fatalf("%q: the objects open hold names costing %d, counted %d", b, sum, r.total)
				}
				continue
			}
			tok, err := r.ReadToken()
			if err != nil {
				return
			}
			switch tok.Kind() {
			case '{', '[':
				w := 0
				if tok.Kind() == '[' {
					w = -1
				}
				want = append(want[:min(len(want), r.StackDepth())], w)
				for len(want) < r.StackDepth()+1 {
					want = append([]int{0}, want...)
				}
			case '}', ']':
				want = want[:r.StackDepth()+1]
			}
			if r.StackDepth() == 0 {
				return
			}
		}
	})
}
