package gate

import (
	"bytes"
	"math"

	"github.com/go-json-experiment/json/jsontext"
)

// Seen is what the door (internal/envelope) saw in a container value as
// it read it, token by token, so that AppendObject writes a value with
// nothing in it to change as it came, without reading it again: the
// common reply is read once. The zero Seen has seen nothing, and the value
// is read (walk) when written. Only the door fills one, from its own
// reading of the value it is given with, and a List from the pieces it
// writes.
type Seen struct {
	read    bool
	changes bool // walk would write a token otherwise, leave one out, or space between
	dataURL bool // a name or string starts "data:", which EveryDataURL notes
}

// Entry sees the nth token of a container of kind ('[' or '{', whose
// names and values count apart): one past MaxItems entries is left out.
func (s *Seen) Entry(kind jsontext.Kind, n int64) {
	s.changes = s.changes || kind == '[' && n >= MaxItems || kind == '{' && n >= 2*MaxItems
}

// Scalar sees a name, string, number or literal, raw, by walk's own rules
// (str, number). A string over MaxDataURL, which walk cuts or not by where
// it falls, changes; so does one with an escape, which only a read (and a
// copy) can judge, and which a page's JSON.stringify writes rarely.
func (s *Seen) Scalar(raw []byte) {
	switch raw[0] {
	case 't', 'f', 'n':
	case '"':
		inner := raw[1 : len(raw)-1]
		if len(inner) > MaxDataURL || bytes.IndexByte(inner, '\\') >= 0 {
			s.changes = true
			return
		}
		_, changes, _ := Guard{}.str(raw, math.MaxInt)
		s.changes = s.changes || changes
		s.dataURL = s.dataURL || len(inner) >= 5 && bytes.EqualFold(inner[:5], []byte("data:"))
	default:
		_, cut := Guard{}.number(raw, nil, nil)
		s.changes = s.changes || cut
	}
}

// Gap sees what lies between two tokens: a comma or colon, else space,
// which walk leaves out.
func (s *Seen) Gap(b []byte) {
	s.changes = s.changes || len(b) > 1 || len(b) == 1 && b[0] != ',' && b[0] != ':'
}

// Add sees what t saw, as part of the same value.
func (s *Seen) Add(t Seen) {
	s.changes = s.changes || t.changes
	s.dataURL = s.dataURL || t.dataURL
}

// Changes reports whether the value must be walked: the door need look
// no further.
func (s Seen) Changes() bool { return s.changes }

// Closed sees the value's own last bracket: it is seen whole.
func (s *Seen) Closed() { s.read = true }

// verbatim reports whether walk would write a value the door saw as s, n
// bytes long with the object's bytes before it, as it came: nothing to
// clean, mark or leave out, no string, name or number to cut, no
// container over MaxItems, and no entry begun past the budget. (A test
// that shrinks the limits writes no Seen value.)
func (g Guard) verbatim(s Seen, n int) bool {
	return s.read && !s.changes && (g.Whole || !(g.EveryDataURL && s.dataURL) && n <= limits.total)
}
