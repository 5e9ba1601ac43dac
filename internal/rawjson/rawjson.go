// Package rawjson reads the members of a JSON object in place, without
// decoding it: the relay only needs a few top-level members of each message
// (a reply's id, a request's method and params) and passes the rest on as the
// bytes it came as.
//
// Every function here expects input that json.Valid has accepted; on other
// input they return false or nil rather than panic, but what they find then
// is unspecified.
package rawjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Each calls f for each member of the object b, in order, with the member's
// raw key (quotes included) and raw value (surrounding space trimmed). It
// stops when f returns false. It reports false if b is not an object.
func Each(b []byte, f func(key, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		case '"':
		default:
			return false
		}
		ks := i
		i = skipString(b, i)
		if i < 0 {
			return false
		}
		key := b[ks:i]
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vs := i
		i = skipValue(b, i)
		if i < 0 {
			return false
		}
		if !f(key, b[vs:i]) {
			return true
		}
	}
}

// Get returns the raw value of the first member named name, or nil.
func Get(b []byte, name string) []byte {
	var v []byte
	Each(b, func(k, val []byte) bool {
		if KeyIs(k, name) {
			v = val
			return false
		}
		return true
	})
	return v
}

// KeyIs reports whether the raw key k (quotes included) names name, as
// encoding/json would decode it. Keys without escapes, the usual case, are
// compared in place.
func KeyIs(k []byte, name string) bool {
	if len(k) < 2 {
		return false
	}
	inner := k[1 : len(k)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner) == name
	}
	s, ok := String(k)
	return ok && s == name
}

// String returns the value of the raw JSON string v.
func String(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// Plain returns the contents of the raw JSON string v when it holds no
// escape, so that its bytes are its value: no copy is made.
func Plain(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	inner := v[1 : len(v)-1]
	return inner, bytes.IndexByte(inner, '\\') < 0
}

// Int returns the raw JSON value v as an int64 if it is an integer.
func Int(v []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// IsNull reports whether v is the literal null or absent.
func IsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
// It finds the next quote with bytes.IndexByte, many times faster than a
// scan for either of two bytes, and searches again only when an escape
// turns out to have swallowed that quote: a string full of escapes costs
// time in proportion to its length, never to its length squared.
func skipString(b []byte, i int) int {
	i++
	q := -1 // index of the next quote at or after i, once found
	for i < len(b) {
		if q < i {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return -1
			}
			q = i + j
		}
		e := bytes.IndexByte(b[i:q], '\\')
		if e < 0 {
			return q + 1
		}
		i += e + 2 // a backslash and the byte it escapes
	}
	return -1
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default: // number, true, false, null
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// Items calls f with each raw element of the JSON array b, in order, until
// f returns false; it returns false if b is not an array (it checks only as
// far as it walks). Nothing is copied or decoded, so a list of millions of
// elements costs one pass and no memory.
func Items(b []byte, f func(v []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ']':
			return true
		case ',':
			i++
			continue
		}
		vs := i
		if i = skipValue(b, i); i < 0 {
			return false
		}
		if !f(b[vs:i]) {
			return true
		}
	}
}
