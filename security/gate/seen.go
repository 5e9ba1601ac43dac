package gate

import (
	"bytes"
	"math"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// Seen is what the door (internal/envelope) saw in a container value as
// it read it, token by token, so that AppendObject writes a value with
// nothing in it to change as it came, without reading it again: the
// common reply is read once. The zero Seen has seen nothing, and the value
// is read (walk) when written.
type Seen struct {
	read    bool
	changes bool  // a token walk would write otherwise, or space between tokens
	dataURL bool  // a name or string starts "data:", which EveryDataURL notes
	entries int32 // entries of the largest container
}

// Quoted sees a name or a string, raw. One over MaxDataURL, which walk
// cuts, is not looked into.
func (s *Seen) Quoted(raw []byte) {
	inner := raw[1 : len(raw)-1]
	if len(inner) > MaxDataURL || bytes.IndexByte(inner, '\\') >= 0 || !unprintable.PlainText(inner) || bytes.HasPrefix(inner, []byte(reservedPrefix)) {
		s.changes = true // escapes kept or not, cleaned, marked or left out: walk decides
	} else if len(inner) >= 5 && bytes.EqualFold(inner[:5], []byte("data:")) {
		s.dataURL = true
	}
}

// Gap sees what lies between two tokens: a comma or colon, else space,
// which walk leaves out.
func (s *Seen) Gap(b []byte) {
	if len(b) > 1 || len(b) == 1 && b[0] != ',' && b[0] != ':' {
		s.changes = true
	}
}

// Closed sees the end of a container of n entries; the value is seen
// whole once its own bracket closes.
func (s *Seen) Closed(n int) {
	s.entries = max(s.entries, int32(min(n, math.MaxInt32)))
	s.read = true
}

// verbatim reports whether walk would write a value the door saw as s, n
// bytes long with the object's bytes before it, as it came: nothing to
// clean, mark or leave out, no string or name to cut, no container over
// MaxItems, and no entry begun past the budget. (A test that shrinks the
// limits writes no Seen value.)
func (g Guard) verbatim(s Seen, n int) bool {
	return s.read && !s.changes && (g.Whole ||
		!(g.EveryDataURL && s.dataURL) && int(s.entries) <= limits.items && n <= limits.total)
}
