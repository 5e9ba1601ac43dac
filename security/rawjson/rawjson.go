// Package rawjson is the JSON lexer of what the bridge does not trust
// (THREAT_MODEL.md T8 site-inject, T9 input-dos): Check, the validation of
// the door (internal/envelope.Decode), which every frame from a tab and
// every answer from a leader bridge passes where it enters; Valid; and
// readers that take the members of an object in place, without decoding
// it. The relay only needs a few members of each message (a reply's id, a
// request's method and params) and passes the rest on as the bytes it came
// as, so an image of megabytes is never copied.
//
// Every function here, security/gate, security/toollist and
// internal/envelope find the end of a string or a value, and decode a
// string, by the same few functions (valid.go), on one path: a walk
// validates as it goes. Every answer from a tab, a leader bridge or
// whatever holds the port the shell dials passes the door before anything
// else reads it; encoding/json then reads only MCP requests, the bridge's
// own files and control-plane requests, and, on top of the door's check, a
// tool's schema (security/toollist) and the struct a reader wants of a
// leader's /status or /wait (internal/envelope.Reply.Into).
//
// What it does not cover: what a valid object says. A decoded reply's
// strings reach the model and the terminal only through security/gate.
// The readers return false or nil on input that is not valid JSON rather
// than panic, but what they find before the fault is unspecified.
package rawjson

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Each calls f for each member of the object b, in order, with the member's
// raw key (quotes included) and raw value (surrounding space trimmed). It
// stops when f returns false. It reports false if b is not an object.
func Each(b []byte, f func(key, value []byte) bool) bool {
	i := skipSpace(b, 0)
	return i < len(b) && b[i] == '{' && value(b, i, 0, f, nil) >= 0
}

// Items calls f with each raw element of the JSON array b, in order, until
// f returns false; it returns false if b is not an array (it checks only as
// far as it walks). Nothing is copied or decoded, so a list of millions of
// elements costs one pass and no memory.
func Items(b []byte, f func(v []byte) bool) bool {
	i := skipSpace(b, 0)
	return i < len(b) && b[i] == '[' && value(b, i, 0, func(_, v []byte) bool { return f(v) }, nil) >= 0
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
	if len(k) >= 2 && plain(k[1:len(k)-1]) {
		return string(k[1:len(k)-1]) == name
	}
	s, ok := String(k)
	return ok && s == name
}

// String returns the value of the raw JSON string v.
func String(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if inner := v[1 : len(v)-1]; plain(inner) {
		return string(inner), true
	}
	s, rest := Decode(v[1:len(v)-1], -1)
	return s, len(rest) == 0
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

// plain reports whether the contents of a raw JSON string are its value:
// no escape, and valid UTF-8.
func plain(inner []byte) bool { return bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) }

// Decode decodes the contents of a raw JSON string (no quotes) as
// encoding/json does, up to about max bytes of its value (all of it if
// max < 0), and returns what it left: nothing, unless it stopped at max or
// at a malformed escape.
func Decode(inner []byte, max int) (string, []byte) {
	var b []byte
	for len(inner) > 0 && (max < 0 || len(b) < max) {
		r, size := Rune(inner)
		if r < 0 {
			break
		}
		b = utf8.AppendRune(b, r)
		inner = inner[size:]
	}
	return string(b), inner
}

// Rune decodes the character at the start of the contents of a raw JSON
// string (not empty), as encoding/json does, and returns it and its length:
// an escape (-1 if it is malformed), or UTF-8, a byte of which that is not
// valid being U+FFFD.
func Rune(s []byte) (rune, int) {
	if s[0] != '\\' {
		return utf8.DecodeRune(s)
	}
	if len(s) < 2 {
		return -1, len(s)
	}
	if i := strings.IndexByte(`"\/bfnrt`, s[1]); i >= 0 {
		return rune("\"\\/\b\f\n\r\t"[i]), 2
	}
	r, ok := hex4(s[2:])
	if s[1] != 'u' || !ok {
		return -1, len(s)
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	// A pair of escapes is one character; a lone half is U+FFFD, and what
	// follows it is read on its own.
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		r2, _ := hex4(s[8:]) // 0 if malformed, which pairs with nothing
		if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
			return dec, 12
		}
	}
	return utf8.RuneError, 6
}

// hex4 decodes the four hex digits at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s[:4]), 16, 16)
	return rune(n), err == nil
}
