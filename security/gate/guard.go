// Package gate is the one gate between a page and the model: every string
// that came from a page (or from a leader bridge relaying one) and that a
// model reads passes through it. It mitigates THREAT_MODEL.md T8
// (site-inject: a compromised or buggy site answers a call with hidden
// instructions or megabytes) and T9 (input-dos), where the resource
// exhausted is the model's context window or the bridge's memory.
//
// Two entry points, one rule set:
//
//   - Guard copies a JSON value (a page's reply) and, in the same pass,
//     removes invisible characters from every string and member name
//     (the one rule, security/unprintable: controls, format and
//     default-ignorable characters, private use, unassigned code points);
//     replaces each string too long to be of use to a model with a one-line
//     note saying what was there and how to get it whole: a data URL
//     ("data:…", scheme matched without regard to case) of more than
//     MaxDataURL characters, or any string of more than MaxString; keeps at
//     most MaxItems elements of an array or members of an object; and stops
//     at about MaxTotal bytes, each container closed by a note saying how
//     many entries were left out. The result is valid JSON. A reply's
//     top level is bounded the same way (AppendObject), and a page's string
//     that starts as a note does ("[bridge") has that "[" escaped.
//   - Text (Clean, and a bound of MaxText bytes) for a whole text the model
//     reads: a tool result, a greeting, a status. internal/mcp builds every
//     tool result through it.
//
// Quote is the one way a page's or a file's name is shown: quoted once,
// escaped.
//
// Member order, numbers and escapes come out as they came; the output is
// compact, written by the standard's encoder (jsontext). A string is rewritten only when it changes: one with
// nothing to clean and within the limits is copied as it was.
//
// A character is a Unicode code point of the decoded string, as
// encoding/json decodes it. A JSON string's raw form is never shorter than
// that (an escape is two to twelve bytes for one character, a multi-byte
// UTF-8 sequence one character), so a string whose raw form is within a
// limit is within it decoded and is passed without being counted; one of
// plain ASCII without escapes is not decoded at all.
//
// What it does not cover: the top-level image of an MCP reply, which the
// MCP face turns into an image block (its bytes checked against its type by
// security/files.ImageType) before the guard sees the rest; and the words
// themselves, which reach the model as the page wrote them, visible (T8:
// the model must treat a page's reply as data). It expects valid JSON,
// which the bridge checks when a frame arrives; on other input it neither
// panics nor promises anything.
package gate

import (
	"bytes"
	"iter"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// The limits, in characters (see the package doc for how they are
// counted).
const (
	// MaxDataURL is the longest data URL passed to the reader as text:
	// about 1.5 KB of file, room for a tiny icon. Past that, a data URL is
	// base64 that a model can neither see nor use, and that costs it a
	// token for every three or four characters.
	MaxDataURL = 2048
	// MaxString is the longest string of any kind passed as text: some
	// 25,000 tokens, more than any sentence, name or description a page
	// has reason to send, and well under a model's context. It must be
	// more than MaxDataURL, which is the fast path's only threshold.
	MaxString = 100_000
	// MaxItems is the most elements of one array, or members of one
	// object, passed on: a list of a few thousand shapes or files is all a
	// model can take in, and a reply of a million zeros is none.
	MaxItems = 2_000
	// MaxTotal is about how many bytes of a guarded value are passed on:
	// twice MaxString, some 50,000 tokens. Past it, each open container is
	// closed with a note; one element may overshoot it, by at most
	// MaxString characters.
	MaxTotal = 2 * MaxString
)

// limits are the thresholds the code uses, which tests shrink so that
// short inputs reach the slow paths.
var limits = struct{ dataURL, str, items, total int }{MaxDataURL, MaxString, MaxItems, MaxTotal}

// maxPath bounds, in bytes, the path a note gives: a longer one keeps its
// end, the most specific part, after "...", cut between segments.
const maxPath = 200

// maxKeyShown bounds, in bytes, a member name as a path shows it.
const maxKeyShown = 48

// Left says what a note stands for, so that a Remedy can word how to get it.
type Left struct {
	// At is the path of the string in the value: member names and array
	// indices joined by dots ("members.0.text"); a name that is not a plain
	// identifier is quoted in brackets (`a["b.c"]`); "" is the value itself.
	// For a member name, At is the path of its object.
	At string
	// DataURL says the string is a data URL.
	DataURL bool
	// Name says the string is a member name.
	Name bool
}

// Guard walks JSON values through the gate: cleaned, over-long strings
// noted, containers capped, the whole bounded (see the package doc).
type Guard struct {
	// Remedy returns the end of a note: how the reader gets the string
	// whole, in one line without a final period.
	Remedy func(Left) string
	// Whole keeps every string and entry, however long or many: only
	// invisible characters are removed. It is the shell's --raw, asked for
	// by name after a note said what was left out.
	Whole bool
	// EveryDataURL notes every data URL, however short: call_to_files'
	// answer, whose files are on disk, so that no byte of them reaches the
	// model.
	EveryDataURL bool
}

// AppendObject appends the members of a top-level object to dst as one
// JSON object, guarded as walk guards the entries of a nested one: before
// each member, past MaxItems members or past the budget (about MaxTotal
// bytes of the object so far), the rest are left out and a member named
// "[bridge]" says how many. A member whose name is Reserved is left out.
// It is the one way a reply's members reach a model or the shell's
// stdout (internal/mcp's toolResponse, internal/cli's emit): a member at a
// time, a page's reply of thousands of members each just under MaxString
// would pass every per-string bound and none of the whole.
func (g Guard) AppendObject(dst []byte, members iter.Seq2[string, []byte]) []byte {
	origin := len(dst)
	dst = append(dst, '{')
	n, left := 0, 0
	for key, value := range members {
		if Reserved(Clean(key)) {
			continue
		}
		if left > 0 || n > 0 && !g.Whole && (n >= limits.items || len(dst)-origin > limits.total) {
			left++
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = g.appendMember(dst, key, value, origin)
		n++
	}
	if left > 0 {
		dst = append(dst, ',')
		dst = AppendString(dst, "[bridge]")
		dst = append(dst, ':')
		dst = AppendString(dst, g.notMore(left, true, Left{}))
	}
	return append(dst, '}')
}

// appendMember appends the member key:value of a top-level object to dst,
// both guarded; value is its raw value, valid JSON. The budget counts dst
// from origin, the object's start.
func (g Guard) appendMember(dst []byte, key string, value []byte, origin int) []byte {
	k := AppendString(make([]byte, 0, len(key)+2), key)
	inner := k[1 : len(k)-1]
	if n, _, _, cut := g.measure(inner); cut {
		dst = AppendString(dst, g.note(n, "", Left{Name: true}))
	} else if out, changed := cleaned(inner); changed {
		dst = AppendString(dst, out)
	} else {
		dst = append(dst, k...)
	}
	dst = append(dst, ':')
	out, _ := g.walk(dst, value, k, origin)
	return out
}

// Reserved reports whether a member name, as it reads once cleaned, is
// one the guard keeps for its own notes ("[bridge]", and any name starting
// "[bridge"): a page's member of such a name is left out, so that no note
// of the guard's is given twice in an object, or posed as.
func Reserved(name string) bool { return strings.HasPrefix(name, reservedPrefix) }

const reservedPrefix = "[bridge"

// Apply returns doc, a JSON document, guarded and compact, and whether
// anything was changed. When nothing is changed, doc itself comes back,
// whitespace and all. Invalid JSON also comes back as it came.
func (g Guard) Apply(doc []byte) ([]byte, bool) {
	if !jsontext.Value(doc).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return doc, false
	}
	out, changed := g.walk(make([]byte, 0, min(len(doc), limits.total+limits.str)), doc, nil, 0)
	if !changed {
		return doc, false
	}
	return out, true
}

// Note returns the note that replaces the raw JSON string v, the value of
// the top-level member key, if v is over a limit. The note is the
// string's value, not JSON.
func (g Guard) Note(key string, v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	n, dataURL, mime, cut := g.measure(v[1 : len(v)-1])
	if !cut {
		return "", false
	}
	return g.note(n, mime, Left{At: pathOf(AppendString(nil, key), nil), DataURL: dataURL}), true
}

// frame is an open object or array while walking a value.
type frame struct {
	obj bool
	// key is the raw name of the object's current member, quotes included;
	// nil before the first, or when the name was left out.
	key []byte
	n   int // the entries begun: the array's current index is n-1
}

// coder is what one walk reads with and writes with: the standard's reader
// and writer (jsontext), pooled, so that a reply costs neither of its own.
type coder struct {
	in     bytes.Buffer
	out    bytes.Buffer
	d      jsontext.Decoder
	e      jsontext.Encoder
	frames []frame
}

var coders = sync.Pool{New: func() any { return new(coder) }}

// The walk reads a value the door checked (names once each, Unicode text),
// or with Apply one it checked itself: invalid UTF-8 and a lone surrogate
// read, and come out as U+FFFD. It writes the page's escapes as they came
// (PreserveRawStrings), U+2028 and U+2029 escaped, as AppendString does.
var (
	readOpts  = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	writeOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), jsontext.EscapeForJS(true), jsontext.PreserveRawStrings(true)}
)

// walk appends the valid JSON value v to dst, guarded and compact, and
// reports whether anything was cleaned, cut or left out. base is the raw
// name of the top-level member whose value v is, or nil. The budget
// counts dst from origin.
//
// v is read a token at a time with jsontext's Decoder and written with its
// Encoder, which appends to dst: each string within the limits and with
// nothing to clean goes as it came. Past limits.items entries of a
// container, or past the budget (limits.total, counting what it appends
// from every level), the rest of the container is skipped and a note
// closes it; past the ceiling (limits.total+limits.str) without one, so
// that a value nested thousands deep costs one pass and at most a bracket
// a level more.
func (g Guard) walk(dst, v, base []byte, origin int) ([]byte, bool) {
	if out, changed, ok := g.scalar(dst, v, base); ok {
		return out, changed
	}
	c := coders.Get().(*coder)
	defer func() {
		c.in, c.out = bytes.Buffer{}, bytes.Buffer{}
		c.d.Reset(&c.in)
		c.e.Reset(&c.out)
		c.frames = c.frames[:0]
		coders.Put(c)
	}()
	c.in = *bytes.NewBuffer(v)
	c.out = *bytes.NewBuffer(dst)
	d, e := &c.d, &c.e
	d.Reset(&c.in, readOpts...)
	e.Reset(&c.out, writeOpts...)
	stack := c.frames[:0]
	changed := false
	written := func() int { return len(dst) + int(e.OutputOffset()) - origin }
	// On a read error (the end, or input that is not valid JSON, which
	// only Guard's own tests give it), nothing more is written.
walk:
	for {
		kind := d.PeekKind()
		if kind == 0 {
			break
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if kind == '}' || kind == ']' {
			tok, err := d.ReadToken()
			if err != nil || top == nil {
				break
			}
			e.WriteToken(tok)
			stack = stack[:len(stack)-1]
			continue
		}
		var name []byte // the member's raw name, when an entry of an object
		if top != nil && top.obj {
			var err error
			if name, err = d.ReadValue(); err != nil || len(name) < 2 {
				break
			}
			if reserved(name[1 : len(name)-1]) {
				changed = true
				if d.SkipValue() != nil { // left out, name and value
					break
				}
				continue
			}
		}
		if top != nil {
			// An entry begins: past the count or the budget, the rest of
			// the container is left out, with a note in its place: an
			// element, or a member named "[bridge]".
			if top.n > 0 && !g.Whole && (top.n >= limits.items || written() > limits.total) {
				entries, err := g.skipRest(d, top.obj, name != nil)
				changed = true
				if err != nil {
					break // not valid JSON: skipped nothing, and would meet it again
				}
				if written() <= limits.total+limits.str {
					if top.obj {
						e.WriteToken(jsontext.String("[bridge]"))
					}
					e.WriteToken(jsontext.String(g.notMore(entries, top.obj, Left{At: pathOf(base, stack[:len(stack)-1])})))
				}
				continue
			}
			top.n++
			if name != nil {
				top.key = name
				inner := name[1 : len(name)-1]
				if n, _, _, cut := g.measure(inner); cut {
					top.key = nil
					e.WriteToken(jsontext.String(g.note(n, "", Left{At: pathOf(base, stack[:len(stack)-1]), Name: true})))
					changed = true
				} else if out, ch := cleaned(inner); ch {
					e.WriteToken(jsontext.String(out))
					changed = true
				} else {
					e.WriteValue(name)
				}
				kind = d.PeekKind() // the member's value
			}
		}
		switch kind {
		case '{', '[':
			tok, err := d.ReadToken()
			if err != nil {
				break walk
			}
			e.WriteToken(tok)
			stack = append(stack, frame{obj: kind == '{'})
		case '"':
			raw, err := d.ReadValue()
			if err != nil || len(raw) < 2 {
				break walk
			}
			inner := raw[1 : len(raw)-1]
			if n, dataURL, mime, cut := g.measure(inner); cut {
				e.WriteToken(jsontext.String(g.note(n, mime, Left{At: pathOf(base, stack), DataURL: dataURL})))
				changed = true
				break
			}
			out, ch := cleaned(inner)
			if m, ok := marked(inner, out); ok {
				e.WriteValue(m)
				changed = true
			} else if ch {
				e.WriteToken(jsontext.String(out))
				changed = true
			} else {
				e.WriteValue(raw)
			}
		default:
			raw, err := d.ReadValue()
			if err != nil {
				break walk
			}
			e.WriteValue(raw)
		}
	}
	c.frames = stack
	return bytes.TrimSuffix(c.out.Bytes(), []byte("\n")), changed
}

// scalar appends v when it is a string, a number or a literal that the
// door read (or jsontext checked: Apply), without a reader or a writer:
// most members of a reply are one, and a walk's pooled coder costs more
// than they do. ok is false for a container, which walk reads.
func (g Guard) scalar(dst, v, base []byte) (out []byte, changed, ok bool) {
	if len(v) == 0 {
		return dst, false, false
	}
	switch v[0] {
	case '{', '[', ' ', '\t', '\n', '\r':
		return dst, false, false
	case '"':
		if len(v) < 2 || v[len(v)-1] != '"' {
			return dst, false, false
		}
		inner := v[1 : len(v)-1]
		if n, dataURL, mime, cut := g.measure(inner); cut {
			return AppendString(dst, g.note(n, mime, Left{At: pathOf(base, nil), DataURL: dataURL})), true, true
		}
		s, ch := cleaned(inner)
		if m, ok := marked(inner, s); ok {
			return append(dst, m...), true, true
		}
		if ch {
			return AppendString(dst, s), true, true
		}
	}
	if c := v[len(v)-1]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
		return dst, false, false
	}
	return append(dst, v...), false, true
}

// skipRest skips the rest of the container the reader is in, its current
// member's value first when nameRead (its name read), and says how many
// entries it skipped, or the read error that stopped it (input that is
// not valid JSON), after which the walk must stop: the reader has not
// moved past what it could not read.
func (g Guard) skipRest(d *jsontext.Decoder, obj, nameRead bool) (int, error) {
	entries := 0
	if nameRead {
		if err := d.SkipValue(); err != nil {
			return entries, err
		}
		entries++
	}
	for k := d.PeekKind(); k != '}' && k != ']'; k = d.PeekKind() {
		if k == 0 {
			_, err := d.ReadToken()
			return entries, err
		}
		if obj {
			if _, err := d.ReadValue(); err != nil { // the name
				return entries, err
			}
		}
		if err := d.SkipValue(); err != nil {
			return entries, err
		}
		entries++
	}
	return entries, nil
}

// marked returns the JSON string of a page's string value that, cleaned,
// starts as the guard's notes do ("[bridge"), with that first "[" escaped
// (\u005b): the same value to a JSON reader, but text a model reading the
// JSON cannot take for a note of the bridge's. inner is the raw string's
// contents, c what cleaned returned for them ("" when it did not decode
// them: plain ASCII without escapes). ok is false for any other string.
func marked(inner []byte, c string) ([]byte, bool) {
	v := c
	if v == "" {
		if !bytes.HasPrefix(inner, []byte(reservedPrefix)) {
			return nil, false
		}
		v = string(inner)
	} else if !strings.HasPrefix(v, reservedPrefix) {
		return nil, false
	}
	q := AppendString(nil, v)
	return append([]byte(`"\u005b`), q[2:]...), true
}

// reserved reports whether the contents of a raw JSON string, a member
// name, read as a Reserved name once cleaned.
func reserved(inner []byte) bool {
	if bytes.IndexByte(inner, '\\') < 0 && unprintable.PlainText(inner) {
		return bytes.HasPrefix(inner, []byte(reservedPrefix))
	}
	return Reserved(Clean(unquote(inner, -1))) // "\u005b" and "\u200b[" read as "[" too
}

// cleaned returns the contents of a raw JSON string (no quotes) as Clean
// leaves them, and whether that differs from the string's value. A string
// of plain ASCII without escapes is not decoded. A string that escapes a
// lone surrogate (\ud800) is rewritten, the surrogate as U+FFFD: it is JSON
// by the grammar but no Unicode text, and strict readers of the output
// refuse it.
func cleaned(inner []byte) (string, bool) {
	if bytes.IndexByte(inner, '\\') < 0 && unprintable.PlainText(inner) {
		return "", false
	}
	s := unquote(inner, -1)
	c := Clean(s)
	return c, c != s || !utf8.Valid(inner) || loneSurrogate(inner)
}

// loneSurrogate reports whether a raw JSON string's contents escape a
// UTF-16 surrogate that is not half of a pair (a high \uD800-\uDBFF
// escape followed at once by a low \uDC00-\uDFFF one).
func loneSurrogate(inner []byte) bool {
	half := func(i int) byte { // 'h' high, 'l' low, 0 neither, for the escape at i
		if i+5 >= len(inner) || inner[i] != '\\' || inner[i+1] != 'u' || inner[i+2]|0x20 != 'd' {
			return 0
		}
		switch c := inner[i+3] | 0x20; {
		case c == '8' || c == '9' || c == 'a' || c == 'b':
			return 'h'
		case c >= 'c' && c <= 'f':
			return 'l'
		}
		return 0
	}
	for i := 0; i < len(inner); i++ {
		if inner[i] != '\\' {
			continue
		}
		switch half(i) {
		case 'h':
			if half(i+6) != 'l' {
				return true
			}
			i += 11
		case 'l':
			return true
		default:
			i++ // the escaped character, which may be a backslash
		}
	}
	return false
}

// unquote decodes the contents of a raw JSON string (no quotes), its
// first limit characters when limit is not negative, with jsontext:
// invalid UTF-8 and a lone surrogate read as U+FFFD. Only the piece that
// holds them is decoded, so the head of a string of megabytes costs
// little.
func unquote(inner []byte, limit int) string {
	if limit >= 0 {
		i := 0
		for n := 0; i < len(inner) && n < limit; n++ {
			if inner[i] == '\\' {
				i += escLen(inner[i:])
			} else {
				_, size := utf8.DecodeRune(inner[i:])
				i += size
			}
		}
		inner = inner[:i]
	}
	q := make([]byte, 0, len(inner)+2)
	q = append(append(append(q, '"'), inner...), '"')
	u, _ := jsontext.AppendUnquote(nil, q)
	return string(u)
}

// escLen is the length of the escape at the start of esc, a surrogate
// pair of escapes as one: one character decoded.
func escLen(esc []byte) int {
	if len(esc) < 6 || esc[1] != 'u' {
		return min(2, len(esc))
	}
	if c := esc[2] | 0x20; c == 'd' && len(esc) >= 12 && esc[6] == '\\' && esc[7] == 'u' {
		if h, l := esc[3]|0x20, esc[9]|0x20; (h >= '8' && h <= '9' || h >= 'a' && h <= 'b') && (esc[8]|0x20) == 'd' && l >= 'c' && l <= 'f' {
			return 12
		}
	}
	return 6
}

// measure looks at the contents of a raw JSON string (no quotes) and says
// whether it is over its limit (never, for a Whole guard), and if it is,
// its length in characters, whether it is a data URL, and the data URL's
// MIME type when it is a plain one.
func (g Guard) measure(inner []byte) (n int, dataURL bool, mime string, cut bool) {
	if g.Whole || len(inner) <= limits.dataURL && !g.EveryDataURL {
		return
	}
	head := unquote(inner, 80)
	limit := limits.str
	if dataURL = len(head) >= 5 && strings.EqualFold(head[:5], "data:"); dataURL {
		limit, mime = limits.dataURL, mimeOf(head[5:])
		if g.EveryDataURL {
			limit = 0
		}
	}
	if len(inner) <= limit {
		return
	}
	n = decodedLen(inner)
	return n, dataURL, mime, n > limit
}

// decodedLen counts the characters of a raw JSON string's contents as
// encoding/json decodes them: an escape is one character, a surrogate pair
// of escapes one, and each byte of invalid UTF-8 one (it becomes U+FFFD).
func decodedLen(inner []byte) int {
	n := 0
	for {
		e := bytes.IndexByte(inner, '\\')
		if e < 0 {
			return n + utf8.RuneCount(inner)
		}
		n += utf8.RuneCount(inner[:e]) + 1
		inner = inner[e+escLen(inner[e:]):]
	}
}

// mimeOf returns the MIME type at the start of what follows "data:", in
// lower case, if it is a plain type/subtype (RFC 6838 names) of at most 64
// bytes; otherwise "".
func mimeOf(s string) string {
	m := mimeType.FindString(s)
	if m == "" || len(m) > 64+1 {
		return ""
	}
	return strings.ToLower(m[:len(m)-1])
}

var mimeType = regexp.MustCompile(`^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+[;,]`)

// pathOf renders the path of a value: base (a raw top-level member name, or
// nil), then each open container's current member or index. It renders
// from the innermost segment out and stops at about maxPath bytes, so a
// path thousands of levels deep costs no more than a short one.
func pathOf(base []byte, stack []frame) string {
	if base != nil {
		stack = append([]frame{{obj: true, key: base}}, stack...)
	}
	path, more, n := "", "", 0
	for i := len(stack) - 1; i >= 0; i-- {
		s := strconv.Itoa(stack[i].n - 1)
		if stack[i].obj {
			s = nameSegment(stack[i].key)
		}
		if n += len(s) + 1; n > maxPath && path != "" {
			more = "..."
			break
		}
		if s[0] != '[' {
			s = "." + s
		}
		path = s + path
	}
	return more + strings.TrimPrefix(path, ".")
}

// nameSegment renders the raw member name key as a path segment: the name
// itself if it is a plain identifier, otherwise ["name"] in Go's ASCII
// quoting, so that the note holds no control or invisible character from
// the page, and at most maxKeyShown bytes of it.
func nameSegment(key []byte) string {
	if key == nil {
		return "[name left out]"
	}
	name := unquote(key[1:len(key)-1], maxKeyShown+1)
	if ident.MatchString(name) && len(name) <= maxKeyShown {
		return name
	}
	more := ""
	if len(name) > maxKeyShown {
		name, more = strings.ToValidUTF8(name[:maxKeyShown], ""), "..."
	}
	return "[" + strconv.QuoteToASCII(name) + more + "]"
}

// ident is a member name a path shows as it is.
var ident = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// note words the string that takes the place of one left out, e.g.
// [bridge: a 3,145,728-character string was left out here (at
// members.0.text); <remedy>].
func (g Guard) note(n int, mime string, l Left) string {
	what := "string"
	switch {
	case l.Name:
		what = "member name"
	case l.DataURL && mime != "":
		what = "data URL (" + mime + ")"
	case l.DataURL:
		what = "data URL"
	}
	where := "at " + l.At
	switch {
	case l.Name && l.At == "":
		where = "at the top level"
	case l.Name:
		where = "in " + l.At
	case l.At == "":
		where = "the whole reply"
	}
	return g.say("a "+thousands(n)+"-character "+what+" was left out here ("+where+")", l)
}

// notMore words the note that closes a container whose last entries were
// left out.
func (g Guard) notMore(n int, obj bool, l Left) string {
	what := "items"
	if obj {
		what = "members"
	}
	at := "at the top level"
	if l.At != "" {
		at = "in " + l.At
	}
	return g.say(thousands(n)+" more "+what+" were left out here ("+at+")", l)
}

// say puts a note's words, and the Remedy for l, in the note's brackets.
func (g Guard) say(words string, l Left) string {
	if g.Remedy != nil {
		if r := g.Remedy(l); r != "" {
			words += "; " + r
		}
	}
	return "[bridge: " + words + "]"
}

// thousands formats n with commas: 3145728 is 3,145,728.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// AppendString appends s to dst as a JSON string: the one JSON string
// encoder of what the bridge writes itself, jsontext's, which does not
// escape <, > and &, which are safe in every place this output goes
// (stdout and HTTP bodies of type application/json). Invalid UTF-8 becomes
// U+FFFD; U+2028 and U+2029, which end lines in JavaScript, are escaped.
func AppendString(dst []byte, s string) []byte {
	if plainASCII(s) { // a name or a word: as it is, between quotes
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	at := len(dst)
	dst, _ = jsontext.AppendQuote(dst, strings.ToValidUTF8(s, "\uFFFD"))
	if strings.ContainsAny(s, "\u2028\u2029") {
		out := bytes.ReplaceAll(dst[at:], []byte("\u2028"), []byte(`\u2028`))
		out = bytes.ReplaceAll(out, []byte("\u2029"), []byte(`\u2029`))
		dst = append(dst[:at], out...)
	}
	return dst
}

// plainASCII reports whether s is printable ASCII without a quote or a
// backslash: a JSON string of it is s between quotes.
func plainASCII(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7F || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
