// Package toollist sanitises the tool list a page sends before any of it
// reaches the model (THREAT_MODEL.md T-PAGE-INJECT, T-DOS-TOOLS).
//
// The page is a web site: compromised or XSS'd, it can try to smuggle
// instructions into tool names and descriptions, shadow the bridge's own
// tools, or flood the client with a huge list. Sanitize keeps only tools
// whose names match NamePattern, drops duplicates and names the bridge
// reserves, bounds counts and sizes, keeps only the fields MCP defines for a
// tool, and reports each dropped tool with its reason.
//
// It cannot tell a benign description from a manipulative one: text within
// the bounds reaches the model as the page wrote it.
package toollist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"unicode/utf8"
)

// Bounds, as in the reference bridge.
const (
	MaxTools       = 256
	MaxDescription = 8000 // characters; longer ones are cut and end in "…"
	MaxTitle       = 200  // characters
	MaxSchema      = 32 << 10
	MaxList        = 1 << 20 // bytes of the sanitised list as a whole
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

// Dropped names a tool left out and why.
type Dropped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

type rawTool struct {
	Name        json.RawMessage `json:"name"`
	Title       json.RawMessage `json:"title"`
	Description json.RawMessage `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations json.RawMessage `json:"annotations"`
}

var emptySchema = json.RawMessage(`{"type":"object"}`)

// Sanitize turns the value of a page frame's "tools" field into the list
// offered to the model. reserved are the bridge's own tool names.
func Sanitize(raw json.RawMessage, reserved []string) ([]Tool, []Dropped) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, []Dropped{{Name: "", Reason: "the tools field is not a list"}}
	}
	var (
		tools   []Tool
		dropped []Dropped
		seen    = map[string]bool{}
		total   = 2 // the brackets of the list
	)
	for _, r := range reserved {
		seen[r] = true
	}
	for i, it := range items {
		var rt rawTool
		if err := json.Unmarshal(it, &rt); err != nil {
			dropped = append(dropped, Dropped{Name: fmt.Sprintf("#%d", i), Reason: "not an object"})
			continue
		}
		var name string
		if json.Unmarshal(rt.Name, &name) != nil || !NamePattern.MatchString(name) {
			dropped = append(dropped, Dropped{Name: printable(rt.Name), Reason: "name must match " + NamePattern.String()})
			continue
		}
		if seen[name] {
			reason := "duplicate name"
			for _, r := range reserved {
				if r == name {
					reason = "name is reserved by the bridge"
				}
			}
			dropped = append(dropped, Dropped{Name: name, Reason: reason})
			continue
		}
		if len(tools) >= MaxTools {
			dropped = append(dropped, Dropped{Name: name, Reason: fmt.Sprintf("more than %d tools", MaxTools)})
			continue
		}
		t := Tool{Name: name}
		t.Title = cut(stringOf(rt.Title), MaxTitle)
		t.Description = cut(stringOf(rt.Description), MaxDescription)
		t.InputSchema = emptySchema
		if isObject(rt.InputSchema) {
			if len(rt.InputSchema) > MaxSchema {
				dropped = append(dropped, Dropped{Name: name, Reason: fmt.Sprintf("input schema over %d bytes", MaxSchema)})
				continue
			}
			t.InputSchema = compact(rt.InputSchema)
		}
		if isObject(rt.Annotations) && len(rt.Annotations) <= MaxSchema {
			t.Annotations = compact(rt.Annotations)
		}
		b, _ := json.Marshal(t)
		if total+len(b)+1 > MaxList {
			dropped = append(dropped, Dropped{Name: name, Reason: fmt.Sprintf("the list would exceed %d bytes", MaxList)})
			continue
		}
		total += len(b) + 1
		seen[name] = true
		tools = append(tools, t)
	}
	return tools, dropped
}

func stringOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// cut keeps at most n characters, marking a cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return emptySchema
	}
	return b.Bytes()
}

// printable renders a rejected name for a report: at most 64 bytes of it,
// quoted, so a hostile name cannot forge log lines.
func printable(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return fmt.Sprintf("%q", s)
}
