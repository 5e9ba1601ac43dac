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

// Name reads the member name next in d, raw, checked by the door's rule:
// a reader the door hands its decoder to reads each name so.
func Name(d *jsontext.Decoder) ([]byte, error) {
	k, err := d.ReadValue()
	if err == nil {
		_, n := d.StackIndex(d.StackDepth())
		_, err = CheckName(k, n/2+1)
	}
	return k, err
}

// Skip reads the value next in d, checking each name in it by the door's
// rule, as d.SkipValue would not.
func Skip(d *jsontext.Decoder) error {
	for depth := d.StackDepth(); ; {
		var err error
		if kind, n := d.StackIndex(d.StackDepth()); kind == '{' && n%2 == 0 && d.PeekKind() == '"' {
			_, err = Name(d)
		} else {
			_, err = d.ReadToken()
		}
		if err != nil || d.StackDepth() <= depth {
			return err
		}
	}
}
