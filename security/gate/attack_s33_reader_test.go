package gate

// Session 33's attack on Reader (5082ff1), as a hostile page or leader:
// what jsontext keeps of names that the Reader no longer counts.

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// resetLevels is a value of levels objects nested, each {"a":{64 names
// of 13 bytes},"p":{the next}}: at every level an object of 832 bytes of
// names (past 896 append grows the buffer over 1 KiB, which reset lets
// go), then another opened at its level ("p"), so the Reader drops its
// count. jsontext's namespace reset (objectNamespace.reset) keeps a names
// buffer up to 1 KiB and 64 offsets, so it still holds about 1.4 KiB at
// each level.
func resetLevels(levels int) []byte {
	var b bytes.Buffer
	var names strings.Builder
	for i := range 64 {
		fmt.Fprintf(&names, `"%013d":0,`, i)
	}
	full := "{" + strings.TrimSuffix(names.String(), ",") + "}"
	for range levels {
		b.WriteString(`{"a":` + full + `,"p":`)
	}
	b.WriteString("0")
	b.WriteString(strings.Repeat("}", levels))
	return b.Bytes()
}

// heapOf is the live heap after a collection.
func heapOf() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAttack_T9_ResetNamespacesHeldUncounted: jsontext keeps, at each
// level of objects, the capacity of the last small namespace reset there
// (up to 1 KiB of names and 64 offsets), names the Reader stopped counting
// when the next object opened at that level. A value 9,990 objects deep
// whose count stays under MaxOpenNames (about 70 bytes a level) makes the
// decoder hold about 15 MB beside the value: fifteen times the bound the
// Reader is said to keep (on 5082ff1). The Reader now counts what a level
// keeps (levelKept), and refuses the value; if it reads it, it holds
// within the bound.
func TestAttack_T9_ResetNamespacesHeldUncounted(t *testing.T) {
	b := resetLevels(9_990)
	before := heapOf()
	r := NewReader(jsontext.NewDecoder(bytes.NewReader(b)))
	if err := Skip(r); err != nil {
		t.Logf("refused: %v (counted %d)", err, r.Held())
	}
	held := heapOf() - before
	runtime.KeepAlive(r)
	t.Logf("value %d bytes; Reader counts %d bytes of names; the decoder holds %d bytes", len(b), r.Held(), held)
	if held > 2*MaxOpenNames {
		t.Errorf("the decoder holds %.1f MB of names after a value the Reader counted at %d KiB (bound %d KiB)",
			float64(held)/1e6, r.Held()>>10, MaxOpenNames>>10)
	}
}

// TestAttack_T9_MapNamesCountedAtHalf: an object of 9,000 names of 70
// bytes, past 64 names so jsontext keeps them in a map too, is counted at
// 936 KB (raw length and nameRoom each), under MaxOpenNames, while the
// decoder holds about 1.9 MB for it: a copy of each name as the map's
// key (in a size class over its length), the map's slots and their room
// to grow, and the buffer and offsets' room to grow. nameRoom is about
// half what a name in a map costs, so the bound lets about 2 MiB be held.
func TestAttack_T9_MapNamesCountedAtHalf(t *testing.T) {
	var o strings.Builder
	o.WriteString(`{"x":{`)
	for i := range 9_000 {
		if i > 0 {
			o.WriteString(",")
		}
		fmt.Fprintf(&o, `"%070d":0`, i)
	}
	o.WriteString(`},"p":0}`)
	b := []byte(o.String())
	before := heapOf()
	r := NewReader(jsontext.NewDecoder(bytes.NewBuffer(b)))
	for end := int64(bytes.LastIndex(b, []byte(`"p"`))); r.InputOffset() < end; {
		var err error
		if kind, n := r.StackIndex(r.StackDepth()); kind == '{' && n%2 == 0 && r.PeekKind() == '"' {
			_, err = Name(r)
		} else {
			_, err = r.ReadToken()
		}
		if err != nil {
			t.Fatalf("read: %v, want the names taken (counted %d)", err, r.Held())
		}
	}
	held := heapOf() - before
	runtime.KeepAlive(r)
	t.Logf("Reader counts %d bytes of names; the decoder holds %d", r.Held(), held)
	if float64(held) > 1.5*float64(r.Held()) {
		t.Errorf("the decoder holds %.2f times what the Reader counts (%d of %d bytes)", float64(held)/float64(r.Held()), held, r.Held())
	}
}
