package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode"

	"github.com/stitchslop/stitchslop-bridge/security/rawjson"
)

// Reply is an answer from a tab or a leader bridge as the door (Decode)
// read it: its top-level members in order, each value a raw piece of the
// answer's bytes that rawjson.Check has validated, and its image when it
// carries one fit to pass as an image block. Decode is the only way to
// make a Reply from bytes; Own makes the bridge's own. Whoever holds one
// holds bytes that passed the one validation, already split into members:
// nothing past the door lexes the answer again to find them.
type Reply struct {
	raw     []byte
	members Object
	image   Image
}

// The door's refusals. ErrNotObject is anything that is not one valid JSON
// object; ErrBadNames is a valid JSON object that rawjson.Check refuses all
// the same, for its member names: an object, at some depth, that names a
// member twice, or has over rawjson.MaxMembers of them, or a name over
// rawjson.MaxName bytes or one that does not print as it decodes.
var (
	ErrNotObject = errors.New("not one valid JSON object")
	ErrBadNames  = errors.New("a valid JSON object, but one whose member names are refused: one given twice, too long, or holding a character that does not print, or too many of them")
)

// Decode is the door: it reads b, a frame from a tab, an answer from a
// leader bridge or a reply the shell's client received, once, where it
// enters. b is kept, not copied; it must not change after.
func Decode(b []byte) (Reply, error) {
	r := Reply{raw: b, members: make(Object, 0, 8)} // a reply has a few
	var dataURL []byte
	if !rawjson.Check(b, func(k, v []byte) {
		name := keyOf(k)
		r.members = append(r.members, Member{name, v})
		if name == "dataUrl" {
			dataURL = v // one at most: Check refuses a name given twice
		}
	}) {
		if rawjson.Valid(b) && bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{")) {
			return Reply{}, ErrBadNames
		}
		return Reply{}, ErrNotObject
	}
	if dataURL != nil {
		r.image = imageOf(dataURL)
	}
	return r, nil
}

// keyOf is the raw member name k decoded; the envelope's own names, which
// every reply has, without a copy.
func keyOf(k []byte) string {
	switch string(k) {
	case `"id"`:
		return "id"
	case `"ok"`:
		return "ok"
	case `"say"`:
		return "say"
	case `"error"`:
		return "error"
	case `"message"`:
		return "message"
	case `"dataUrl"`:
		return "dataUrl"
	}
	name, _ := rawjson.String(k)
	return name
}

// Own is the envelope the bridge answers with itself, for a call the page
// did not answer: {"ok":false,"error":code,"message":msg}.
func Own(code, msg string) Reply {
	o := Object{}.With("ok", false).With("error", code).With("message", msg)
	b, _ := json.Marshal(o) // members of plain values: it cannot fail
	return Reply{raw: b, members: o}
}

// Bridge is Own's bytes, for the faces that write an envelope of the
// bridge's own straight out (the control plane, the shell).
func Bridge(code, msg string) []byte { return Own(code, msg).raw }

// Bytes returns the reply as it came, for what passes it on verbatim (a
// leader's /call, protocol.md §4.2; the shell's --raw); it must not be
// changed. The zero Reply, which no door made, has none.
func (r Reply) Bytes() []byte { return r.raw }

// Members returns the reply's top-level members, in order. The slice is
// the reply's own: change a clone (Object's methods return new ones).
func (r Reply) Members() Object { return r.members }

// Get returns the raw value of the member called name, or nil.
func (r Reply) Get(name string) json.RawMessage { return r.members.Get(name) }

// String returns the value of the member called name if it is a string.
func (r Reply) String(name string) (string, bool) { return r.members.String(name) }

// OK reports whether the reply says ok:true.
func (r Reply) OK() bool { return r.members.OK() }

// ID returns the reply's id when it is an integer: the call it answers.
func (r Reply) ID() (int64, bool) { return rawjson.Int(r.Get("id")) }

// Image returns the image the reply's dataUrl carries, if it is one that
// may pass as an image block (see Image).
func (r Reply) Image() (Image, bool) { return r.image, r.image.data != nil }

// Into decodes the reply into v, a struct of the fields a reader wants
// (a leader's /status, say), with encoding/json: the typed decode on top of
// the door's check. encoding/json takes a name's last member, and matches a
// field's name without regard to case; so that it reads what every other
// reader of the reply reads, a reply in which an object names two members
// alike but for case ("origin" and "Origin"), which the door holds apart,
// is refused here, as ErrBadNames.
func (r Reply) Into(v any) error {
	if foldedTwice(r.raw) {
		return ErrBadNames
	}
	return json.Unmarshal(r.raw, v)
}

// foldedTwice reports whether an object in v, a value the door checked,
// names two members that are one under Unicode case folding, as
// encoding/json compares a name with a field's. One pass over v's tokens,
// however deep it nests.
func foldedTwice(v []byte) bool {
	type level struct {
		obj, wantKey bool
		seen         map[string]bool
	}
	var stack []*level
	d := json.NewDecoder(bytes.NewReader(v))
	for {
		tok, err := d.Token()
		if err != nil {
			return false // the end: the door has checked the rest
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, &level{obj: tok == json.Delim('{'), wantKey: true, seen: map[string]bool{}})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].wantKey = true
			}
			continue
		}
		if top == nil || !top.obj {
			continue
		}
		if !top.wantKey { // a member's value
			top.wantKey = true
			continue
		}
		name := fold(tok.(string))
		if top.seen[name] {
			return true
		}
		top.seen[name], top.wantKey = true, false
	}
}

// fold maps each character of s to the least of those it is equal to under
// simple case folding: two strings are equal under strings.EqualFold when
// they fold alike.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}
