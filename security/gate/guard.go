// Package gate is the one gate between a page and the model: every string
// from a page (or a leader relaying one) that a model reads passes through
// it (THREAT_MODEL.md T8 site-inject, T9 input-dos: the model's context
// and the bridge's memory).
//
// Guard copies a JSON value in one pass: invisible characters removed from
// every string and name (security/unprintable), a string too long to be of
// use (a data URL over MaxDataURL, anything over MaxString) replaced by a
// note that says how to get it whole, at most MaxItems entries per
// container, MaxGuarded bytes in all, and a page's string that starts as
// a note does ("[bridge") with that "[" escaped. Text cleans and bounds a
// whole text the model reads; Quote shows a page's or a file's name.
//
// A limit counts characters as encoding/json decodes them. A raw string is
// never shorter than its decoded form, so one whose raw form is within a
// limit is passed uncounted. A member the door saw nothing in to change
// (Seen) is written as it came, without reading it again.
//
// The bytes of the whole hold by construction, whatever the nesting or
// the escapes (MaxGuarded): every entry, the first of a container
// included, is begun only within MaxTotal bytes, the brackets still to
// close counted; a string of over MaxDataURL bytes is written (as it
// came, or cleaned) only if it ends within the ceiling, MaxTotal+MaxString
// bytes, else it is a note; a note of what a container left out only
// within the ceiling too.
//
// Not covered: the MCP reply's top-level image (an image block, checked by
// files.ImageType), and the visible words, which the model must treat as
// data (T8).
package gate

import (
	"bytes"
	"iter"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// The limits, in characters.
const (
	// MaxDataURL is room for a tiny icon; a longer data URL is base64 a
	// model can neither see nor use, at a token per three or four bytes.
	MaxDataURL = 2048
	// MaxString is some 25,000 tokens, more than any text a page has reason
	// to send. It must exceed MaxDataURL, the fast path's only threshold.
	MaxString = 100_000
	// MaxItems is about as many entries as a model can take in.
	MaxItems = 2_000
	// MaxTotal is in bytes: no entry is begun past it. The entry begun
	// last may run on to the ceiling, MaxTotal+MaxString bytes, and past
	// it by no more than maxOver (MaxGuarded).
	MaxTotal = 2 * MaxString
	// MaxNumber is in bytes: JavaScript writes no number longer than 24,
	// but JSON sets no bound, so without one a page's number could be
	// megabytes.
	MaxNumber = 64
)

// limits are shrunk by tests so that short inputs reach the slow paths.
var limits = struct{ dataURL, str, items, total int }{MaxDataURL, MaxString, MaxItems, MaxTotal}

// MaxGuarded bounds, in bytes, what a Guard writes of one value (for
// AppendObject, before the bridge's own members): the ceiling, and past
// it maxOver (AppendObject's closing note and bracket included).
const MaxGuarded = MaxTotal + MaxString + maxOver

// maxOver is what may pass the ceiling: the last entry begun within
// MaxTotal, of a name and a value each at most maxElement bytes, and the
// note of what its container left out, then AppendObject's.
const maxOver = 4*maxElement + 64

// maxElement bounds a string written without the ceiling's check: one of
// at most MaxDataURL raw bytes, each invalid byte of which Clean makes a
// U+FFFD of three; a note (maxNote); a number (MaxNumber).
const maxElement = 3*MaxDataURL + 2

// maxNote bounds a note as JSON: its words, a path of about maxPath bytes
// and one segment of at most maxKeyShown characters quoted in ASCII, and
// a remedy of at most maxRemedy bytes, every byte of it escaped at worst.
const maxNote = 4 << 10

// maxRemedy bounds a Remedy's words in bytes, so a note's length is the
// gate's own.
const maxRemedy = 512

// maxPath bounds a note's path in bytes; a longer one keeps its end, the
// most specific part.
const maxPath = 200

const maxKeyShown = 48

// Left says what a note stands for, so that a Remedy can word how to get it.
type Left struct {
	// At is the path ("members.0.text", `a["b.c"]`, "" for the value
	// itself); for a member name, the path of its object.
	At      string
	DataURL bool
	Name    bool
	Number  bool
}

type Guard struct {
	// Remedy returns the end of a note: how to get the string whole, in
	// one line without a final period, of at most maxRemedy bytes (the
	// rest is cut).
	Remedy func(Left) string
	// Whole only cleans: the shell's --raw, asked for by name after a note.
	Whole bool
	// EveryDataURL notes every data URL, however short: call_to_files'
	// files are on disk, and no byte of them need reach the model.
	EveryDataURL bool
}

// AppendObject appends the members of a top-level object to dst as one
// JSON object, guarded as walk guards the entries of a nested one: before
// each member, past MaxItems members or past the budget (MaxTotal bytes of
// the object so far), the rest are left out and a member named "[bridge]"
// says how many; the object is at most MaxGuarded bytes but for own. A
// member whose name is Reserved is left out.
// It is the one way a reply's members reach a model or the shell's
// stdout (internal/mcp's toolResponse, internal/cli's emit): a member at a
// time, a page's reply of thousands of members each just under MaxString
// would pass every per-string bound and none of the whole.
//
// own, the bridge's members (what --out saved, protocol.md §4.4), follow,
// guarded but never left out, whatever members spent. A value the door saw
// nothing in to change (Value.Seen) is copied, not read.
func (g Guard) AppendObject(dst []byte, members, own iter.Seq2[string, Value]) []byte {
	origin := len(dst)
	dst = append(dst, '{')
	n, left := 0, 0
	member := func(key string, value Value, origin int) {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = g.appendMember(dst, key, value, origin)
		n++
	}
	for key, value := range members {
		if Reserved(Clean(key)) {
			continue
		}
		if left > 0 || !g.Whole && (n >= limits.items || len(dst)-origin > limits.total) {
			left++
			continue
		}
		member(key, value, origin)
	}
	if left > 0 {
		dst = append(dst, ',')
		dst = AppendString(dst, "[bridge]")
		dst = append(dst, ':')
		dst = AppendString(dst, g.notMore(left, true, Left{}))
	}
	if own != nil {
		for key, value := range own {
			member(key, value, len(dst))
		}
	}
	return append(dst, '}')
}

// Value is a top-level member's value as AppendObject takes it: its raw
// bytes, valid JSON, and what the door saw in them (Seen).
type Value struct {
	Raw  []byte
	Seen Seen
}

// appendMember appends the member key:value of a top-level object to dst,
// both guarded. The budget counts dst from origin, the object's start.
func (g Guard) appendMember(dst []byte, key string, value Value, origin int) []byte {
	k := AppendString(make([]byte, 0, len(key)+2), key)
	if v, _, o := g.str(k, ceiling()-(len(dst)-origin)); o != nil {
		dst = AppendString(dst, g.note(o.n, Left{Name: true}))
	} else {
		dst = append(dst, v...)
	}
	dst = append(dst, ':')
	if g.verbatim(value.Seen, len(dst)-origin+len(value.Raw)) {
		return append(dst, value.Raw...)
	}
	out, _ := g.walk(dst, value.Raw, k, origin)
	return out
}

// Reserved reports whether a cleaned member name starts "[bridge", in any
// case: a page's member of such a name is left out, so that none poses as
// a note.
func Reserved(name string) bool { return startsReserved(name) }

const reservedPrefix = "[bridge"

// startsReserved reports whether s starts as the bridge's words do:
// "[bridge" in any ASCII case, which a model reads alike.
func startsReserved[T string | []byte](s T) bool {
	if len(s) < len(reservedPrefix) {
		return false
	}
	for i := range len(reservedPrefix) {
		if s[i]|0x20 != reservedPrefix[i]|0x20 {
			return false
		}
	}
	return true
}

// Apply returns doc guarded and compact, or doc itself when nothing
// changed or it is not valid JSON.
func (g Guard) Apply(doc []byte) ([]byte, bool) {
	lexed()
	if !jsontext.Value(doc).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return doc, false
	}
	out, changed := g.walk(make([]byte, 0, min(len(doc), limits.total+limits.str)), doc, nil, 0)
	if !changed {
		return doc, false
	}
	return out, true
}

// Note returns the note (not JSON) that replaces v, the raw string value of
// the top-level member key, if v is over a limit.
func (g Guard) Note(key string, v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	n, dataURL, cut := g.measure(v[1:len(v)-1], math.MaxInt)
	if !cut {
		return "", false
	}
	return g.note(n, Left{At: pathOf(AppendString(nil, key), nil), DataURL: dataURL}), true
}

type frame struct {
	obj bool
	// key is the current member's raw name; nil when it was left out.
	key []byte
	n   int // the entries begun: the array's current index is n-1
}

// coder is pooled, so that a reply costs no reader or writer of its own.
type coder struct {
	in     bytes.Buffer
	out    bytes.Buffer
	d      jsontext.Decoder
	e      jsontext.Encoder
	frames []frame
}

var coders = sync.Pool{New: func() any { return new(coder) }}

// Apply's input may hold invalid UTF-8 or a lone surrogate: read, and
// written as U+FFFD. The page's escapes are kept (PreserveRawStrings);
// U+2028 and U+2029 escaped, as AppendString does.
var (
	readOpts  = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	writeOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), jsontext.EscapeForJS(true), jsontext.PreserveRawStrings(true)}
)

// walk appends v guarded and reports whether anything changed. base is the
// raw name of the top-level member v is the value of, or nil; the budget
// counts dst from origin, and a bracket for each container still open.
// Past the ceiling a container closes without a note, so a value nested
// thousands deep costs one pass and a bracket a level.
func (g Guard) walk(dst, v, base []byte, origin int) ([]byte, bool) {
	if out, changed, ok := g.scalar(dst, v, base, ceiling()-(len(dst)-origin)); ok {
		return out, changed
	}
	lexed()
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
	// used counts what is written and the brackets that will close it.
	used := func() int { return len(dst) + int(e.OutputOffset()) - origin + len(stack) }
	// room is what is left before the ceiling for a string of raw bytes;
	// one of at most MaxDataURL bytes is not measured (str).
	room := func(raw []byte) int {
		if len(raw) <= limits.dataURL+2 {
			return math.MaxInt
		}
		return ceiling() - used()
	}
	// On a read error (the end, or invalid JSON) nothing more is written.
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
			if !g.Whole && (top.n >= limits.items || used() > limits.total) {
				entries, err := g.skipRest(d, top.obj, name != nil)
				changed = true
				if err != nil {
					break // not valid JSON: skipped nothing, and would meet it again
				}
				if used() <= ceiling() {
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
				v, ch, o := g.str(name, room(name))
				if o != nil {
					top.key = nil
					e.WriteToken(jsontext.String(g.note(o.n, Left{At: pathOf(base, stack[:len(stack)-1]), Name: true})))
					ch = true
				} else {
					e.WriteValue(v)
				}
				changed = changed || ch
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
			v, ch, o := g.str(raw, room(raw))
			if o != nil {
				e.WriteToken(jsontext.String(g.note(o.n, Left{At: pathOf(base, stack), DataURL: o.dataURL})))
				ch = true
			} else {
				e.WriteValue(v)
			}
			changed = changed || ch
		default:
			raw, err := d.ReadValue()
			if err != nil {
				break walk
			}
			if note, cut := g.number(raw, base, stack); cut {
				e.WriteToken(jsontext.String(note))
				changed = true
				break
			}
			e.WriteValue(raw)
		}
	}
	c.frames = stack
	return bytes.TrimSuffix(c.out.Bytes(), []byte("\n")), changed
}

// scalar appends a string, number or literal without a coder, which costs
// more than most members of a reply; ok is false for a container or a
// value with spaces around it, which walk reads. room is the bytes left
// before the ceiling.
func (g Guard) scalar(dst, v, base []byte, room int) (out []byte, changed, ok bool) {
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
		s, ch, o := g.str(v, room)
		if o != nil {
			return AppendString(dst, g.note(o.n, Left{At: pathOf(base, nil), DataURL: o.dataURL})), true, true
		}
		return append(dst, s...), ch, true
	}
	if c := v[len(v)-1]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
		return dst, false, false
	}
	if note, cut := g.number(v, base, nil); cut {
		return AppendString(dst, note), true, true
	}
	return append(dst, v...), false, true
}

// number returns the note that replaces v, a number literal that is not
// Fits.
func (g Guard) number(v, base []byte, stack []frame) (string, bool) {
	if g.Whole || v[0] != '-' && (v[0] < '0' || v[0] > '9') || Fits(v) {
		return "", false
	}
	n := len(v)
	if n <= MaxNumber {
		n = -1
	}
	return g.note(n, Left{At: pathOf(base, stack), Number: true}), true
}

// Fits reports whether v, a JSON number literal, is within MaxNumber bytes
// (its bytes are its characters) and float64's range: 1e999 is not, which
// Go's encoding/json refuses in a whole document and JavaScript reads as
// Infinity. Only an exponent reaches that range in MaxNumber bytes, so
// most numbers are not parsed.
func Fits(v []byte) bool {
	if len(v) > MaxNumber {
		return false
	}
	if !bytes.ContainsAny(v, "eE") {
		return true
	}
	_, err := strconv.ParseFloat(string(v), 64)
	return err == nil
}

// skipRest skips the rest of the container and counts the entries. After
// an error the walk must stop: the reader has not moved past it.
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

// marked returns a page's string that starts as a note does with that "["
// escaped (\u005b): the same value to a JSON reader, but no text a model
// can take for the bridge's note. c is what cleaned returned for inner.
func marked(inner []byte, c string) ([]byte, bool) {
	v := c
	if v == "" {
		if !startsReserved(inner) {
			return nil, false
		}
		v = string(inner)
	} else if !startsReserved(v) {
		return nil, false
	}
	q := AppendString(nil, v)
	return append([]byte(`"`+markEscape), q[2:]...), true
}

// markEscape is what a page's "[" becomes where it would start the
// bridge's words ("[bridge"): JSON's escape of it, so the same value to a
// JSON reader.
const markEscape = `\u005b`

// Unmark returns a page's text, cleaned (Clean), with every line that
// starts as the bridge's words do ("[bridge") starting markEscape instead
// of "[": marked's rule, for a page's text shown as text (a reply's say
// line), so that no line of it reads as the bridge's (docs/protocol.md
// §3.5).
func Unmark(text string) string {
	s := Clean(text)
	if !strings.Contains(s, "[") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if startsReserved(l) {
			lines[i] = markEscape + l[1:]
		}
	}
	return strings.Join(lines, "\n")
}

func reserved(inner []byte) bool {
	if bytes.IndexByte(inner, '\\') < 0 && unprintable.PlainText(inner) {
		return startsReserved(inner)
	}
	return Reserved(Clean(unquote(inner, -1))) // "\u005b" and "\u200b[" read as "[" too
}

// cleaned returns the raw string contents inner as Clean leaves them, and
// whether they changed. Invalid UTF-8 and a lone surrogate escape, which
// jsontext's unquoting reports, are rewritten as U+FFFD: strict readers of
// the output refuse them.
func cleaned(inner []byte) (string, bool) {
	if bytes.IndexByte(inner, '\\') < 0 && visible(inner) {
		return "", false
	}
	u, err := jsontext.AppendUnquote(nil, quoted(inner))
	s := string(u)
	c := Clean(s)
	return c, c != s || err != nil
}

// visible reports whether Clean leaves inner, raw string contents without
// escapes, as they are: no character it removes, nor U+FFFD, which is
// what invalid UTF-8 reads as. Visible text in any script costs no copy.
func visible(inner []byte) bool {
	if unprintable.PlainText(inner) {
		return true
	}
	for _, r := range string(inner) {
		if r == utf8.RuneError || unprintable.Is(r) {
			return false
		}
	}
	return true
}

// unquote decodes the first limit characters of inner (all when limit is
// negative), so the head of a string of megabytes costs little.
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
	u, _ := jsontext.AppendUnquote(nil, quoted(inner))
	return string(u)
}

// quoted is inner between quotes: the raw JSON string again.
func quoted(inner []byte) []byte {
	q := make([]byte, 0, len(inner)+2)
	return append(append(append(q, '"'), inner...), '"')
}

// escLen is the length of the escape at esc's start; a surrogate pair of
// escapes is one.
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

// ceiling is the bytes no string of over MaxDataURL bytes, nor a note of
// what a container left out, may end past.
func ceiling() int { return limits.total + limits.str }

// over is a string left out: its length in characters and whether it is
// a data URL. A note names no type a data URL claims: those are the
// page's words, and what the bytes are only the file's save says.
type over struct {
	n       int
	dataURL bool
}

// str returns raw, a JSON string (a name or a value), as it is to be
// written: as it came, cleaned, or marked, and whether it changed; or,
// when it is over its limit, or of over MaxDataURL raw bytes and longer as
// written than room, what the note in its place says.
func (g Guard) str(raw []byte, room int) ([]byte, bool, *over) {
	inner := raw[1 : len(raw)-1]
	if n, dataURL, cut := g.measure(inner, room); cut {
		return nil, true, &over{n, dataURL}
	}
	out, ch := cleaned(inner)
	v := raw
	if m, ok := marked(inner, out); ok {
		v, ch = m, true
	} else if ch {
		v = AppendString(nil, out)
	}
	// Cleaned, a string of invalid bytes grows (each a U+FFFD).
	if ch && !g.Whole && len(inner) > limits.dataURL && len(v) > room {
		return nil, true, &over{n: decodedLen(inner)}
	}
	return v, ch, nil
}

// measure says whether inner is over its limit, or of over MaxDataURL
// bytes and more than room with its quotes, and, if so, its length in
// characters and whether it is a data URL.
func (g Guard) measure(inner []byte, room int) (n int, dataURL, cut bool) {
	if g.Whole || len(inner) <= limits.dataURL && !g.EveryDataURL {
		return
	}
	head := unquote(inner, 5)
	limit := limits.str
	if dataURL = len(head) >= 5 && strings.EqualFold(head[:5], "data:"); dataURL {
		limit = limits.dataURL
		if g.EveryDataURL {
			limit = 0
		}
	}
	fits := len(inner)+2 <= room || len(inner) <= limits.dataURL
	if len(inner) <= limit && fits {
		return
	}
	n = decodedLen(inner)
	return n, dataURL, n > limit || !fits
}

// decodedLen counts characters as encoding/json decodes them: each byte of
// invalid UTF-8 becomes one U+FFFD.
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

// pathOf renders from the innermost segment out and stops at about maxPath
// bytes, so a path thousands of levels deep costs no more than a short one.
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

// nameSegment quotes a name that is no plain identifier in Go's ASCII
// quoting, so that a note holds no invisible character from the page.
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

var ident = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

func (g Guard) note(n int, l Left) string {
	what := "string"
	switch {
	case l.Name:
		what = "member name"
	case l.Number:
		what = "number"
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
	words := "a " + thousands(n) + "-character " + what
	if n < 0 {
		words = "a number past float64's range"
	}
	return g.say(words+" was left out here ("+where+")", l)
}

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

func (g Guard) say(words string, l Left) string {
	if g.Remedy != nil {
		if r := g.Remedy(l); r != "" {
			if len(r) > maxRemedy {
				r = cutAt(r, maxRemedy)
			}
			words += "; " + r
		}
	}
	return "[bridge: " + words + "]"
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// AppendString appends s as Marshal writes a string, byte for byte, without
// its reflection: <, > and & stay, safe on stdout and in application/json
// bodies; U+2028 and U+2029, which end lines in JavaScript, are escaped;
// each byte of invalid UTF-8 is a U+FFFD.
func AppendString(dst []byte, s string) []byte {
	if plainASCII(s) { // a name or a word: as it is, between quotes
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	at := len(dst)
	dst, _ = jsontext.AppendQuote(dst, s) // invalid UTF-8 reported, and written as U+FFFD
	if strings.ContainsAny(s, "\u2028\u2029") {
		out := bytes.ReplaceAll(dst[at:], []byte("\u2028"), []byte(`\u2028`))
		out = bytes.ReplaceAll(out, []byte("\u2029"), []byte(`\u2029`))
		dst = append(dst[:at], out...)
	}
	return dst
}

// plainASCII reports whether a JSON string of s is s between quotes.
func plainASCII(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7F || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
