// Package envelope is the door for what a tab or a leader bridge answers
// (protocol.md §2.5, §4.2; THREAT_MODEL.md T8, T9): Decode reads each
// answer once, where it enters, into a Reply that every face takes instead
// of the bytes. Members keep the page's order; values stay raw pieces of
// the answer, encoded by each exit (security/gate), so an image of
// megabytes is never copied, each with what the door saw in it
// (gate.Seen), so that the gate writes a list or object with nothing in
// it to change without reading it again; and where each top-level list's
// entries and their members lie, so that a face walks them unread
// (Reply.Entries).
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
	return o.set(Member{Key: key, Value: b, Own: true})
}

// AppendJSON appends o as one JSON object: names quoted by the one string
// encoder (gate.AppendString), values as they are, never escaped again.
func (o Object) AppendJSON(dst []byte) []byte {
	return append(o.appendMembers(append(dst, '{')), '}')
}

func (o Object) appendMembers(dst []byte) []byte {
	for i, m := range o {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = gate.AppendString(dst, m.Key)
		dst = append(append(dst, ':'), m.Value...)
	}
	return dst
}

// AppendTo writes o to l as one entry.
func (o Object) AppendTo(l *gate.List) {
	l.Open()
	o.members(l)
	l.Close()
}

func (o Object) members(l *gate.List) {
	for _, m := range o {
		l.Member(gate.AppendString(nil, m.Key), m.Gated())
	}
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
func (m Member) Gated() gate.Value { return gate.Value{Raw: m.Value, Seen: m.Seen} }

func (o Object) OK() bool { return gate.IsTrue(o.Get("ok")) }

func (o Object) Without(names ...string) Object {
	return slices.DeleteFunc(slices.Clone(o), func(m Member) bool { return slices.Contains(names, m.Key) })
}

// Set returns o with v as the value of its first member called name and
// no other of that name, so that no duplicate can shadow it (JSON readers
// keep the last); appended when there is none; a v of no bytes drops it,
// as no member may be written without a value.
func (o Object) Set(name string, v gate.Value) Object {
	if len(v.Raw) == 0 {
		return o.Without(name)
	}
	return o.set(Member{Key: name, Value: v.Raw, Seen: v.Seen})
}

func (o Object) set(m Member) Object {
	at := slices.IndexFunc(o, func(n Member) bool { return n.Key == m.Key })
	out := o.Without(m.Key)
	if at < 0 {
		return append(out, m)
	}
	return slices.Insert(out, at, m)
}
