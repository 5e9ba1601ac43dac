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
// name (Check) and token by token, the Reader counts at every name what
// jsontext holds: for each level of objects, the names of the last
// object opened at that level (nameCost each), whether or not it has
// closed, and of the objects before it there what jsontext keeps of their
// buffers (levelKept). (Session 33's attack found the first count, of the
// objects open only, short: jsontext keeps a closed object's names until
// another opens at its level.)
func FuzzAttackReaderCountsEachOpenObject(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":0,"c":{"d":0}},"e":[{"f":0},[{"g":0}],{"h":0}],"i":{}}`,
		`[{"a":0,"b":0},{"c":[{"d":{"e":0}},{"f":0}]},[[{"g":0}]],{"h":0}]`,
		`{"a":[{"x":0},[{"y":0}],{"x":0}],"b":{"c":{"d":[{}]},"e":0}}`,
		`{"n":{"n":{"n":0,"0":0,"1":0},"0":0,"1":0},"0":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(jsontext.NewDecoder(bytes.NewBuffer(b)))
		var objects []int // the objects opened, each its names' cost
		last := []int{-1} // by level, the last object opened there (an index of objects)
		kept := []int{0}  // by level, what jsontext keeps of the objects before it there
		level := 0
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
				objects[last[level]] += 2*len(v) + nameRoom
				held := 0
				for l := 1; l < len(last); l++ {
					held += kept[l] + objects[last[l]]
				}
				if r.Held() != held {
					t.Fatalf("%q: jsontext holds names costing %d, the Reader counted %d", b, held, r.Held())
				}
				continue
			}
			tok, err := r.ReadToken()
			if err != nil {
				return
			}
			switch tok.Kind() {
			case '{':
				level++
				objects = append(objects, 0)
				if level < len(last) {
					kept[level] = min(max(kept[level], objects[last[level]]), levelKept)
					last[level] = len(objects) - 1
				} else {
					last = append(last, len(objects)-1)
					kept = append(kept, 0)
				}
			case '}':
				level--
			}
			if r.StackDepth() == 0 {
				return
			}
		}
	})
}
