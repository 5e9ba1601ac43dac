// Package toollist sanitises the tool list a page sends before any of it
// reaches the model (THREAT_MODEL.md T8 site-inject, and T9 input-dos for
// the list). A compromised page can try to smuggle instructions into names,
// titles, descriptions and schemas, shadow the bridge's own tools, or flood
// the client. Sanitize keeps only valid names that do not Fold to a
// reserved one, bounds every part, removes what security/unprintable names
// from every string so nothing is hidden from a reader, keeps only the
// fields MCP defines, drops remote "$ref"s, and reports what it dropped,
// bounded.
//
// It cannot tell a benign description from a manipulative one: visible
// text within the bounds reaches the model as the page wrote it.
// Annotations are an untrusted page's hints; a client must not base a
// security decision on them.
package toollist

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
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

// Tool is a sanitised page tool, in MCP's shape.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

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

var emptySchema = json.RawMessage(`{"type":"object"}`)

const NotAList = "the tools field is not a list"

// MoreDropped and MoreParts are the reasons of the entries that count
// what is beyond MaxDropped.
const (
	MoreDropped = "%d more tools dropped"
	MoreParts   = "%d more listed tools lost annotations or a title"
)

// Sanitize turns a page frame's "tools" value into the list offered to the
// model; reserved are the bridge's own tool names. Every item ends up in
// the result or the report.
func Sanitize(raw json.RawMessage, reserved []string) ([]Tool, []Dropped) {
	if jsontext.Value(raw).Kind() != '[' || !gate.Valid(raw) {
		return nil, []Dropped{{Reason: NotAList}}
	}
	var tools []Tool
	var dropped []Dropped
	unlisted, unlistedParts, total := 0, 0, 2 // total: bytes of the list, its brackets to begin with
	seen, res := map[string]bool{}, map[string]bool{}
	for _, r := range reserved {
		res[Fold(r)] = true
	}
	// report records a dropped tool, or a dropped part of a listed one.
	report := func(name, part, why string) {
		switch {
		case why == "":
		case len(dropped) < MaxDropped:
			dropped = append(dropped, Dropped{Name: name, Part: part, Reason: why})
		case part != "":
			unlistedParts++
		default:
			unlisted++
		}
	}
	// Walk the items in place: millions of tiny items cost one pass, not a
	// slice of millions.
	i := -1
	gate.Items(raw, func(it []byte) bool {
		i++
		fields := map[string][]byte{} // the item's members, read once
		gate.Each(it, func(k string, v []byte) bool {
			if _, dup := fields[k]; !dup {
				fields[k] = v
			}
			return true
		})
		field := func(name string) []byte { return fields[name] }
		name, _ := gate.String(field("name"))
		t := Tool{Name: name, InputSchema: emptySchema}
		schema := field("inputSchema")
		shown, why := name, ""
		switch {
		case it[0] != '{':
			shown, why = fmt.Sprintf("#%d", i), "not an object"
		case !NamePattern.MatchString(name):
			shown, why = printable(field("name")), "name must match "+NamePattern.String()
		case res[Fold(name)]:
			why = "name is reserved by the bridge"
		case seen[name]:
			why = "duplicate name"
		case len(tools) >= MaxTools:
			why = fmt.Sprintf("more than %d tools", MaxTools)
		case isObject(schema) && len(schema) > MaxSchema:
			why = fmt.Sprintf("input schema over %d bytes", MaxSchema)
		case isObject(schema):
			var err error
			if t.InputSchema, err = cleanSchema(schema); err != nil {
				why = "input schema " + err.Error()
			}
		}
		if why == "" {
			var titleWhy, partWhy string
			t.Title, titleWhy = title(field("title"), res)
			t.Description = cut(gate.Clean(stringOf(field("description"))), MaxDescription)
			t.Annotations, partWhy = annotations(field("annotations"), res)
			b, _ := json.Marshal(t) // never fails: strings, and JSON that was checked
			if total+len(b)+1 > MaxList {
				why = fmt.Sprintf("the list would exceed %d bytes", MaxList)
			} else {
				total += len(b) + 1
				seen[name] = true
				tools = append(tools, t)
				report(name, PartTitle, titleWhy)
				report(name, PartAnnotations, partWhy)
			}
		}
		report(shown, "", why)
		return true
	})
	if unlistedParts > 0 {
		dropped = append(dropped, Dropped{Part: PartAnnotations, Reason: fmt.Sprintf(MoreParts, unlistedParts)})
	}
	if unlisted > 0 {
		dropped = append(dropped, Dropped{Reason: fmt.Sprintf(MoreDropped, unlisted)})
	}
	return tools, dropped
}

// Fold maps names a model could confuse to one key: case and the
// separators "_", "-", "." and " " do not count.
func Fold(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
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

// cut keeps at most n characters, marking a cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func isObject(raw []byte) bool { return len(raw) > 0 && raw[0] == '{' }

// cleanSchema cleans every key and string of an object schema, drops
// remote references, makes it of type object, and re-encodes it.
func cleanSchema(raw json.RawMessage) (json.RawMessage, error) {
	c, ok := clean(raw, MaxDepth)
	if !ok {
		return nil, fmt.Errorf("nested more than %d levels", MaxDepth)
	}
	m := c.(map[string]any)
	if t, ok := m["type"]; !ok {
		m["type"] = "object"
	} else if t != "object" {
		return emptySchema, nil
	}
	b, _ := json.Marshal(m) // never fails: strings, and pieces of checked JSON
	if len(b) > MaxSchema {
		return nil, fmt.Errorf("over %d bytes", MaxSchema)
	}
	return b, nil
}

// clean returns raw as a value with every key and string cleaned and
// remote references dropped, or false if it nests more than depth levels.
func clean(raw []byte, depth int) (any, bool) {
	if depth < 0 {
		return nil, false
	}
	switch jsontext.Value(raw).Kind() {
	case '"':
		return gate.Clean(stringOf(raw)), true
	case '[':
		out := []any{}
		ok := true
		gate.Items(raw, func(e []byte) bool {
			var c any
			c, ok = clean(e, depth-1)
			out = append(out, c)
			return ok
		})
		return out, ok
	case '{':
		// Each key is judged as it reads once cleaned, so "$re\u200bf" is a
		// $ref.
		x := map[string][]byte{}
		gate.Each(raw, func(k string, v []byte) bool {
			if _, dup := x[k]; !dup {
				x[k] = v
			}
			return true
		})
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			c, ok := clean(x[k], depth-1)
			if !ok {
				return nil, false
			}
			name := gate.Clean(k)
			if _, taken := out[name]; taken {
				continue
			}
			if ref, _ := c.(string); (name == "$ref" || name == "$dynamicRef") && !strings.HasPrefix(ref, "#") {
				continue
			}
			out[name] = c
		}
		return out, true
	}
	return json.RawMessage(raw), true
}

// hints are MCP's four boolean tool annotations.
var hints = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// annotations keeps MCP's tool annotations of the right types, nil when
// none is left, and says why anything else was dropped; the tool stays.
func annotations(raw []byte, reserved map[string]bool) (json.RawMessage, string) {
	if len(raw) == 0 || gate.IsNull(raw) {
		return nil, ""
	}
	if !isObject(raw) {
		return nil, "annotations dropped: not an object; the tool is listed without them"
	}
	if len(raw) > MaxSchema {
		return nil, fmt.Sprintf("annotations dropped: over %d bytes; the tool is listed without them", MaxSchema)
	}
	out := map[string]any{}
	var bad []string
	gate.Each(raw, func(name string, v []byte) bool {
		switch {
		case slices.Contains(hints, name) && (string(v) == "true" || string(v) == "false"):
			out[name] = string(v) == "true"
		case name == "title" && v[0] == '"':
			if s, why := title(v, reserved); why != "" {
				bad = append(bad, name)
			} else if s != "" {
				out["title"] = s
			}
		default:
			bad = append(bad, name)
		}
		return true
	})
	why := ""
	if len(bad) > 0 {
		shown := make([]string, 0, 4)
		for _, b := range bad[:min(len(bad), 4)] {
			shown = append(shown, unprintable.Quote(b[:min(len(b), 64)]))
		}
		why = "annotations " + strings.Join(shown, ", ")
		if len(bad) > 4 {
			why += fmt.Sprintf(" and %d more", len(bad)-4)
		}
		why += " dropped: only the boolean hints " + strings.Join(hints, ", ") + " and a string title are kept; the tool is listed without them"
	}
	if len(out) == 0 {
		return nil, why
	}
	b, _ := json.Marshal(out) // never fails: booleans and a string
	return b, why
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
	s := cut(gate.Clean(stringOf(raw)), MaxTitle)
	if reserved[Fold(s)] {
		return "", "title dropped: it names one of the bridge's own tools; the tool is listed without it"
	}
	return s, ""
}

// printable renders a rejected name for a report, bounded and quoted, so
// it cannot forge log lines or hide characters.
func printable(raw []byte) string {
	s, ok := gate.String(raw)
	if !ok && !gate.IsNull(raw) {
		s = string(raw)
	}
	return unprintable.Quote(s[:min(len(s), 64)])
}
