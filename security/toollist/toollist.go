// Package toollist sanitises the tool list a page sends before any of it
// reaches the model (THREAT_MODEL.md T8 site-inject, and T9 input-dos for
// the list). A compromised page can try to smuggle instructions into names,
// titles, descriptions and schemas, shadow the bridge's own tools, or flood
// the client. Sanitize keeps only valid names that do not Fold to a
// reserved one, bounds every part, removes what security/unprintable names
// from every string so nothing is hidden from a reader, keeps only the
// fields MCP defines, drops remote "$ref"s (any URI a validator may
// load), marks the bridge's words ("[bridge") as the gate does, and
// reports what it dropped, bounded.
//
// It reads the list at the door, from the door's own reader, as a stream
// (envelope.DecodeTools), so no byte of it is read twice, and writes each
// tool kept as it reads it, by the one encoder of the MCP exit
// (gate.AppendString's rule): tools/list copies that JSON
// (docs/protocol.md §7.8).
//
// It cannot tell a benign description from a manipulative one: visible
// text within the bounds reaches the model as the page wrote it.
// Annotations are an untrusted page's hints; a client must not base a
// security decision on them.
package toollist

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// Bounds, as in the reference bridge, plus MaxDepth and MaxDropped.
const (
	MaxTools       = 256
	MaxDescription = 8000 // characters; longer ones are cut and end in "…"
	MaxTitle       = 200  // characters
	MaxSchema      = 32 << 10
	MaxList        = 1 << 20 // bytes of the sanitised list as a whole
	// MaxDepth bounds a schema's nesting, so a client's validator cannot be
	// made to recurse deeply.
	MaxDepth = 32
	// MaxDropped bounds how many dropped tools are named in the report; the
	// rest are counted in one final entry with an empty Name.
	MaxDropped = 64
)

// NamePattern is what a page tool's name must match.
var NamePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`)

// maxName is the longest name NamePattern takes.
const maxName = 64

// Tool is a sanitised page tool: the parts the bridge reads, and the
// whole as tools/list writes it.
type Tool struct {
	Name        string
	Title       string // cleaned and cut; "" for none
	Description string // cleaned and cut
	// Args are the names of the input schema's properties, sorted: what a
	// tools/call's arguments are checked against (internal/hub.Hub.ArgNames).
	Args []string
	// JSON is the tool in MCP's shape (name, title, description,
	// inputSchema, annotations), as gate.AppendString writes strings.
	JSON jsontext.Value
}

// MarshalJSON is t.JSON, for a writer of the list that takes values (the
// control plane's GET /tools).
func (t Tool) MarshalJSON() ([]byte, error) { return t.JSON, nil }

// Dropped names a tool left out and why, or, with Part set, a part of a
// listed tool left out. Name is "" for the whole list or for the final
// entry that counts those beyond MaxDropped.
type Dropped struct {
	Name   string `json:"name"`
	Part   string `json:"part,omitempty"`
	Reason string `json:"reason"`
}

// PartAnnotations is Dropped.Part when a listed tool lost annotations;
// PartTitle when it lost its title.
const (
	PartAnnotations = "annotations"
	PartTitle       = "title"
)

var emptySchema = []byte(`{"type":"object"}`)

const NotAList = "the tools field is not a list"

// MoreDropped and MoreParts are the reasons of the entries that count
// what is beyond MaxDropped.
const (
	MoreDropped = "%d more tools dropped"
	MoreParts   = "%d more listed tools lost annotations or a title"
)

// List is what Sanitize made of a frame's "tools" value: the tools kept
// and the report of what it dropped.
type List struct {
	Tools   []Tool
	Dropped []Dropped
}

// reading is the List Sanitize has made of the items read so far, and
// raw (the frame), the reserved names folded, the names kept; what is
// beyond MaxDropped, and the bytes of the list, its brackets to begin with.
type reading struct {
	List
	raw                            []byte
	res, seen                      map[string]bool
	unlisted, unlistedParts, total int
}

// Sanitize is the door's reader (envelope.DecodeTools) of a frame's
// "tools" value, which it turns into out, the list offered to the model;
// reserved are the names and titles of the bridge's own tools
// (internal/mcp.ReservedWords). It reads item by item as they come:
// millions of tiny items cost one pass, not a slice of millions. Every
// item ends up in the list or the report, and anything but a JSON array
// is NotAList, as is no value at all (out until then). What the door
// refuses in a frame it refuses too (its error).
func Sanitize(out *List, reserved []string) func(d *gate.Reader, frame []byte) error {
	*out = List{Dropped: []Dropped{{Reason: NotAList}}}
	res := map[string]bool{}
	for _, r := range reserved {
		res[Fold(r)] = true
	}
	return func(d *gate.Reader, raw []byte) error {
		l := &reading{raw: raw, res: res, seen: map[string]bool{}, total: 2}
		if d.PeekKind() != '[' {
			*out = List{Dropped: []Dropped{{Reason: NotAList}}}
			return gate.Skip(d)
		}
		d.ReadToken()
		for i := 0; d.PeekKind() != ']'; i++ {
			if err := l.item(d, i); err != nil {
				return err
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		if l.unlistedParts > 0 {
			l.Dropped = append(l.Dropped, Dropped{Part: PartAnnotations, Reason: fmt.Sprintf(MoreParts, l.unlistedParts)})
		}
		if l.unlisted > 0 {
			l.Dropped = append(l.Dropped, Dropped{Reason: fmt.Sprintf(MoreDropped, l.unlisted)})
		}
		*out = l.List
		return nil
	}
}

// The members of an item Sanitize reads: none comes twice (the door's
// rule).
var fields = []string{"name", "title", "description", "inputSchema", "annotations"}

// item reads the i-th item and keeps or reports it. Its members come in
// any order, so it is judged at its end.
func (l *reading) item(d *gate.Reader, i int) error {
	if d.PeekKind() != '{' {
		shown := ""
		if !l.full() {
			shown = fmt.Sprintf("#%d", i)
		}
		l.report(shown, "", "not an object")
		return gate.Skip(d)
	}
	d.ReadToken()
	var got [3][]byte // name, title, description: pieces of raw
	var ann []byte
	var annNote annWhy
	s := schema{d: d, out: emptySchema}
	for d.PeekKind() == '"' {
		k, err := gate.Name(d)
		if err != nil {
			return err
		}
		switch f := field(k); {
		case 0 <= f && f < 3:
			got[f], err = l.value(d)
		case f == 3 && d.PeekKind() == '{':
			s.out = nil
			_, err = s.value(0, false)
		case f == 4:
			ann, annNote, err = l.annotations(d)
		default:
			err = gate.Skip(d)
		}
		if err != nil {
			return err
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	// A name is judged as bytes: an item only counted costs no string.
	nb, plain := gate.Plain(got[0])
	if !plain {
		h, _ := gate.Head(got[0], maxName+1) // longer fails NamePattern
		nb = []byte(h)
	}
	var fold [maxName]byte
	shown, why := "", ""
	switch {
	case !NamePattern.Match(nb):
		why = badName
		if !l.full() {
			shown = printable(got[0])
		}
	case l.res[string(foldASCII(fold[:0], nb))]:
		why = "name is reserved by the bridge"
	case l.seen[string(nb)]:
		why = "duplicate name"
	case len(l.Tools) >= MaxTools:
		why = tooMany
	default:
		why = s.why()
	}
	name := ""
	if why == "" || shown == "" && !l.full() {
		name = string(nb)
		shown = cmp.Or(shown, name)
	}
	if why == "" {
		t := Tool{Name: name, Args: s.args, Description: text(got[2], MaxDescription)}
		var titleWhy string
		t.Title, titleWhy = title(got[1], l.res)
		t.JSON = encode(t, s.out, ann)
		if l.total+len(t.JSON)+1 > MaxList {
			why = fmt.Sprintf("the list would exceed %d bytes", MaxList)
		} else {
			l.total += len(t.JSON) + 1
			l.seen[name] = true
			l.Tools = append(l.Tools, t)
			l.report(name, PartTitle, titleWhy)
			l.report(name, PartAnnotations, annNote.String())
		}
	}
	l.report(shown, "", why)
	return nil
}

// Reasons worded once: a list of millions of items costs no words for
// those only counted.
var (
	badName = "name must match " + NamePattern.String()
	tooMany = fmt.Sprintf("more than %d tools", MaxTools)
)

// full reports whether the report names no more drops: the rest are
// counted, so what would name them need not be made.
func (l *reading) full() bool { return len(l.Dropped) >= MaxDropped }

// report records a dropped tool, or a dropped part of a listed one.
func (l *reading) report(name, part, why string) {
	switch {
	case why == "":
	case !l.full():
		l.Dropped = append(l.Dropped, Dropped{Name: name, Part: part, Reason: why})
	case part != "":
		l.unlistedParts++
	default:
		l.unlisted++
	}
}

// encode writes t as tools/list lists it.
func encode(t Tool, schema, annotations []byte) []byte {
	b := gate.AppendString([]byte(`{"name":`), t.Name)
	if t.Title != "" {
		b = gate.AppendString(append(b, `,"title":`...), t.Title)
	}
	if t.Description != "" {
		b = gate.AppendString(append(b, `,"description":`...), t.Description)
	}
	b = append(append(b, `,"inputSchema":`...), schema...)
	if annotations != nil {
		b = append(append(b, `,"annotations":`...), annotations...)
	}
	return append(b, '}')
}

// value reads the next value whole, each name in it checked, as a piece
// of raw (past the colon and space before it).
func (l *reading) value(d *gate.Reader) ([]byte, error) {
	start := d.InputOffset()
	err := gate.Skip(d)
	return bytes.TrimLeft(l.raw[start:d.InputOffset()], " \t\r\n:"), err
}

// field is the index in fields of k, a raw member name, or -1.
func field(k []byte) int {
	p, plain := gate.Plain(k)
	if !plain {
		s, _ := gate.String(k)
		p = []byte(s)
	}
	return slices.IndexFunc(fields, func(f string) bool { return string(p) == f })
}

// foldASCII appends Fold of name, one NamePattern takes (ASCII), to dst.
func foldASCII(dst, name []byte) []byte {
	for _, c := range name {
		switch {
		case c == '_' || c == '-' || c == '.':
		case 'A' <= c && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// Fold maps names a model could confuse to one key: case, the separators
// "_", "-" and ".", and every space (a tab, a no-break space) do not count.
func Fold(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r) || unicode.Is(unicode.Zs, r):
			return -1
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, name)
}

func stringOf(raw []byte) string {
	s, _ := gate.String(raw)
	return s
}

// text is raw, a JSON string, as a model may read it (gate.Unmark: no
// invisible character, no line that starts as the bridge's words), at
// most n characters, a cut marked "…". It decodes no more than 4n
// characters of raw, so a description of megabytes costs n's work; a
// string that long is taken as cut.
func text(raw []byte, n int) string {
	h, _ := gate.Head(raw, 4*n)
	s := gate.Unmark(h)
	if utf8.RuneCountInString(h) < 4*n {
		return cut(s, n)
	}
	r := []rune(s)
	return string(r[:min(len(r), n-1)]) + "…"
}

// cut keeps at most n characters, marking a cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// schema writes an object schema as it reads it: every string cleaned (a
// key needs no cleaning: the door's rule, gate.Name, refuses one that does not
// print or comes twice), "type" made object. A member is written as it
// comes and taken back if it is a remote reference or named as the
// bridge's notes are. Keys keep the page's order, so the same list writes
// the same bytes (internal/hub.Hub.SetTools compares them).
type schema struct {
	d    *gate.Reader
	out  []byte
	args []string // the keys of its "properties"
	// start and rawLen are its offset and length in the input.
	start, rawLen int64
	// deep: nested past MaxDepth. typed: its "type" member was read;
	// other: that was not "object". number: a number a client may not
	// read (1e999 fails Go's encoding/json, as the gate's notes say).
	deep, typed, other, number bool
}

// why says why the schema drops its tool, or "" when it does not;
// s.out is then the schema to list.
func (s *schema) why() string {
	switch { // with no object read, s.out is emptySchema, and passes
	case s.rawLen > MaxSchema:
		return fmt.Sprintf("input schema over %d bytes", MaxSchema)
	case s.deep:
		return fmt.Sprintf("input schema nested more than %d levels", MaxDepth)
	case s.other:
	case s.number:
		return fmt.Sprintf("input schema holds a number over %d characters or past float64's range", gate.MaxNumber)
	case len(s.out) > MaxSchema:
		return fmt.Sprintf("input schema over %d bytes", MaxSchema)
	default:
		return ""
	}
	s.out, s.args = emptySchema, nil
	return ""
}

// value reads the value at level (the schema's own object is 0), appends
// it cleaned, and returns it if a string. props collects an object's keys
// into s.args. Past MaxSchema bytes read (past) or MaxDepth levels the
// tool is dropped, so the rest is skipped: a schema costs no more memory
// than that.
func (s *schema) value(level int, props bool) (string, error) {
	d := s.d
	s.deep = s.deep || level > MaxDepth
	if s.deep || level > 0 && s.past() { // the tool is dropped: skip the rest
		return "", gate.Skip(d)
	}
	switch d.PeekKind() {
	case '[':
		d.ReadToken()
		s.out = append(s.out, '[')
		for n := 0; d.PeekKind() != ']'; n++ {
			if n > 0 && !s.past() {
				s.out = append(s.out, ',')
			}
			if _, err := s.value(level+1, false); err != nil {
				return "", err
			}
		}
		s.out = append(s.out, ']')
		_, err := d.ReadToken()
		return "", err
	case '{':
		return "", s.object(level, props)
	}
	v, err := d.ReadValue()
	switch {
	case err != nil || s.past(): // a string of megabytes is not cleaned
		return "", err
	case v[0] == '"':
		c := gate.Unmark(stringOf(v))
		s.out = gate.AppendString(s.out, c)
		return c, nil
	case v[0] == '-' || '0' <= v[0] && v[0] <= '9':
		s.number = s.number || !gate.Fits(v)
	}
	s.out = append(s.out, v...)
	return "", nil
}

// uriKeys are JSON Schema's keywords whose value is a URI a validator may
// load: one that is not a fragment of the schema itself ("#...") is a page's
// address, and is dropped.
var uriKeys = []string{"$ref", "$dynamicRef", "$schema", "$id"}

func (s *schema) past() bool { return s.d.InputOffset()-s.start > MaxSchema }

func (s *schema) object(level int, props bool) error {
	d := s.d
	d.ReadToken()
	if level == 0 {
		s.start = d.InputOffset() - 1
	}
	s.out = append(s.out, '{')
	written := 0
	for d.PeekKind() == '"' {
		k, err := gate.Name(d)
		if err != nil {
			return err
		}
		if s.past() {
			if err := gate.Skip(d); err != nil {
				return err
			}
			continue
		}
		name, mark := stringOf(k), len(s.out)
		if written > 0 {
			s.out = append(s.out, ',')
		}
		s.out = append(gate.AppendString(s.out, name), ':')
		c, err := s.value(level+1, level == 0 && name == "properties")
		if err != nil {
			return err
		}
		if gate.Reserved(name) || slices.Contains(uriKeys, name) && !strings.HasPrefix(c, "#") {
			s.out = s.out[:mark]
			continue
		}
		if level == 0 && name == "type" {
			s.typed, s.other = true, c != "object"
		}
		written++
		if props {
			s.args = append(s.args, name)
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	if level == 0 {
		if !s.typed && written > 0 {
			s.out = append(s.out, ',')
		}
		if !s.typed {
			s.out = append(s.out, `"type":"object"`...)
		}
		s.rawLen = d.InputOffset() - s.start
		slices.Sort(s.args)
	}
	s.out = append(s.out, '}')
	return nil
}

// hints are MCP's four boolean tool annotations; annotations are written
// in written's order.
var (
	hints   = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
	written = append(slices.Sorted(slices.Values(hints)), "title")
)

// annotations reads an item's annotations: MCP's of the right types, nil
// when none is left, and why anything else was dropped, worded only if
// the tool is kept (annWhy.String): an item dropped past MaxDropped costs
// no words. The tool stays.
func (l *reading) annotations(d *gate.Reader) ([]byte, annWhy, error) {
	var why annWhy
	if k := d.PeekKind(); k != '{' {
		why.not = k != 'n'
		return nil, why, gate.Skip(d)
	}
	d.ReadToken()
	start := d.InputOffset() - 1
	var kept [5]string // in written's order, as JSON
	for d.PeekKind() == '"' {
		k, err := gate.Name(d) // a piece of raw: the door's reader reads it in place
		if err != nil {
			return nil, why, err
		}
		v, err := l.value(d)
		if err != nil {
			return nil, why, err
		}
		i := -1
		if p, plain := gate.Plain(k); plain {
			i = slices.IndexFunc(written, func(w string) bool { return string(p) == w })
		}
		switch {
		case i >= 0 && i < 4 && (string(v) == "true" || string(v) == "false"):
			kept[i] = string(v)
			continue
		case i == 4 && v[0] == '"':
			var t string
			if t, why.title = title(v, l.res); t != "" {
				kept[i] = string(gate.AppendString(nil, t))
			}
			continue
		}
		if why.nbad++; why.nbad <= len(why.bad) {
			why.bad[why.nbad-1] = k
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, why, err
	}
	if d.InputOffset()-start > MaxSchema {
		return nil, annWhy{over: true}, nil
	}
	var b []byte // made only for what is kept
	sep := byte('{')
	for i, v := range kept {
		if v != "" {
			b = append(append(gate.AppendString(append(b, sep), written[i]), ':'), v...)
			sep = ','
		}
	}
	if b == nil {
		return nil, why, nil
	}
	return append(b, '}'), why, nil
}

// annWhy is what annotations dropped: not an object, over MaxSchema, the
// first names (raw) of nbad not kept, and why a title was.
type annWhy struct {
	not, over bool
	bad       [4][]byte
	nbad      int
	title     string
}

func (a annWhy) String() string {
	switch {
	case a.not:
		return "annotations dropped: not an object; the tool is listed without them"
	case a.over:
		return fmt.Sprintf("annotations dropped: over %d bytes; the tool is listed without them", MaxSchema)
	}
	why := ""
	if a.nbad > 0 {
		shown := make([]string, 0, len(a.bad))
		for _, k := range a.bad[:min(a.nbad, len(a.bad))] {
			name, _ := gate.Head(k, 64)
			shown = append(shown, unprintable.Quote(name))
		}
		why = "annotations " + strings.Join(shown, ", ")
		if a.nbad > len(a.bad) {
			why += fmt.Sprintf(" and %d more", a.nbad-len(a.bad))
		}
		why += " dropped: only the boolean hints " + strings.Join(hints, ", ") + " and a string title are kept; the tool is listed without them"
	}
	if a.title != "" {
		why = strings.TrimPrefix(why+"; annotations "+a.title, "; ")
	}
	return why
}

// title returns a tool's title cleaned and cut, or none if it folds to a
// reserved name ("Connection status" is connection_status).
func title(raw []byte, reserved map[string]bool) (string, string) {
	if len(raw) == 0 || gate.IsNull(raw) {
		return "", ""
	}
	if raw[0] != '"' {
		return "", "title dropped: not a string; the tool is listed without it"
	}
	s := text(raw, MaxTitle)
	if reserved[Fold(s)] {
		return "", "title dropped: it names one of the bridge's own tools; the tool is listed without it"
	}
	return s, ""
}

// printable renders a rejected name for a report, bounded and quoted, so
// it cannot forge log lines or hide characters.
func printable(raw []byte) string {
	s, ok := gate.Head(raw, 64)
	if !ok && !gate.IsNull(raw) {
		s = string(raw[:min(len(raw), 64)])
	}
	return unprintable.Quote(s[:min(len(s), 64)])
}
