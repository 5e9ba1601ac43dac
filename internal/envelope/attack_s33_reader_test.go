package envelope

// Session 33's attack on the pooled door reader (5082ff1), as a hostile
// page or leader: names jsontext keeps that gate.Reader.Held does not
// count, so free keeps the decoder holding them in the pool.

import (
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// pooledHold decodes b (refused or not) and reports what the reader it
// put back in the pool holds in its decoder beyond a new one's.
func pooledHold(t *testing.T, b []byte) (held uint64, counted int) {
	t.Helper()
	Decode(b)
	rd := readers.Get().(*reader) // this P's, just put back
	counted = rd.r.Held()
	with := liveHeap()
	rd.d = jsontext.Decoder{}
	without := liveHeap()
	runtime.KeepAlive(rd)
	if with < without {
		return 0, counted
	}
	return with - without, counted
}

// TestAttack_T9_RefusedNameKeptInPool: a member name over MaxMemberName
// is inserted in jsontext's namespace as ReadValue reads it, before
// gate.Reader.Check refuses it, and is never counted; the refusal frees
// the reader with Held() of a few dozen bytes, under heldKept, so the
// pool keeps its decoder, and Reset keeps the namespace's buffer: the
// bridge holds the whole name (here 16 MB; a frame allows 64 MB) after the
// reply is gone.
func TestAttack_T9_RefusedNameKeptInPool(t *testing.T) {
	b := []byte(`{"id":1,"ok":true,"` + strings.Repeat("n", 16<<20) + `":0}`)
	if _, err := Decode(b); err == nil {
		t.Fatal("Decode took a name of 16 MB")
	}
	held, counted := pooledHold(t, b)
	t.Logf("pooled decoder holds %d bytes; Held() counted %d", held, counted)
	if held > heldKept*2 {
		t.Errorf("the pooled reader's decoder holds %.1f MB after a refused reply; its count was %d bytes (kept under %d)", float64(held)/1e6, counted, heldKept)
	}
}

// TestAttack_T9_ResetNamespacesKeptInPool: a reply whose member is 850
// objects deep, each level {"a":{64 names of 13 bytes},"p":{the next}},
// ends counted at about 62 KB (the last object at each level), under
// heldKept, so the pool keeps the decoder; jsontext keeps at each level
// the buffers of the small namespace reset there (up to 1 KiB of names and
// 64 offsets), and Reset keeps a stack of up to 1,024 levels.
func TestAttack_T9_ResetNamespacesKeptInPool(t *testing.T) {
	var full strings.Builder
	full.WriteString("{")
	for i := range 64 {
		if i > 0 {
			full.WriteString(",")
		}
		full.WriteString(`"` + strings.Repeat("n", 11) + string(rune('0'+i/10)) + string(rune('0'+i%10)) + `":0`)
	}
	full.WriteString("}")
	levels := 850
	b := []byte(`{"id":1,"ok":true,"x":` + strings.Repeat(`{"a":`+full.String()+`,"p":`, levels) + "0" + strings.Repeat("}", levels) + "}")
	if _, err := Decode(b); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	held, counted := pooledHold(t, b)
	t.Logf("reply %d bytes; pooled decoder holds %d bytes; Held() counted %d", len(b), held, counted)
	if held > heldKept*2 {
		t.Errorf("the pooled reader's decoder holds %.2f MB after the reply; its count was %d bytes (kept under %d)", float64(held)/1e6, counted, heldKept)
	}
}
