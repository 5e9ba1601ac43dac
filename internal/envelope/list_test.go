package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// listsAsRead holds what the door keeps of each top-level list to the
// list read again (encoding/json, gate.Each): its first entries, each the
// same piece, an object's members the same pieces in order, and the rest
// counted. A list of objects the bridge builds of those entries (SetList)
// is written as the gate writes the same list encoded and walked, for
// every Guard: nothing is lost by not reading it again.
func listsAsRead(t *testing.T, r Reply) {
	t.Helper()
	built := r.Members().Without()
	walked := r.Members().Without()
	for i, m := range r.Members() {
		var items []json.RawMessage // encoding/json, an independent reader
		isList := m.Value[0] == '[' && json.Unmarshal(m.Value, &items) == nil
		l, ok := r.List(m.Key)
		entries := l.Entries()
		if ok != isList || len(entries)+l.More != len(items) || len(entries) > MaxListed {
			t.Fatalf("%q: the door kept %d entries and counted %d (a list: %v); read again, %d (%v)", m.Key, len(entries), l.More, ok, len(items), isList)
		}
		var objs []Object
		for j, e := range entries {
			var read Object
			isObject := gate.Each(items[j], func(k string, v []byte) bool { read = append(read, Member{Key: k, Value: v}); return true })
			if !bytes.Equal(e.Raw, items[j]) || e.IsObject != isObject || len(e.Members) != len(read) {
				t.Fatalf("%s[%d]: the door kept %q (an object: %v, %d members); read again, %q (%v, %d)", m.Key, j, e.Raw, e.IsObject, len(e.Members), items[j], isObject, len(read))
			}
			for k, mm := range e.Members {
				if mm.Key != read[k].Key || !bytes.Equal(mm.Value, read[k].Value) {
					t.Fatalf("%s[%d]: member %q %q; read again, %q %q", m.Key, j, mm.Key, mm.Value, read[k].Key, read[k].Value)
				}
			}
			if isObject {
				objs = append(objs, e.Members.With("savedBytes", 1))
			}
		}
		if ok {
			built = built.SetList(m.Key, objs)
			walked[i] = Member{Key: m.Key, Value: built[i : i+1].AppendJSON(nil)[len(`{"`+m.Key+`":`):]}
			walked[i].Value = walked[i].Value[:len(walked[i].Value)-1]
		}
	}
	for _, g := range allGuards {
		got := g.AppendObject([]byte("say\n\n"), built.All(false), nil)
		want := g.AppendObject([]byte("say\n\n"), walked.All(false), nil)
		if string(got) != string(want) {
			t.Fatalf("%+v: the gate wrote %.300q from the door's entries, %.300q walking them", g, got, want)
		}
	}
}

func TestListsAsRead(t *testing.T) {
	for _, in := range append(seenAttacks,
		`{"files":[{"name":"a.png","dataUrl":"data:image/png;base64,AA","meta":{"w":1,"t":["x"]}},7,[1],{},{"[bridge]":1,"n":"[bridge x"}],"n":[]}`,
		`{"a":[{"x":{"y":[`+strings.Repeat(`"`+strings.Repeat("z", 3000)+`",`, 100)+`1]}}]}`,
		`{"a":[`+strings.Repeat(`{"k":"v","n":1},`, 3000)+`{}]}`,
		`{"a":[{"`+strings.Repeat("k", 1000)+`":1}]}`,
	) {
		if !strings.HasPrefix(in, "{") {
			in = `{"v":` + in + `}`
		}
		r, err := Decode([]byte(in))
		if err != nil {
			t.Fatalf("Decode(%.80q): %v", in, err)
		}
		listsAsRead(t, r)
	}
}

// TestSec_ListsBounded: what the door keeps of a reply's lists is bounded
// whatever their size: a 64 MB list of empty objects, and thousands of
// lists, cost no struct an entry past MaxListed and maxKept.
func TestSec_ListsBounded(t *testing.T) {
	one := []byte(`{"a":[` + strings.Repeat(`{},`, 64<<20/3) + `{}]}`)
	many := []byte(`{`)
	for i := range 5000 {
		many = fmt.Appendf(many, `"k%d":[%s{"a":1}],`, i, strings.Repeat(`{"a":1},`, 40))
	}
	many = append(many[:len(many)-1], '}')
	for name, b := range map[string][]byte{"one long list": one, "5,000 lists": many} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r, err := Decode(b)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kept := 0
		for _, m := range r.Members() {
			if m.List != nil {
				for _, e := range m.List.Entries() {
					kept += 1 + len(e.Members)
				}
			}
		}
		// An entry or member kept is at most 64 bytes, in slabs that grow
		// by doubling (so at most four times what is kept is allocated),
		// and a top-level member costs what it did without lists, and its
		// List.
		if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(4*64*maxKept+512*len(r.Members())); kept > maxKept || got > bound {
			t.Errorf("%s: kept %d entries and members, allocated %d bytes; want at most %d and %d", name, kept, got, maxKept, bound)
		}
	}
}
