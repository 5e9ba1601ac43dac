// Package envelope is the door for what a tab or a leader bridge answers
// (protocol.md §2.5, §4.2; THREAT_MODEL.md T8, T9): Decode reads each
// answer once, where it enters, into a Reply that every face takes instead
// of the bytes. Members keep the page's order; values stay raw pieces of
// the answer, encoded by each exit (security/gate), so an image of
// megabytes is never copied, each with what the door saw in it
// (gate.Seen), so that the gate writes a list or object with nothing in
// it to change without reading it again; and a top-level list's first
// entries (List), so that a face walks a list from the value, not bytes.
package envelope

import (
	"encoding/json"
	"iter"
	"slices"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// Member is one name/value pair of an object.
type Member struct {
	Key   string
	Value json.RawMessage
	Own   bool      // written by the bridge (With): never cut by the page's (All)
	Seen  gate.Seen // what the door saw in Value, so the gate need not read it again
	// List is a list's entries as the door kept them, or, with no Value,
	// a list the bridge built (SetList).
	List *List
}

// List is a top-level list as the door read it: its first entries (at
// most MaxListed) and how many more it holds, counted only; or a list the
// bridge built (SetList). A face walks its Entries, never the bytes.
type List struct {
	More   int
	ix     *index // the door's, whose entries[lo:hi] are the list's
	lo, hi int
	built  []Object
}

// Entry is an entry of a List, as a face walks it.
type Entry struct {
	Raw      json.RawMessage
	Members  Object // an object's, as the door read them
	IsObject bool
}

// Entries returns the list's entries, each a piece of the reply and an
// object's with its members: made anew at each call, from what the door
// kept, for a face to walk (none of a list the bridge built).
func (l List) Entries() []Entry {
	if l.ix == nil {
		return nil
	}
	spans := l.ix.entries[l.lo:l.hi]
	out := make([]Entry, len(spans))
	var members Object
	if len(spans) > 0 { // their members lie together
		members = make(Object, 0, spans[len(spans)-1].hi-spans[0].lo)
	}
	for i, e := range spans {
		out[i] = Entry{Raw: l.ix.piece(e.raw), IsObject: e.obj}
		for _, m := range l.ix.members[e.lo:e.hi] {
			name, _ := checkName(l.ix.piece(m.name), 0, keyOf) // checked as the door read it
			members = append(members, Member{Key: name, Value: l.ix.piece(m.value), Seen: m.seen})
		}
		if e.obj {
			out[i].Members = members[len(members)-int(e.hi-e.lo) : len(members) : len(members)]
		}
	}
	return out
}

func (ix *index) piece(s span) json.RawMessage { return ix.raw[s.at:s.end:s.end] }

// List returns the entries of the member name, or false when it is no
// list.
func (o Object) List(name string) (List, bool) {
	if i := slices.IndexFunc(o, func(m Member) bool { return m.Key == name }); i >= 0 && o[i].List != nil {
		return *o[i].List, true
	}
	return List{}, false
}

// SetList is Set with a list of objects the bridge built of the door's
// pieces: the gate writes it from its members (gate.Value.List), unread.
func (o Object) SetList(name string, entries []Object) Object {
	o = o.Set(name, json.RawMessage("[]")) // in place, or last
	o[slices.IndexFunc(o, func(m Member) bool { return m.Key == name })] = Member{Key: name, List: &List{built: entries}}
	return o
}

// Object is a JSON object with its member order kept.
type Object []Member

// Get returns the value of key, or nil.
func (o Object) Get(key string) json.RawMessage {
	if i := slices.IndexFunc(o, func(m Member) bool { return m.Key == key }); i >= 0 {
		return o[i].Value
	}
	return nil
}

// String returns the value of key if it is a JSON string.
func (o Object) String(key string) (string, bool) {
	return gate.String(o.Get(key))
}

// With is Set with v, a plain value of the bridge's own (a path, a count),
// encoded by the exits' one encoder (gate.Marshal), the member marked Own.
func (o Object) With(key string, v any) Object {
	b, err := gate.Marshal(v)
	if err != nil {
		panic(err) // only called with plain values
	}
	return o.set(key, b, true)
}

// AppendJSON appends o as one JSON object: names quoted by the one string
// encoder (gate.AppendString), values as they are, never escaped again.
func (o Object) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, m := range o {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(gate.AppendString(dst, m.Key), ':')
		if m.Value != nil || m.List == nil {
			dst = append(dst, m.Value...)
			continue
		}
		dst = append(dst, '[')
		for j, e := range m.List.built {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = e.AppendJSON(dst)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// All yields the members marked Own when own is set, else the others, in
// order: the two lists gate.Guard.AppendObject writes.
func (o Object) All(own bool) iter.Seq2[string, gate.Value] {
	return func(yield func(string, gate.Value) bool) {
		for _, m := range o {
			if m.Own == own && !yield(m.Key, m.Gated()) {
				return
			}
		}
	}
}

// Gated is m's value as the gate takes it.
func (m Member) Gated() gate.Value {
	v := gate.Value{Raw: m.Value, Seen: m.Seen}
	if m.Value == nil && m.List != nil {
		v.List = m.List.objects
	}
	return v
}

// Built is entries, objects the bridge built of the door's pieces, as
// the gate writes a list: from their members, unread.
func Built(entries []Object) gate.Value {
	return gate.Value{List: (&List{built: entries}).objects}
}

// objects yields the members of each object of a list the bridge built.
func (l *List) objects(yield func(iter.Seq2[string, gate.Value]) bool) {
	for _, o := range l.built {
		if !yield(o.all) {
			return
		}
	}
}

// all yields every member, as an entry of a built list has it.
func (o Object) all(yield func(string, gate.Value) bool) {
	for _, m := range o {
		if !yield(m.Key, m.Gated()) {
			return
		}
	}
}

func (o Object) OK() bool { return gate.IsTrue(o.Get("ok")) }

func (o Object) Without(names ...string) Object {
	return slices.DeleteFunc(slices.Clone(o), func(m Member) bool { return slices.Contains(names, m.Key) })
}

// Set returns o with v as the value of its first member called name and
// no other of that name, so that no duplicate can shadow it (JSON readers
// keep the last); appended when there is none; a nil v drops it.
func (o Object) Set(name string, v json.RawMessage) Object { return o.set(name, v, false) }

func (o Object) set(name string, v json.RawMessage, own bool) Object {
	at := slices.IndexFunc(o, func(m Member) bool { return m.Key == name })
	out := o.Without(name)
	switch {
	case v == nil:
		return out
	case at < 0:
		return append(out, Member{Key: name, Value: v, Own: own})
	}
	return slices.Insert(out, at, Member{Key: name, Value: v, Own: own})
}
