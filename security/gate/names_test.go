package gate

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// objectOf is an object of n members whose names are width bytes, each
// value 0.
func objectOf(n, width int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		name := fmt.Sprint(i)
		fmt.Fprintf(&b, "%q:0", name+strings.Repeat("n", max(width-len(name), 0)))
	}
	b.WriteByte('}')
	return b.String()
}

// skipAll reads doc whole as the door's readers do (Skip), in place.
func skipAll(doc string) error { return skip([]byte(doc)) }

func skip(doc []byte) error { return Skip(NewReader(jsontext.NewDecoder(bytes.NewBuffer(doc)))) }

// TestReaderBoundsNamesHeldOpen (T9): the standard's reader keeps the
// names of the last object at each level of nesting, so names held at
// once past MaxOpenNames are refused, however they are nested; as many
// names in objects another has replaced at their level (siblings, a
// list's entries, an object before a list at the same depth) are not.
func TestReaderBoundsNamesHeldOpen(t *testing.T) {
	half := MaxOpenNames / 2 / (2*102 + nameRoom) // members of 100-byte names in half the bound
	big := objectOf(half, 100)
	nest := func(inner string) string { // big, its last member inner
		return strings.TrimSuffix(big, "}") + `,"z":` + inner + "}"
	}
	for _, tt := range []struct {
		name string
		doc  string
		ok   bool
	}{
		{"one object within", big, true},
		{"siblings, each within", `{"a":` + big + `,"b":` + big + `,"c":` + big + `}`, true},
		{"a list of them", `[` + big + `,` + big + `,` + big + `]`, true},
		{"an object, then a list at its depth", `{"a":` + big + `,"b":[{"c":` + big + `}]}`, true},
		{"two lists deep", `{"a":` + big + `,"b":[` + big + `,[{"c":` + big + `}]]}`, true},
		{"nested, past", nest(nest(nest("0"))), false},
		{"nested under a list, past", `[` + nest(`[`+nest(`[`+nest("0")+`]`)+`]`) + `]`, false},
		{"one object past", objectOf(2*half+2, 100), false},
		{"names of 1,000 bytes, past", objectOf(MaxOpenNames/1000, 1000), false},
		{"many short names nested, past", strings.Repeat(`{"a":0,"b":0,"c":0,"d":0,"e":`, MaxOpenNames/(5*(2*3+nameRoom))+1) + "0" + strings.Repeat("}", MaxOpenNames/(5*(2*3+nameRoom))+1), false},
	} {
		if err := skipAll(tt.doc); (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrName) {
			t.Errorf("%s: %v, want refused %v (ErrName)", tt.name, err, !tt.ok)
		}
	}
}

// TestReaderNamesHeldOpenBoundTheReadersMemory: the object of names that
// cost the standard's reader most, at the bound, costs it a few times the
// bound; the same object one name past is refused having cost no more.
func TestReaderNamesHeldOpenBoundTheReadersMemory(t *testing.T) {
	for _, width := range []int{1, 1000} {
		n := MaxOpenNames / (2*(width+2) + nameRoom)
		for _, members := range []int{n, 4 * n} {
			doc := []byte(`{"a":{"z":` + objectOf(members, width) + `}}`)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err := skip(doc)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 8*MaxOpenNames {
				t.Errorf("names of %d bytes, %d members (%v): the reader allocated %d bytes, want at most %d", width, members, err, got, 8*MaxOpenNames)
			}
		}
	}
}
