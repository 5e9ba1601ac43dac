// Package envelope is the door for what a tab or a leader bridge answers
// (protocol.md §2.5, §4.2; THREAT_MODEL.md T8, T9). Decode reads each
// answer once, where it enters the bridge (the tab's frame reader, the
// follower's call to its leader, the shell's client), into a Reply: the
// one validation, by the standard's reader (jsontext), the top-level
// members in order, and the image checked whole. The hub, the MCP face, the control plane, the
// follower, replyfiles and the shell take a Reply, never the bytes.
//
// Members keep their order, so what the model and the shell see reads as
// the page wrote it. Values stay raw JSON, pieces of the answer's bytes:
// each exit encodes what it writes of them itself (security/gate for the
// model and the terminal), and an image of megabytes is never copied.
package envelope

import (
	"encoding/json"
	"iter"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// Member is one name/value pair of an object.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object with its member order kept.
type Object []Member

// ObjectOf returns the members of v, a value inside a Reply (an entry of
// its files list), in order, or false when v is not an object. The values
// are pieces of v.
func ObjectOf(v json.RawMessage) (Object, bool) {
	var o Object
	ok := Each(v, func(name string, val []byte) bool {
		o = append(o, Member{name, val})
		return true
	})
	return o, ok
}

// Get returns the value of key, or nil.
func (o Object) Get(key string) json.RawMessage {
	if i := slices.IndexFunc(o, func(m Member) bool { return m.Key == key }); i >= 0 {
		return o[i].Value
	}
	return nil
}

// String returns the value of key if it is a JSON string.
func (o Object) String(key string) (string, bool) {
	return String(o.Get(key))
}

// With returns o with key set to v, a plain value of the bridge's own
// (a path, a count), as Set does: encoded by the standard's JSON v2, which
// escapes no <, > or &.
func (o Object) With(key string, v any) Object {
	b, err := jsonv2.Marshal(v)
	if err != nil {
		panic(err) // only called with plain values
	}
	return o.Set(key, b)
}

// AppendJSON appends o to dst as one JSON object, members in order, in one
// pass: each name quoted by the one string encoder (gate.AppendString),
// each value as it is, a piece of what the door read or the bridge's own
// JSON. Nothing is decoded or escaped again, so a value comes out the size
// it came in (a name of 200 "<" stays 202 bytes).
func (o Object) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, m := range o {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = gate.AppendString(dst, m.Key)
		dst = append(append(dst, ':'), m.Value...)
	}
	return append(dst, '}')
}

// All yields each member's name and raw value, in order: what
// gate.Guard.AppendObject writes.
func (o Object) All() iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		for _, m := range o {
			if !yield(m.Key, m.Value) {
				return
			}
		}
	}
}

// OK reports whether the envelope says ok:true.
func (o Object) OK() bool { return IsTrue(o.Get("ok")) }

// Without returns o without any member called one of names.
func (o Object) Without(names ...string) Object {
	return slices.DeleteFunc(slices.Clone(o), func(m Member) bool { return slices.Contains(names, m.Key) })
}

// Set returns o with v (raw JSON) as the value of its first member called
// name, and no other member of that name, so that a duplicate from a page
// cannot shadow it (JSON readers keep the last). Without such a member, it
// is appended. A nil v drops the member.
func (o Object) Set(name string, v json.RawMessage) Object {
	at := slices.IndexFunc(o, func(m Member) bool { return m.Key == name })
	out := o.Without(name)
	switch {
	case v == nil:
		return out
	case at < 0:
		return append(out, Member{name, v})
	}
	return slices.Insert(out, at, Member{name, v})
}
