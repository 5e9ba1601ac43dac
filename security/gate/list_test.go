package gate

import (
	"bytes"
	"encoding/json"
	"iter"
	"testing"
)

// FuzzBuiltList: a list of objects the bridge builds of the door's pieces
// (Value.List) is written as the same list encoded is when read (walk), whatever
// its entries, for every Guard setting, with limits small enough that
// short inputs cross each: the item cap, the budget and the ceiling, long
// strings and names, reserved names; so nothing is lost by not reading it
// again.
func FuzzBuiltList(f *testing.F) {
	old := limits
	f.Cleanup(func() { limits = old })
	f.Add([]byte(`[{"name":"a.png","savedTo":"/tmp/a.stitchslop.png","savedBytes":5},{"error":"it is not an object"}]`))
	f.Add([]byte(`[{"[bridge]":1,"n":"[bridge x","\u200bk":{"a":[1,{"b":"data:,x"}]},"0123456789":1e999}]`))
	f.Add([]byte(`[{},{},{},{"a":1,"b":2,"c":3}]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var list [][]struct {
			k string
			v []byte
		}
		var items []json.RawMessage
		objects := bytes.HasPrefix(bytes.TrimSpace(doc), []byte("[")) && json.Unmarshal(doc, &items) == nil
		for _, e := range items {
			var o []struct {
				k string
				v []byte
			}
			objects = objects && Each(e, func(k string, v []byte) bool {
				o = append(o, struct {
					k string
					v []byte
				}{k, v})
				return true
			})
			list = append(list, o)
		}
		if !objects || !Valid(doc) {
			return
		}
		// The list as a face wrote it before: names decoded and encoded
		// again, values as the door read them.
		encoded := []byte{'['}
		for i, o := range list {
			if i > 0 {
				encoded = append(encoded, ',')
			}
			encoded = append(encoded, '{')
			for j, m := range o {
				if j > 0 {
					encoded = append(encoded, ',')
				}
				encoded = append(append(AppendString(encoded, m.k), ':'), m.v...)
			}
			encoded = append(encoded, '}')
		}
		encoded = append(encoded, ']')
		built := Value{List: func(yield func(iter.Seq2[string, Value]) bool) {
			for _, o := range list {
				if !yield(func(yield func(string, Value) bool) {
					for _, m := range o {
						if !yield(m.k, Value{Raw: m.v}) {
							return
						}
					}
				}) {
					return
				}
			}
		}}
		member := func(v Value) iter.Seq2[string, Value] {
			return func(yield func(string, Value) bool) { yield("files", v) }
		}
		for _, l := range []struct{ dataURL, str, items, total int }{
			{old.dataURL, old.str, old.items, old.total},
			{fuzzDataURL, fuzzString, old.items, old.total},
			{fuzzDataURL, fuzzString, fuzzItems, fuzzTotal},
		} {
			limits = l
			for _, g := range []Guard{{}, {Remedy: func(Left) string { return "R" }}, {Whole: true}, {EveryDataURL: true}} {
				got := g.AppendObject([]byte("say\n\n"), member(built), nil)
				want := g.AppendObject([]byte("say\n\n"), member(Value{Raw: encoded}), nil)
				if string(got) != string(want) {
					t.Fatalf("%+v, limits %+v: the list %q built is written %q; read, %q", g, l, doc, got, want)
				}
			}
			limits = old
		}
	})
}
