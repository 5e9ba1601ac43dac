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

// MaxOpenNames bounds, in bytes, what the standard's reader holds of
// names at once (nameCost each). For its check of a name given twice it
// keeps every name of the last object it opened at each level of nesting
// (an object's names stay until another object opens at its level, not
// until it closes); without a bound a reply of nested objects of
// thousands of members cost it nine times the reply. A reply holds a few
// dozen names so; a map of MaxMembers keys of 70 bytes fits.
const MaxOpenNames = 2 << 20

// nameCost is about what jsontext keeps of the raw name v: its bytes
// twice (its buffer of names, and a map's key past 64 names), and
// nameRoom for its offset, the map's slot and what each grows by.
func nameCost(v []byte) int { return 2*len(v) + nameRoom }

const nameRoom = 64

// levelKept is what jsontext keeps of a level's names when another
// object opens there (objectNamespace.reset): its buffers, unless over
// 1 KiB of names or 64 offsets.
const levelKept = 1<<10 + 64*8

// Reader is the door's decoder as the door and a reader it hands a value
// to (security/toollist) read with it: each name checked by the door's
// rule (CheckName) and counted against MaxOpenNames, as jsontext holds
// it: by the level of objects it is in, until another object opens at
// that level (ReadToken sees it open).
type Reader struct {
	*jsontext.Decoder
	held  []int // by level of objects, what the last object there holds
	kept  []int // and what is kept of those before it (levelKept)
	level int   // the objects open
	total int
}

// NewReader is a Reader of d, which has read nothing yet.
func NewReader(d *jsontext.Decoder) *Reader { return &Reader{Decoder: d} }

// Reset readies r for a new value of d, keeping what it grew.
func (r *Reader) Reset(d *jsontext.Decoder) {
	r.Decoder, r.held, r.kept, r.level, r.total = d, r.held[:0], r.kept[:0], 0, 0
}

// Held is what r counts of the names d holds.
func (r *Reader) Held() int { return r.total }

// ReadToken is jsontext's, seeing each object open and close: the names
// of the last object at the level one opens at are no longer held, but
// for what jsontext keeps of their buffers (levelKept).
func (r *Reader) ReadToken() (jsontext.Token, error) {
	tok, err := r.Decoder.ReadToken()
	switch {
	case err != nil:
	case tok.Kind() == '{':
		if r.level++; r.level < len(r.held) {
			l := r.level
			r.total -= r.held[l] + r.kept[l]
			r.kept[l] = min(max(r.kept[l], r.held[l]), levelKept) // reused, not grown
			r.held[l] = 0
			r.total += r.kept[l]
		} else {
			r.held = append(r.held, make([]int, r.level+1-len(r.held))...)
			r.kept = append(r.kept, make([]int, r.level+1-len(r.kept))...)
		}
	case tok.Kind() == '}':
		r.level--
	}
	return tok, err
}

// Check checks v, the raw name just read, by the door's rule, and counts
// it as held (Name, Skip; the door checks each name it reads so). It
// returns v decoded as CheckName does.
func (r *Reader) Check(v []byte) (string, error) {
	if r.level < 1 || r.level >= len(r.held) { // an object not opened by r: jsontext's own
		return "", ErrName
	}
	// Counted first: jsontext has kept it, refused or not, and a pooled
	// reader lets go of what it counts (Held).
	cost := nameCost(v)
	r.held[r.level] += cost
	if r.total += cost; r.total > MaxOpenNames {
		return "", ErrName
	}
	_, n := r.StackIndex(r.StackDepth())
	return CheckName(v, n/2+1)
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
