package envelope

import (
	"bytes"
	"encoding/json"
	"iter"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// maxRecs bounds what the door records of a reply's lists, so that a
// list of millions of entries costs no record past it: a list whose
// records do not all fit is recorded not at all, and read once more when
// a face walks it (Entries).
const maxRecs = 1024

// rec is one record of a top-level list, offsets into the reply (at most
// limits.ControlAnswer, about 64 MiB; Decode records none past 2 GiB): its head
// (a where it starts, b how many records follow), an entry (a:b,
// and c its members, -1 when it is no object) or an entry's member (a:b
// its name, c:d its value, s what the door saw of both).
type rec struct {
	a, b, c, d int32
	s          gate.Seen
}

// lists records, as the door reads each token, every top-level list's
// entries and the members of those that are objects.
type lists struct {
	recs        []rec
	head, entry int      // the open list's head and entry; head -1 when none
	name        [2]int32 // the open entry's member's name
	val         int32    // where its value starts
	seen        gate.Seen
}

func (l *lists) add(r rec) {
	if len(l.recs) == maxRecs {
		l.recs, l.head = l.recs[:l.head], -1 // the list is read again
	} else {
		l.recs = append(l.recs, r)
	}
}

// inObject reports whether the token at depth 3 (4 to close a value) is
// in an object entry of a list being recorded.
func (l *lists) inObject() bool { return l.head >= 0 && l.recs[l.entry].c >= 0 }

// watch returns what the door sees of the recorded entry's member that a
// token at depth is part of (at 3 its name, which begins it, or its
// value; deeper, in its value), so that a list the bridge builds of it is
// written unread (gate.List); nil when there is none, or once it has seen
// a change.
func (l *lists) watch(depth int, name bool) *gate.Seen {
	if depth < 3 || !l.inObject() {
		return nil
	}
	if depth == 3 && name {
		l.seen = gate.Seen{}
	}
	if l.seen.Changes() {
		return nil
	}
	return &l.seen
}

// open sees a container of kind begin at at, depth its parent's.
func (l *lists) open(kind jsontext.Kind, depth int, at int32) {
	switch {
	case depth == 1 && kind == '[':
		l.head = len(l.recs)
		l.add(rec{a: at})
	case depth == 2 && l.head >= 0:
		l.entry = len(l.recs)
		e := rec{a: at, c: -1}
		if kind == '{' {
			e.c = 0
		}
		l.add(e)
	case depth == 3 && l.inObject():
		l.val = at
	}
}

// scalar sees a name or value at..end, the nth token at its depth, in a
// list.
func (l *lists) scalar(depth int, n int64, at, end int32) {
	switch {
	case depth == 2:
		l.entry = len(l.recs)
		l.add(rec{a: at, b: end, c: -1})
	case depth == 3 && l.inObject() && n%2 == 0:
		l.name = [2]int32{at, end}
	case depth == 3 && l.inObject():
		l.member(at, end)
	}
}

// member records the open entry's member whose value ends at end.
func (l *lists) member(val, end int32) {
	l.seen.Closed()
	l.add(rec{a: l.name[0], b: l.name[1], c: val, d: end, s: l.seen})
	if l.head >= 0 {
		l.recs[l.entry].c++
	}
}

// close sees a container end at end, depth its own, in a list.
func (l *lists) close(depth int, end int32) {
	switch {
	case depth == 2:
		l.recs[l.head].b = int32(len(l.recs) - l.head - 1)
		l.head = -1
	case depth == 3:
		l.recs[l.entry].b = end
	case depth == 4 && l.inObject():
		l.member(l.val, end)
	}
}

// Entry is an entry of a reply's top-level list: a piece of the reply,
// and an object's members as pieces, their names decoded only to be
// compared.
type Entry struct {
	b       []byte
	rec     rec
	members []rec
}

// Entries yields the entries of the top-level list name (none when it is
// no list), from what the door recorded, or, of a list too long for that,
// read once more in one pass as they are yielded. An Entry is valid until
// the next.
func (r Reply) Entries(name string) iter.Seq2[int, Entry] {
	return func(yield func(int, Entry) bool) {
		v := r.Get(name)
		if !bytes.HasPrefix(v, []byte("[")) {
			return
		}
		for h := 0; h < len(r.recs); h += int(r.recs[h].b) + 1 {
			if &r.raw[r.recs[h].a] == &v[0] { // the door's list, not one With set
				recs := r.recs[h+1 : h+1+int(r.recs[h].b)]
				for n, j := 0, 0; j < len(recs); n, j = n+1, j+1+int(max(recs[j].c, 0)) {
					if !yield(n, Entry{r.raw, recs[j], recs[j+1 : j+1+int(max(recs[j].c, 0))]}) {
						return
					}
				}
				return
			}
		}
		stream(v, yield)
	}
}

// stream yields the entries of v, a list the door passed, in one pass.
func stream(v []byte, yield func(int, Entry) bool) {
	lexed()
	rd := newReader(v, jsontext.AllowDuplicateNames(true)) // the door checked names
	defer rd.free()
	d := &rd.d
	d.ReadToken()
	var m []rec
	for n := 0; ; n++ {
		e := rec{c: -1}
		m = m[:0]
		switch d.PeekKind() {
		case ']', 0:
			return
		case '{':
			d.ReadToken()
			for e.a = int32(d.InputOffset()) - 1; d.PeekKind() == '"'; {
				k, _ := d.ReadValue()
				name := int32(d.InputOffset())
				val, err := d.ReadValue()
				if err != nil {
					return
				}
				end := int32(d.InputOffset())
				m = append(m, rec{a: name - int32(len(k)), b: name, c: end - int32(len(val)), d: end})
			}
			if _, err := d.ReadToken(); err != nil {
				return
			}
			e.b, e.c = int32(d.InputOffset()), int32(len(m))
		default:
			val, err := d.ReadValue()
			if err != nil {
				return
			}
			e.b = int32(d.InputOffset())
			e.a = e.b - int32(len(val))
		}
		if !yield(n, Entry{v, e, m}) {
			return
		}
	}
}

func (e Entry) IsObject() bool { return e.rec.c >= 0 }

// Get returns the value of the member name, or nil.
func (e Entry) Get(name string) json.RawMessage {
	for _, m := range e.members {
		if e.named(m, name) {
			return e.b[m.c:m.d:m.d]
		}
	}
	return nil
}

func (e Entry) String(name string) (string, bool) { return gate.String(e.Get(name)) }

// named reports whether m's name, as JSON reads it ("\u0061" is "a"), is
// name.
func (e Entry) named(m rec, name string) bool {
	k := e.b[m.a+1 : m.b-1]
	if bytes.IndexByte(k, '\\') < 0 {
		return string(k) == name
	}
	// An escape decodes to at least one byte of its at most six: a name of
	// another length is not decoded (a page's names can be long).
	if len(name) > len(k) || 6*len(name) < len(k) {
		return false
	}
	u, _ := jsontext.AppendUnquote(nil, e.b[m.a:m.b])
	return string(u) == name
}

// AppendTo writes e to l as one object: own's members first, so that
// the gate, which leaves out an object's members past gate.MaxItems,
// leaves out the page's before the bridge's, then e's but those named
// drop, as they came, with what the door saw of each (an entry that is
// no object, own's alone).
func (e Entry) AppendTo(l *gate.List, drop []string, own Object) {
	l.Open()
	own.members(l)
	for _, m := range e.members {
		if e.kept(m, drop) {
			l.Member(e.b[m.a:m.b], gate.Value{Raw: e.b[m.c:m.d], Seen: m.s})
		}
	}
	l.Close()
}

// Size is what AppendTo writes of e's members but those named drop, and
// a byte for the list's comma or bracket after it.
func (e Entry) Size(drop []string) int {
	n := 2
	for _, m := range e.members {
		if e.kept(m, drop) {
			n += int(m.b-m.a+m.d-m.c) + 2
		}
	}
	return n
}

func (e Entry) kept(m rec, drop []string) bool {
	return !slices.ContainsFunc(drop, func(s string) bool { return e.named(m, s) })
}
