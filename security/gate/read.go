package gate

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The readers of a value the door (internal/envelope) passed, or of the
// bridge's own requests: jsontext, the one lexer, handing out pieces of
// the value, never copies; on bytes the door did not pass they say no
// rather than panic.

// reader reads over a bytes.Buffer, which jsontext reads in place, so each
// value is a piece of the input. Pooled: a reply costs no decoder.
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

// lenient: the door has checked names already.
var lenient = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

func (rd *reader) free() {
	rd.bb = bytes.Buffer{}
	rd.d.Reset(&empty)
	readers.Put(rd)
}

func (rd *reader) piece(b, v []byte) []byte {
	end := int(rd.d.InputOffset())
	return b[end-len(v) : end : end]
}

// Each calls f with each member of the object v until f returns false. It
// reports whether v is an object.
func Each(v []byte, f func(name string, value []byte) bool) bool {
	if len(v) == 0 {
		return false
	}
	lexed()
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

func nameOf(k []byte) string {
	inner := k[1 : len(k)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	u, _ := jsontext.AppendUnquote(nil, k)
	return string(u)
}

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

// Head is the first n characters of String(v), decoded no further than
// they need (unquote), or false when v is no string: a string of
// megabytes costs n characters of work. Like String, it takes a string
// without escapes as it is.
func Head(v []byte, n int) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	p, plain := Plain(v)
	if !plain {
		return unquote(v[1:len(v)-1], n), true
	}
	i := 0
	for ; n > 0 && i < len(p); n-- {
		_, size := utf8.DecodeRune(p[i:])
		i += size
	}
	return string(p[:i]), true
}

// Plain returns v's contents, no copy, when it is a JSON string without
// escapes.
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

func Int(v []byte) (int64, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || jsontext.Value(v).Kind() != '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

func IsNull(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || string(v) == "null"
}

func IsTrue(v []byte) bool { return string(bytes.TrimSpace(v)) == "true" }

// Valid checks the bridge's own requests: names given twice and invalid
// UTF-8 are the sender's business, as with encoding/json.
func Valid(b []byte) bool {
	lexed()
	return jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}
