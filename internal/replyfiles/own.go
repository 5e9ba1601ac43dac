package replyfiles

import (
	"slices"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// Own is a top-level member the shell writes into a page's reply to say
// what it saved (docs/protocol.md §4.4, §7.15): --out's savedTo,
// savedBytes and savedType, --save's textSavedTo and textError. With is
// the only way to write one, and Strip drops every name an Own has, so a
// member of these names the shell prints is its own by construction: a
// new one is a new Own, which Strip drops from the page's reply with the
// rest.
type Own int

const (
	SavedTo Own = iota
	SavedBytes
	SavedType
	TextSavedTo
	TextError
	numOwn
)

var ownNames = [numOwn]string{
	SavedTo:     "savedTo",
	SavedBytes:  "savedBytes",
	SavedType:   "savedType",
	TextSavedTo: "textSavedTo",
	TextError:   "textError",
}

func (m Own) String() string { return ownNames[m] }

// Strip is o without the page's members of an Own's name, whatever their
// value: each would claim the shell wrote what it did not. What With
// wrote (envelope.Member.Own) stays, so --save keeps what --out wrote
// before it. A face strips before it writes its own, and strips when it
// writes nothing (a reply without an image under --out).
func Strip(o envelope.Object) envelope.Object {
	return slices.DeleteFunc(slices.Clone(o), func(m envelope.Member) bool {
		return !m.Own && slices.Contains(ownNames[:], m.Key)
	})
}

// With is o with v, a plain value of the shell's own, as m.
func With(o envelope.Object, m Own, v any) envelope.Object { return o.With(ownNames[m], v) }
