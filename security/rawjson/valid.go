package rawjson

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// maxDepth is encoding/json's own nesting limit, so that Valid and
// json.Valid agree on every input.
const maxDepth = 10000

// MaxMembers bounds the members of each object in a checked one, and the
// names Check holds in sets at once (those of the objects of over
// smallObject members it is inside), so that what it keeps to find a
// repeated name stays small (at most some 200 KB) however many a frame of
// limits.PageFrame could hold: a reply or a tool list has a few dozen, and
// security/gate passes at most gate.MaxItems of them to a model anyway.
const MaxMembers = 10_000

// MaxName bounds, in bytes as written, each member name in a checked
// object: a name is a word or a path, and a longer one is refused rather
// than carried to a reader that would have to cut it (security/gate cuts a
// string only past gate.MaxDataURL, above this, so no two names it
// writes can be cut to one note).
const MaxName = 1024

// Valid reports whether b is one valid JSON value, exactly as json.Valid
// does, at several times its speed on long strings: a string's body is
// found with bytes.IndexByte and checked for control characters eight
// bytes at a time. Page replies carry images as strings of many megabytes,
// and this check runs on every one.
func Valid(b []byte) bool {
	i := value(b, skipSpace(b, 0), 0, nil, nil)
	return i >= 0 && skipSpace(b, i) == len(b)
}

// The lexer: every function of this package, and security/gate, finds the
// end of a string and of a value here, by one path: value and stringEnd
// accept exactly the grammar json.Valid accepts, whether they validate a
// frame at the door or walk a value of one already decoded.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// value returns the index just past the JSON value that starts at b[i], or
// -1. If f is not nil and the value is an object or an array, f is called
// with each member's raw key (quotes included; nil for an array's
// element) and raw value, in order, until it returns false; value then
// returns a non-negative index without looking further.
func value(b []byte, i, depth int, f func(k, v []byte) bool, n *names) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return stringEnd(b, i)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return number(b, i)
	case '{', '[':
		if depth >= maxDepth {
			return -1
		}
		if i = skipSpace(b, i+1); i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
			return i + 1
		}
		var obj object
		if n != nil && c == '{' {
			obj.base = len(n.list)
			defer n.done(&obj)
		}
		for {
			var key []byte
			if c == '{' {
				ks := i
				if i >= len(b) || b[i] != '"' {
					return -1
				}
				if i = stringEnd(b, i); i < 0 {
					return -1
				}
				key = b[ks:i]
				if n != nil && !n.add(&obj, key) {
					return -1
				}
				if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
					return -1
				}
				i = skipSpace(b, i+1)
			}
			vs := i
			if i = value(b, i, depth+1, nil, n); i < 0 {
				return -1
			}
			if f != nil && !f(key, b[vs:i]) {
				return i
			}
			if i = skipSpace(b, i); i < len(b) && b[i] == c+2 {
				return i + 1
			}
			if i >= len(b) || b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(b[i:], []byte(lit)) {
			return i + len(lit)
		}
	}
	return -1
}

// Walk calls f with each member of the object, or each element of the
// array, that starts at b[i], as Each and Items do, and returns the index
// just past it (or -1, or where f stopped).
func Walk(b []byte, i int, f func(key, value []byte) bool) int { return value(b, i, 0, f, nil) }

// StringEnd returns the index just past the JSON string that starts at
// b[i], or -1.
func StringEnd(b []byte, i int) int { return stringEnd(b, i) }

// stringEnd returns the index just past the string that starts at b[i], or
// -1. It finds the next quote with bytes.IndexByte, many times faster than
// a scan for either of two bytes, and searches again only when an escape
// turns out to have swallowed that quote: a string full of escapes costs
// time in proportion to its length, never to its length squared.
func stringEnd(b []byte, i int) int {
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
		e := bytes.IndexByte(b[i:q], '\\')
		if e < 0 {
			e = q - i
		}
		if hasControl(b[i : i+e]) {
			return -1
		}
		if i += e; i == q {
			return q + 1
		}
		r, size := Rune(b[i:])
		if r < 0 {
			return -1
		}
		i += size
	}
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

// number checks the number that starts at b[i] and returns the index just
// past it, or -1: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(b []byte, i int) int {
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i++; !digits() {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return -1
		}
	}
	return i
}

// Check validates b as one JSON object, by Valid's grammar (no raw control
// character in a string, nothing after it), in which no object, at any
// depth, names a member twice, has over MaxMembers of them, or has a
// name of over MaxName bytes or one that does not print as it decodes.
// Names are compared as they decode: "a" and "\u0061" are one name. A
// name holding a character security/unprintable names (but a tab or a
// newline) is refused: every exit to a reader (security/gate) strips
// those, and "o\u200bk" would print as "ok" beside the real one, or be
// read by one reader as ok and by another as not. The names are tracked
// in the validating pass itself. It is the check of the door
// (internal/envelope.Decode), which every frame from a tab and every
// answer from a leader bridge passes where it enters.
//
// The one rule for duplicate names: there are none to disagree about.
// This package's readers take a name's first member and encoding/json its
// last; an object that gives a name twice (a reply saying "say":"a" and
// "say":"b", or a file entry with two names) is refused, so every reader
// of a checked object reads the same members.
//
// member, if not nil, is called with each top-level member's raw key and
// value as the pass reaches it, so that the door splits an answer into its
// members in the pass that validates it. When Check returns false, what
// member was given must be thrown away.
func Check(b []byte, member func(key, value []byte)) bool {
	start := skipSpace(b, 0)
	if start >= len(b) || b[start] != '{' {
		return false
	}
	var f func(k, v []byte) bool
	if member != nil {
		f = func(k, v []byte) bool { member(k, v); return true }
	}
	n := names{list: make([][]byte, 0, smallObject)} // a reply's top level, in one allocation
	end := value(b, start, 0, f, &n)
	return end >= 0 && skipSpace(b, end) == len(b)
}

// names finds, in the validating pass, a name given twice in an object
// (two names are one when they decode alike: "a" and "\u0061"), and a
// name that does not print as it decodes.
// Its list is reused from object to object, so a list of a million small
// objects costs no allocation per object.
type names struct {
	seed   maphash.Seed
	seeded bool
	list   [][]byte // the names of the objects being walked, while small
	inSets int      // the names in the sets of the objects being walked
}

// object is the names of one object being walked: at list[base:] while it
// has at most smallObject members, then in set.
type object struct {
	base, count int
	set         map[uint64]bool
}

// smallObject is the most members an object may have before its names
// are kept in a set rather than compared one by one.
const smallObject = 16

// add records the raw key k (quotes included) as a member of o, and
// reports false if o already has a member of that name, as it decodes, or
// has MaxMembers of them, or k is over MaxName or does not print as it
// decodes.
func (n *names) add(o *object, k []byte) bool {
	if o.count++; o.count > MaxMembers || len(k)-2 > MaxName {
		return false
	}
	name := k[1 : len(k)-1]
	if !plain(name) || !unprintable.PlainText(name) {
		u, _ := String(k)
		if unprintable.Strip(u) != u {
			return false
		}
		name = []byte(u)
	}
	if o.set == nil && o.count > smallObject {
		if !n.seeded {
			n.seed, n.seeded = maphash.MakeSeed(), true
		}
		o.set = make(map[uint64]bool, 2*smallObject)
		n.inSets += smallObject
		for _, m := range n.list[o.base:] {
			o.set[maphash.Bytes(n.seed, m)] = true
		}
		n.list = n.list[:o.base]
	}
	if o.set != nil {
		// A 64-bit hash under a seed of this Check's stands for the name.
		h := maphash.Bytes(n.seed, name)
		if n.inSets++; o.set[h] || n.inSets > MaxMembers {
			return false
		}
		o.set[h] = true
		return true
	}
	for _, m := range n.list[o.base:] {
		if bytes.Equal(m, name) {
			return false
		}
	}
	n.list = append(n.list, name)
	return true
}

// done forgets the names of o, whose walk has ended.
func (n *names) done(o *object) {
	n.list = n.list[:o.base]
	if o.set != nil {
		n.inSets -= o.count
	}
}
