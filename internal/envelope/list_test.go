package envelope

import (
	"bytes"
	"encoding/json"
	"iter"
	"maps"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// entriesAsRead holds Entries, from what the door recorded and streamed
// alike, to each top-level list read again by encoding/json, an
// independent reader: every entry, each the same piece, an object's
// members the same names and values; and an entry written again
// (AppendTo) but for a member, with one of the bridge's, is the same
// object but for those.
func entriesAsRead(t *testing.T, r Reply) {
	t.Helper()
	for _, m := range r.Members() {
		var items []json.RawMessage
		isList := m.Value[0] == '[' && json.Unmarshal(m.Value, &items) == nil
		check := func(how string, seq iter.Seq2[int, Entry]) {
			t.Helper()
			n := 0
			for i, e := range seq {
				if i != n || i >= len(items) || !bytes.Equal(e.b[e.rec.a:e.rec.b], items[i]) {
					t.Fatalf("%s %s[%d]: %.80q; read again, %d entries", how, m.Key, i, e.b[e.rec.a:e.rec.b], len(items))
				}
				var obj map[string]json.RawMessage
				isObject := items[i][0] == '{' && json.Unmarshal(items[i], &obj) == nil
				if e.IsObject() != isObject || len(e.members) != len(obj) {
					t.Fatalf("%s %s[%d]: an object %v of %d members; read again, %v of %d", how, m.Key, i, e.IsObject(), len(e.members), isObject, len(obj))
				}
				var drop []string
				for k, v := range obj {
					if !bytes.Equal(e.Get(k), v) {
						t.Fatalf("%s %s[%d].%q = %.80q; read again, %.80q", how, m.Key, i, k, e.Get(k), v)
					}
					drop = []string{k}
				}
				var got, want map[string]json.RawMessage
				l := gate.NewList(0)
				e.AppendTo(l, drop, Object{}.With("savedBytes", 1))
				if err := json.Unmarshal(bytes.TrimSuffix(bytes.TrimPrefix(l.Value().Raw, []byte("[")), []byte("]")), &got); err != nil {
					t.Fatalf("%s %s[%d] written again: %v", how, m.Key, i, err)
				}
				if want = maps.Clone(obj); want == nil {
					want = map[string]json.RawMessage{}
				}
				for _, k := range drop {
					delete(want, k)
				}
				want["savedBytes"] = json.RawMessage("1")
				if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
					t.Fatalf("%s %s[%d] written again without %q: %v, want %v", how, m.Key, i, drop, got, want)
				}
				n++
			}
			if n != len(items) {
				t.Fatalf("%s %s: %d entries; read again, %d", how, m.Key, n, len(items))
			}
		}
		check("recorded", r.Entries(m.Key))
		if isList {
			check("streamed", func(y func(int, Entry) bool) { stream(m.Value, y) })
		}
	}
}

func TestEntriesAsRead(t *testing.T) {
	for _, in := range []string{
		`{"files":[{"name":"a.png","dataUrl":"data:image/png;base64,AA","meta":{"w":1,"t":["x"]}},7,[1,{"a":2}],{}, {"\u0064ataUrl" : "x" , "n":[[]]} ,"s",null],"n":[],"o":{"a":[1]}}`,
		`{"a":[{"x":{"y":[1,2]},"z":[{"q":1}]}],"b":[1,2,3]}`,
		`{"wide":[` + strings.Repeat(`{"k":"v","n":1},`, maxRecs/3) + `{}],"small":[{"k":1}],"after":[` + strings.Repeat(`{"k":"v","n":1},`, maxRecs/3) + `{}]}`,
		` { "a" : [ { "b" : 1 } , 2 ] } `,
		// A list of maxRecs records exactly, then one of a record more,
		// each with lists after it.
		`{"a":[` + strings.Repeat(`{"k":1},`, maxRecs/2-1) + `0],"b":[1],"c":[{"k":{"j":2}},2]}`,
		`{"a":[` + strings.Repeat(`{"k":1},`, maxRecs/2-1) + `{"k":[1]}],"b":[1],"c":[{"k":{"j":2}},2]}`,
	} {
		r, err := Decode([]byte(in))
		if err != nil {
			t.Fatalf("Decode(%.80q): %v", in, err)
		}
		entriesAsRead(t, r)
	}
}

// TestSec_ListsRecordedBounded: what the door records of a reply's lists
// is bounded whatever their size (a 64 MB list of empty objects costs no
// record an entry), a list it could not record is still walked whole, and
// a list too long to record spends no record of the lists after it.
func TestSec_ListsRecordedBounded(t *testing.T) {
	const n = 64 << 20 / 3
	b := []byte(`{"a":[` + strings.Repeat(`{},`, n) + `{}],"files":[{"name":"x"}]}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Decode(b)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// Records grow by doubling up to maxRecs in the door's reader (pooled,
	// so perhaps grown already; rounded up to the allocator's sizes), and
	// the reply's are copied out.
	if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(4*maxRecs*unsafe.Sizeof(rec{})+4096); got > bound || len(r.recs) > maxRecs {
		t.Errorf("Decode allocated %d bytes and kept %d records, want at most %d and %d", got, len(r.recs), bound, maxRecs)
	}
	if len(r.recs) != 3 || int(r.recs[0].a) != bytes.Index(b, []byte(`[{"name"`)) {
		t.Errorf("the door recorded %v, want the files list alone", r.recs)
	}
	count := 0
	for range r.Entries("a") {
		count++
	}
	if count != n+1 {
		t.Errorf("Entries walked %d entries of the list it did not record, want %d", count, n+1)
	}
}
