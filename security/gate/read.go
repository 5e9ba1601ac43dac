package gate

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The readers of a value the door (internal/envelope) passed: a member of
// a reply, an entry of its lists, a tool list; and of the bridge's own
// requests. Each walks the value with the standard's reader, jsontext, the
// one lexer of the bridge, and hands out pieces of it, never copies. A
// value the door passed is valid, so none of them fails on one; on other
// bytes each says no rather than panic.

// reader is a jsontext.Decoder reading a piece of bytes in place: over a
// bytes.Buffer, jsontext reads the buffer's own bytes, with no copy, so
// each value it returns is a piece of them. Readers are pooled: a reply
// costs no decoder of its own.
type reader struct { // as internal/envelope's, which reads strictly
	d  jsontext.Decoder
	bb bytes.Buffer
}

var readers = sync.Pool{New: func() any { return new(reader) }}

// empty is what a free reader reads, so that the pool holds no reply.
var empty bytes.Buffer

func newReader(b []byte, opts ...jsontext.Options) *reader {
	rd := readers.Get().(*reader)
	rd.bb = *bytes.NewBuffer(b)
	rd.d.Reset(&rd.bb, opts...)
	return rd
}

// lenient is how the readers read: what they read, the door has checked
// (or it is the bridge's own request), so they do not check names again.
var lenient = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

func (rd *reader) free() {
	rd.bb = bytes.Buffer{}
	rd.d.Reset(&empty)
	readers.Put(rd)
}

// piece is the value v the reader just read, as a piece of b.
func (rd *reader) piece(b, v []byte) []byte {
	end := int(rd.d.InputOffset())
	return b[end-len(v) : end : end]
}

// Each calls f with each member of the object v, its name decoded and its
// value a piece of v, in order, until f returns false. It reports whether
// v is an object.
func Each(v []byte, f func(name string, value []byte) bool) bool {
	if len(v) == 0 {
		return false
	}
	rd := newReader(v, lenient...)
	defer rd.free()
	d := &rd.d
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for d.PeekKind() == '"' {
		k, err := d.ReadValue()
		if err != nil {
			return false
		}
		name := nameOf(k)
		val, err := d.ReadValue()
		if err != nil {
			return false
		}
		if !f(name, rd.piece(v, val)) {
			return true
		}
	}
	return d.PeekKind() == '}'
}

// nameOf decodes the raw name k.
func nameOf(k []byte) string {
	inner := k[1 : len(k)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	u, _ := jsontext.AppendUnquote(nil, k)
	return string(u)
}

// Items calls f with each element of the array v, a piece of v, in order,
// until f returns false. It reports whether v is an array.
func Items(v []byte, f func(value []byte) bool) bool {
	if len(v) == 0 {
		return false
	}
	rd := newReader(v, lenient...)
	defer rd.free()
	d := &rd.d
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '[' {
		return false
	}
	for k := d.PeekKind(); k != ']'; k = d.PeekKind() {
		if k == 0 {
			return false
		}
		val, err := d.ReadValue()
		if err != nil {
			return false
		}
		if !f(rd.piece(v, val)) {
			return true
		}
	}
	return true
}

// Get returns the value of the first member of the object v called name,
// or nil.
func Get(v []byte, name string) []byte {
	var out []byte
	Each(v, func(k string, val []byte) bool {
		if k == name {
			out = val
			return false
		}
		return true
	})
	return out
}

// String returns v decoded if it is a JSON string.
func String(v []byte) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if s, ok := Plain(v); ok {
		return string(s), true
	}
	u, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return "", false
	}
	return string(u), true
}

// Plain returns the contents of v, a JSON string, when it holds no escape
// and so reads as its bytes: a piece of v, no copy.
func Plain(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || bytes.IndexByte(inner, '"') >= 0 {
		return nil, false
	}
	return inner, true
}

// Int returns v if it is a JSON integer that fits an int64.
func Int(v []byte) (int64, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || jsontext.Value(v).Kind() != '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// IsNull reports whether v is absent or JSON null.
func IsNull(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || string(v) == "null"
}

// IsTrue reports whether v is JSON true.
func IsTrue(v []byte) bool { return string(bytes.TrimSpace(v)) == "true" }

// Valid reports whether b is one valid JSON value to the standard's
// reader, as the bridge's own requests are checked (names given twice and
// invalid UTF-8 are a request's sender's business, as encoding/json
// reads them).
func Valid(b []byte) bool {
	return jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}
