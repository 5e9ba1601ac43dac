package rawjson

import (
	"bytes"
	"encoding/binary"
)

// maxDepth is encoding/json's own nesting limit, so that Valid and
// json.Valid agree on every input.
const maxDepth = 10000

// Valid reports whether b is one valid JSON value, exactly as json.Valid
// does, at several times its speed on long strings: a string's body is
// found with bytes.IndexByte and checked for control characters eight
// bytes at a time. Page replies carry images as strings of many megabytes,
// and this check runs on every one.
func Valid(b []byte) bool {
	var stack []byte // '{' or '[' of each open container
	i := skipSpace(b, 0)
	for {
		// A value is expected at b[i].
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return false
			}
			stack = append(stack, c)
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i = objectKey(b, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = validString(b, i); i < 0 {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i = validNumber(b, i); i < 0 {
				return false
			}
		case c == 't':
			if !bytes.HasPrefix(b[i:], []byte("true")) {
				return false
			}
			i += 4
		case c == 'f':
			if !bytes.HasPrefix(b[i:], []byte("false")) {
				return false
			}
			i += 5
		case c == 'n':
			if !bytes.HasPrefix(b[i:], []byte("null")) {
				return false
			}
			i += 4
		default:
			return false
		}
		// After a value: close containers, or a comma and the next value.
		for {
			i = skipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			i = skipSpace(b, i+1)
			if top == '{' {
				if i = objectKey(b, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// objectKey checks a key and its colon at b[i] and returns where the value
// starts, or -1.
func objectKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = validString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// validString checks the string that starts at b[i] and returns the index
// just past it, or -1. As skipString, it searches for the closing quote
// again only when an escape swallowed the one it found, so escapes cost
// linear time.
func validString(b []byte, i int) int {
	i++
	q := -1 // index of the next quote at or after i, once found
	for {
		if q < i {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return -1
			}
			q = i + j
		}
		span := b[i:q]
		e := bytes.IndexByte(span, '\\')
		if e < 0 {
			if hasControl(span) {
				return -1
			}
			return q + 1
		}
		if hasControl(span[:e]) {
			return -1
		}
		i += e + 1 // the byte after the backslash
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if i+5 > len(b) {
				return -1
			}
			for _, h := range b[i+1 : i+5] {
				if !isHex(h) {
					return -1
				}
			}
			i += 5
		default:
			return -1
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// hasControl reports whether p holds a byte below 0x20, which a JSON string
// may not hold raw. Eight bytes at a time: a byte below 0x20 borrows in
// x - 0x20…20 and had its high bit clear.
func hasControl(p []byte) bool {
	for len(p) >= 8 {
		x := binary.LittleEndian.Uint64(p)
		if (x-0x2020202020202020)&^x&0x8080808080808080 != 0 {
			return true
		}
		p = p[8:]
	}
	for _, c := range p {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// validNumber checks the number that starts at b[i] and returns the index
// just past it, or -1: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) int {
	digits := func(i int) int {
		j := i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1
	}
	if b[i] == '0' {
		i++
	} else if i = digits(i); i < 0 {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(i); i < 0 {
			return -1
		}
	}
	return i
}

// Checked is a JSON object that Check found valid: one value by Valid (no
// raw control character in a string, nothing after it), and an object. It
// is the only way to make one, so code that takes a Checked (the hub's
// replies, the MCP face's splice of a reply into stdout) takes only bytes
// that passed the one validation, whether they came from the tab, from a
// leader bridge, or from the bridge itself.
type Checked struct{ b []byte }

// Check validates b as one JSON object.
func Check(b []byte) (Checked, bool) {
	if !Valid(b) || !Each(b, func(_, _ []byte) bool { return true }) {
		return Checked{}, false
	}
	return Checked{b}, true
}

// MustCheck is Check for JSON the bridge made itself, which is always
// valid: it panics otherwise.
func MustCheck(b []byte) Checked {
	c, ok := Check(b)
	if !ok {
		panic("rawjson: the bridge made invalid JSON: " + string(b))
	}
	return c
}

// Bytes returns the checked object's bytes; they must not be changed.
func (c Checked) Bytes() []byte { return c.b }
