package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// Reply is an answer from a tab or a leader bridge as the door (Decode)
// read it: its top-level members in order, each value a raw piece of the
// answer's bytes that the standard's reader (jsontext) has validated, and
// its image when it carries one fit to pass as an image block. Decode is
// the only way to make a Reply from bytes; Own makes the bridge's own.
// Whoever holds one holds bytes that passed the one validation, already
// split into members: nothing past the door lexes the answer again to find
// them.
type Reply struct {
	raw     []byte
	members Object
	image   Image
}

// The door's refusals. ErrNotObject is anything that is not one valid JSON
// object (invalid UTF-8 and an escaped lone surrogate included: no Unicode
// text); ErrBadNames is a valid JSON object refused all the same for its
// member names: an object, at some depth, that names a member twice, or
// has over MaxMembers of them, or a name over MaxName bytes or one that
// does not print as it decodes.
var (
	ErrNotObject = errors.New("not one valid JSON object")
	ErrBadNames  = errors.New("a valid JSON object, but one whose member names are refused: one given twice, too long, or holding a character that does not print, or too many of them")
)

// MaxMembers bounds the members of each object the door passes: a reply
// or a tool list has a few dozen, and security/gate passes at most
// gate.MaxItems of them to a model anyway.
const MaxMembers = 10_000

// MaxName bounds, in bytes as written, each member name the door passes:
// a name is a word or a path, and a longer one is refused rather than
// carried to a reader that would have to cut it (security/gate cuts a
// string only past gate.MaxDataURL, above this, so no two names it writes
// can be cut to one note).
const MaxName = 1024

// errName is a name the door refuses though jsontext reads it.
var errName = errors.New("envelope: a member name refused")

// Decode is the door: it reads b, a frame from a tab, an answer from a
// leader bridge or a reply the shell's client received, once, where it
// enters, with the standard's reader (jsontext, which refuses a name given
// twice at any depth, invalid UTF-8 and a lone surrogate, and nests at
// most 10,000 deep), checking each name at every depth as it passes. b is
// kept, not copied; it must not change after.
//
// The one rule for duplicate names: there are none to disagree about. A
// name given twice ("say":"a" and "say":"b", or "a" and "\u0061") is
// refused, so every reader of a reply reads the same members.
func Decode(b []byte) (Reply, error) {
	lexed()
	rd := newReader(b)
	defer rd.free()
	r := Reply{raw: b, members: make(Object, 0, 8)} // a reply has a few
	if err := rd.top(b, func(name string, v []byte) {
		r.members = append(r.members, Member{name, v})
		if name == "dataUrl" {
			r.image = imageOf(v) // one at most: a name given twice is refused
		}
	}); err != nil {
		ref, _ := err.(*Refused)
		for _, m := range r.members {
			if m.Key == "id" {
				ref.ID, ref.HasID = Int(m.Value)
				break
			}
		}
		return Reply{}, ref
	}
	return r, nil
}

// Refused is the door's refusal of an answer: ErrNotObject or ErrBadNames
// (errors.Is), and the integer id of the call it answers when the door
// read one at its top level before the fault (pages write it first), so
// that the call can fail at once rather than time out, with nothing read
// again of bytes the door refused.
type Refused struct {
	why   error
	ID    int64
	HasID bool
	// Detail says where and how the answer is not a JSON object, from the
	// reader's error: a byte offset and a kind, never the bytes there.
	Detail string
}

func (r *Refused) Error() string { return r.why.Error() }
func (r *Refused) Unwrap() error { return r.why }

// top reads b as one object, checking every name at every depth, and
// calls member with each top-level member, its value a piece of b.
func (rd *reader) top(b []byte, member func(name string, v []byte)) error {
	d := &rd.d
	switch d.PeekKind() {
	case '{':
	case 0:
		_, err := d.ReadToken()
		return refusal(b, err)
	default:
		return &Refused{why: ErrNotObject, Detail: "the reply does not start with {"}
	}
	d.ReadToken()
	var name string
	start := -1 // where the current top-level container value starts
	for {
		depth := d.StackDepth()
		var err error
		switch d.PeekKind() {
		case '{', '[':
			if _, err = d.ReadToken(); err == nil && depth == 1 {
				start = int(d.InputOffset()) - 1
			}
		case '}', ']':
			if _, err = d.ReadToken(); err != nil {
				break
			}
			switch depth {
			case 1:
				if _, err := d.ReadToken(); err != io.EOF {
					return &Refused{why: ErrNotObject, Detail: fmt.Sprintf("data follows the JSON object at byte %d", d.InputOffset())}
				}
				return nil
			case 2:
				member(name, b[start:d.InputOffset()])
			}
		case 0:
			_, err = d.ReadToken() // the error PeekKind saw
		default:
			kind, n := d.StackIndex(depth)
			var v jsontext.Value
			if v, err = d.ReadValue(); err != nil {
				break
			}
			end := int(d.InputOffset())
			v = b[end-len(v) : end]
			switch {
			case kind == '{' && n%2 == 0: // a name
				var s string
				if s, err = checkName(v, n/2+1, depth == 1); depth == 1 {
					name = s
				}
			case depth == 1:
				member(name, v)
			}
		}
		if err != nil {
			return refusal(b, err)
		}
	}
}

// checkName checks the raw name v, the nth of its object, and returns it
// decoded when keep is set.
func checkName(v []byte, n int64, keep bool) (string, error) {
	if n > MaxMembers || len(v)-2 > MaxName {
		return "", errName
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && unprintable.PlainText(inner) {
		if keep {
			return keyOf(inner), nil
		}
		return "", nil
	}
	u, _ := jsontext.AppendUnquote(nil, v) // jsontext has read it whole
	if s := string(u); unprintable.Strip(s) == s {
		return s, nil
	}
	return "", errName
}

// refusal says why the door refused b, on which the reader failed with
// err: ErrBadNames when b is a JSON object that only its names spoil.
func refusal(b []byte, err error) *Refused {
	if errors.Is(err, errName) || errors.Is(err, jsontext.ErrDuplicateName) {
		if v := jsontext.Value(b); v.Kind() == '{' && v.IsValid(jsontext.AllowDuplicateNames(true)) {
			return &Refused{why: ErrBadNames, Detail: fmt.Sprintf("it names a member twice, or a name is over %d bytes or does not print, or an object has over %d members", MaxName, MaxMembers)}
		}
		// The syntax error beyond the names: read again, only on refusal.
		d := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))
		if _, err = d.ReadValue(); err == nil {
			_, err = d.ReadToken()
		}
	}
	ref := &Refused{why: ErrNotObject, Detail: "it is not valid JSON"}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		ref.Detail = fmt.Sprintf("it is not valid JSON at byte %d", se.ByteOffset)
		for _, k := range syntaxKinds {
			if strings.Contains(se.Err.Error(), k.in) {
				ref.Detail = fmt.Sprintf("%s at byte %d", k.why, se.ByteOffset)
				break
			}
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		ref.Detail = "the reply ends too soon"
	}
	return ref
}

// syntaxKinds word jsontext's syntax errors without the bytes they quote.
var syntaxKinds = []struct{ in, why string }{
	{"expecting non-control character", "a string holds a control character"},
	{"invalid escape sequence `\\u", `a string holds an invalid \u escape`},
	{"invalid escape sequence", "a string holds an invalid escape"},
	{"surrogate", "a string escapes a lone surrogate"},
	{"invalid UTF-8", "a string holds invalid UTF-8"},
}

// keyOf is the name k, plain text without escapes; the envelope's own
// names, which every reply has, without a copy.
func keyOf(k []byte) string {
	switch string(k) {
	case "id":
		return "id"
	case "ok":
		return "ok"
	case "say":
		return "say"
	case "error":
		return "error"
	case "message":
		return "message"
	case "dataUrl":
		return "dataUrl"
	}
	return string(k)
}

// Own is the envelope the bridge answers with itself, for a call the page
// did not answer: {"ok":false,"error":code,"message":msg}.
func Own(code, msg string) Reply {
	o := Object{}.With("ok", false).With("error", code).With("message", msg)
	return Reply{raw: o.AppendJSON(nil), members: o}
}

// Bridge is Own's bytes, for the faces that write an envelope of the
// bridge's own straight out (the control plane, the shell).
func Bridge(code, msg string) []byte { return Own(code, msg).raw }

// With returns r showing the members o in place of its own: the reply as
// a face shows it once the bridge has saved what it carried (the shell's
// --out and --save, call_to_files), o's values pieces of r or the bridge's
// own JSON. Nothing is encoded or read again: every exit writes members
// through its own encoder. Bytes stays the reply as it came; the image
// stays when o keeps r's dataUrl.
func (r Reply) With(o Object) Reply {
	out := Reply{raw: r.raw, members: o}
	if v := o.Get("dataUrl"); v != nil && r.image.data != nil && &v[0] == &r.Get("dataUrl")[0] {
		out.image = r.image
	}
	return out
}

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
func (r Reply) ID() (int64, bool) { return Int(r.Get("id")) }

// Image returns the image the reply's dataUrl carries, if it is one that
// may pass as an image block (see Image).
func (r Reply) Image() (Image, bool) { return r.image, r.image.data != nil }

// Into decodes the reply into v, a struct of the fields a reader wants
// (a leader's /status, say), with the standard's JSON v2 reader, which
// matches a field's name exactly (case included) as every other reader of
// the reply does, and refuses a name given twice as the door did.
func (r Reply) Into(v any) error { return jsonv2.Unmarshal(r.raw, v) }
