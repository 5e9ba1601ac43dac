package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// Reply is an answer as the door read it: top-level members in order, each
// a validated piece of the bytes, and its image when one may pass as an
// image block. Decode is the only way from bytes (Own makes the bridge's
// own), so nothing past the door lexes the answer again.
type Reply struct {
	raw     []byte
	members Object
	image   Image
	recs    []rec // its top-level lists' entries (Entries)
}

// The door's refusals: ErrNotObject for anything but one valid JSON object
// (invalid UTF-8 and an escaped lone surrogate included); ErrBadNames for a
// valid object refused for its names, at any depth.
var (
	ErrNotObject = errors.New("not one valid JSON object")
	ErrBadNames  = errors.New("a valid JSON object, but one whose member names are refused: one given twice, too long, or holding a character that does not print, or too many of them")
)

// Decode is the door: it reads b once, where it enters, with jsontext,
// checking each name at every depth. A name given twice ("a" and "\u0061"
// too) is refused, so no two readers of a reply can disagree about which
// one counts. b is kept, not copied; it must not change after.
func Decode(b []byte) (Reply, error) { return DecodeTools(b, nil) }

// DecodeTools is Decode handing a top-level "tools" value to read as it
// meets it, so that the value is read once, by the door's own reader.
func DecodeTools(b []byte, read Tools) (Reply, error) {
	lexed()
	rd := newReader(b)
	defer rd.free()
	r := Reply{raw: b, members: make(Object, 0, 8)} // a reply has a few
	ls := lists{recs: rd.recs[:0], head: -1}
	if err := rd.top(b, read, &ls, func(name string, v []byte, seen gate.Seen) {
		r.members = append(r.members, Member{Key: name, Value: v, Seen: seen})
		if name == "dataUrl" {
			r.image = imageOf(v) // one at most: a name given twice is refused
		}
	}); err != nil {
		ref, _ := err.(*Refused)
		for _, m := range r.members {
			if m.Key == "id" {
				ref.ID, ref.HasID = gate.Int(m.Value)
				break
			}
		}
		return Reply{}, ref
	}
	if rd.recs = ls.recs; len(ls.recs) > 0 && len(b) <= math.MaxInt32 {
		r.recs = slices.Clone(ls.recs) // rd's are the next reply's
	}
	return r, nil
}

// Refused wraps ErrNotObject or ErrBadNames with the id the door read
// before the fault (pages write it first), so that the call fails at once
// rather than times out.
type Refused struct {
	why   error
	ID    int64
	HasID bool
	// Detail is a byte offset and a kind, never the bytes there.
	Detail string
}

func (r *Refused) Error() string { return r.why.Error() }
func (r *Refused) Unwrap() error { return r.why }

// top reads b as one object, checking every name at every depth, and
// calls member with each top-level member, its value a piece of b, and
// what the gate needs to know of a container value to write it unread
// again (gate.Seen); a "tools" value read reads itself (DecodeTools),
// and ls records its lists' entries as they pass.
func (rd *reader) top(b []byte, read Tools, ls *lists, member func(name string, v []byte, seen gate.Seen)) error {
	d := &rd.r // every token through it, so that it counts the names jsontext holds
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
	var seen gate.Seen
	start := -1 // where the current top-level container value starts
	for {
		depth := d.StackDepth()
		look := depth > 1 && !seen.Changes()
		prev := 0 // the end of the token before, in a container value
		if depth > 1 {
			prev = int(d.InputOffset())
		}
		var err error
		switch kind := d.PeekKind(); kind {
		case '{', '[':
			if _, err = d.ReadToken(); err == nil {
				ls.open(kind, depth, int32(d.InputOffset())-1)
			}
			if err == nil && depth == 1 {
				start, seen = int(d.InputOffset())-1, gate.Seen{}
			} else if err == nil {
				kind, n := d.StackIndex(depth) // counting the bracket read
				if look {
					seen.Gap(b[prev : d.InputOffset()-1])
					seen.Entry(kind, n-1)
				}
				if m := ls.watch(depth, false); m != nil {
					if depth > 3 { // a gap at 3 is not written (gate.List)
						m.Gap(b[prev : d.InputOffset()-1])
					}
					m.Entry(kind, n-1)
				}
			}
		case '}', ']':
			if _, err = d.ReadToken(); err != nil {
				break
			}
			if depth > 3 { // a recorded member's gaps are in its value
				if m := ls.watch(depth, false); m != nil {
					m.Gap(b[prev : d.InputOffset()-1])
				}
			}
			if ls.head >= 0 { // in a list
				ls.close(depth, int32(d.InputOffset()))
			}
			switch depth {
			case 1:
				if _, err := d.ReadToken(); err != io.EOF {
					return &Refused{why: ErrNotObject, Detail: fmt.Sprintf("data follows the JSON object at byte %d", d.InputOffset())}
				}
				return nil
			default:
				if look {
					seen.Gap(b[prev : d.InputOffset()-1])
				}
				if depth == 2 {
					seen.Closed()
					member(name, b[start:d.InputOffset()], seen)
				}
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
			// What the token shows, seen once for the value and the
			// recorded member it is part of.
			var t gate.Seen
			var m *gate.Seen
			if depth > 2 {
				m = ls.watch(depth, kind == '{' && n%2 == 0)
			}
			if look || m != nil {
				t.Entry(kind, n)
				t.Scalar(v)
			}
			if m != nil {
				if depth > 3 {
					m.Gap(b[prev : end-len(v)])
				}
				m.Add(t)
			}
			if ls.head >= 0 {
				ls.scalar(depth, n, int32(end-len(v)), int32(end))
			}
			if look {
				seen.Gap(b[prev : end-len(v)])
				seen.Add(t)
			}
			switch {
			case kind == '{' && n%2 == 0: // a name
				var s string
				if s, err = rd.checkName(v, depth == 1); depth == 1 {
					name = s
				}
				if depth == 1 && name == "id" {
					read = nil // a reply: its "tools", if any, is a member as any other
				}
				if err == nil && depth == 1 && name == "tools" && read != nil {
					if err = read(d, b); err == nil && d.StackDepth() != 1 {
						err = errToolsRead
					}
					if err == nil { // the value read: past the name, its colon and space
						member(name, bytes.TrimLeft(b[end:d.InputOffset()], " \t\r\n:"), gate.Seen{})
					}
				}
			case depth == 1:
				member(name, v, gate.Seen{})
			}
		}
		if err != nil {
			return refusal(b, err)
		}
	}
}

// checkName checks the raw name v, just read, by the door's rule, and
// counts it as held (gate.Reader.Check); decoded if keep.
func (rd *reader) checkName(v []byte, keep bool) (string, error) {
	s, err := rd.r.Check(v)
	if err == nil && s == "" && keep {
		s = keyOf(v[1 : len(v)-1])
	}
	return s, err
}

func refusal(b []byte, err error) *Refused {
	if errors.Is(err, gate.ErrName) || errors.Is(err, jsontext.ErrDuplicateName) {
		if valid(b) {
			return &Refused{why: ErrBadNames, Detail: fmt.Sprintf("it names a member twice, or a name is over %d bytes or does not print, or an object has over %d members, or its objects hold over %d KiB of names at once", gate.MaxMemberName, gate.MaxMembers, gate.MaxOpenNames>>10)}
		}
		// The syntax error beyond the names: read again, only on refusal.
		lexed()
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

// keyOf returns the envelope's own names, which every reply has, without
// a copy.
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

// Own is the bridge's own answer to a call the page did not answer.
func Own(code, msg string) Reply {
	o := Object{}.With("ok", false).With("error", code).With("message", msg)
	return Reply{raw: o.AppendJSON(nil), members: o}
}

func Bridge(code, msg string) []byte { return Own(code, msg).raw }

// With returns r showing o in place of its members, once the bridge has
// saved what it carried (--out, --save, call_to_files). Bytes stays as it
// came; the image stays only while o keeps r's own dataUrl.
func (r Reply) With(o Object) Reply {
	out := Reply{raw: r.raw, members: o, recs: r.recs}
	if v := o.Get("dataUrl"); v != nil && r.image.data != nil && &v[0] == &r.Get("dataUrl")[0] {
		out.image = r.image
	}
	return out
}

// Bytes is the reply as it came, for what passes it on verbatim (a
// leader's /call, protocol.md §4.2; --raw); it must not be changed.
func (r Reply) Bytes() []byte { return r.raw }

// Members is the reply's own slice: change a clone.
func (r Reply) Members() Object { return r.members }

func (r Reply) Get(name string) json.RawMessage { return r.members.Get(name) }

func (r Reply) String(name string) (string, bool) { return r.members.String(name) }

func (r Reply) OK() bool { return r.members.OK() }

func (r Reply) Image() (Image, bool) { return r.image, r.image.data != nil }

// ErrShape is Into's refusal of valid JSON that does not fit v.
var ErrShape = errors.New("not of the shape the bridge asks for")

// MaxShaped bounds an answer of a known shape: a bridge's /status, its
// tools' names and its listeners, is a few kilobytes. Past it JSON v2,
// which keeps names as jsontext does for its check of a name given twice
// (gate.MaxOpenNames), could cost nine times the answer.
const MaxShaped = 1 << 20

// ErrTooLarge is Into's refusal of an answer over MaxShaped.
var ErrTooLarge = errors.New("over 1 MiB, more than an answer of its shape holds")

// Into is the door for an answer of a shape the bridge knows (another
// bridge's /status or /wait, protocol.md §4.2): it reads b once, into v,
// with JSON v2, which refuses a name given twice and invalid UTF-8 as
// Decode does, matches names exactly (case included), and skips members v
// does not name; b is at most MaxShaped bytes. Its errors quote no byte
// of b.
func Into(b []byte, v any) error {
	if len(b) > MaxShaped {
		return ErrTooLarge
	}
	lexed()
	err := jsonv2.Unmarshal(b, v)
	var se *jsontext.SyntacticError
	switch {
	case err == nil && jsontext.Value(b).Kind() != '{':
		return ErrShape // null, which Unmarshal takes as nothing to do
	case err == nil:
		return nil
	case errors.Is(err, jsontext.ErrDuplicateName) && valid(b):
		// Unmarshal can meet a name given twice before a syntax error
		// past it ({"a":0,"a"): that is not one valid object.
		return ErrBadNames
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF):
		return ErrNotObject
	}
	return ErrShape
}

// valid reports whether b, refused for a name given twice, is otherwise
// one valid object: read again, only on refusal.
func valid(b []byte) bool {
	lexed()
	v := jsontext.Value(b)
	return v.Kind() == '{' && v.IsValid(jsontext.AllowDuplicateNames(true))
}
