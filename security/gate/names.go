package gate

import (
	"bytes"
	"errors"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// The door's rule for member names (internal/envelope), at every depth of
// a reply, a tool list read in the door's pass (security/toollist)
// included: refused rather than cut, so no two readers of a reply can take
// one name for two, nor an invisible one for a visible one.

// MaxMembers bounds each object's members: a reply or a tool list has a
// few dozen, and the gate passes at most MaxItems to a model.
const MaxMembers = 10_000

// MaxMemberName bounds each member name, in bytes as written: below
// MaxDataURL, so the gate never cuts two names to one note.
const MaxMemberName = 1024

// ErrName is CheckName's refusal.
var ErrName = errors.New("a member name refused")

// CheckName checks v, a raw member name and the nth of its object, by the
// door's rule. It returns the name decoded when v has an escape or a
// character past printable ASCII (which it must decode to judge), else "":
// v's bytes between its quotes are the name.
func CheckName(v []byte, n int64) (string, error) {
	if n > MaxMembers || len(v)-2 > MaxMemberName {
		return "", ErrName
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && unprintable.PlainText(inner) {
		return "", nil
	}
	u, _ := jsontext.AppendUnquote(nil, v) // jsontext has read it whole
	if s := string(u); unprintable.Strip(s) == s {
		return s, nil
	}
	return "", ErrName
}

// MaxOpenNames bounds, in bytes, the names of the objects a reader has
// open at once, each counted as its raw length and nameRoom: the
// standard's reader keeps every name of every open object (its check for
// a name given twice), and without a bound a reply of nested objects of
// thousands of members cost it nine times the reply. A reply has a few
// dozen names open; a map of MaxMembers keys of 70 bytes fits.
const MaxOpenNames = 1 << 20

// nameRoom is about what jsontext keeps of a name besides its bytes (its
// offset, a map entry and the string's header).
const nameRoom = 32

// Reader is the door's decoder as the door and a reader it hands a value
// to (security/toollist) read names with it: each checked by the door's
// rule (CheckName) and counted against MaxOpenNames.
type Reader struct {
	*jsontext.Decoder
	open  []int // by depth, the names counted of the object last open there
	total int
}

// NewReader is a Reader of d, which has read nothing yet.
func NewReader(d *jsontext.Decoder) *Reader { return &Reader{Decoder: d} }

// Reset readies r for a new value of d, keeping what it grew.
func (r *Reader) Reset(d *jsontext.Decoder) {
	r.Decoder, r.open, r.total = d, r.open[:0], 0
}

// Check checks v, the raw name just read, by the door's rule, and counts
// it as held open (Name, Skip; the door checks each name it reads so).
// It returns v decoded as CheckName does.
func (r *Reader) Check(v []byte) (string, error) {
	depth := r.StackDepth()
	_, n := r.StackIndex(depth)
	s, err := CheckName(v, n/2+1)
	if err != nil {
		return "", err
	}
	for len(r.open) > depth+1 { // a deeper object has closed
		r.total -= r.open[len(r.open)-1]
		r.open = r.open[:len(r.open)-1]
	}
	for len(r.open) <= depth {
		r.open = append(r.open, 0)
	}
	if n == 1 { // an object's first name: the one counted here has closed
		r.total -= r.open[depth]
		r.open[depth] = 0
	}
	cost := len(v) + nameRoom
	r.open[depth] += cost
	if r.total += cost; r.total > MaxOpenNames && !r.recount() {
		return "", ErrName
	}
	return s, nil
}

// recount drops what is counted of a depth where a list, not an object,
// is open now (the object counted there has closed, and no name since
// said so), and reports whether that brought the count within
// MaxOpenNames. It is called only past the bound: a name a depth would
// cost a read of the whole stack.
func (r *Reader) recount() bool {
	for depth := 1; depth < len(r.open); depth++ {
		if kind, _ := r.StackIndex(depth); kind != '{' {
			r.total -= r.open[depth]
			r.open[depth] = 0
		}
	}
	return r.total <= MaxOpenNames
}

// Name reads the member name next in r, raw, checked by the door's rule:
// a reader the door hands its decoder to reads each name so.
func Name(r *Reader) ([]byte, error) {
	k, err := r.ReadValue()
	if err == nil {
		_, err = r.Check(k)
	}
	return k, err
}

// Skip reads the value next in r, checking each name in it by the door's
// rule, as d.SkipValue would not.
func Skip(r *Reader) error {
	for depth := r.StackDepth(); ; {
		var err error
		if kind, n := r.StackIndex(r.StackDepth()); kind == '{' && n%2 == 0 && r.PeekKind() == '"' {
			_, err = Name(r)
		} else {
			_, err = r.ReadToken()
		}
		if err != nil || r.StackDepth() <= depth {
			return err
		}
	}
}
