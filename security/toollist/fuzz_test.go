package toollist

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// FuzzSanitize: Sanitize never panics; every tool it keeps has a valid,
// unreserved, unique name and bounded fields, written as JSON by the one
// encoder; the whole list is at most MaxList bytes and sanitised again the
// same; and when the input is a list, every item is either kept or
// accounted for in the report.
func FuzzSanitize(f *testing.F) {
	f.Add([]byte(`[{"name":"scene.describe","description":"Describe the design.","inputSchema":{"type":"object","properties":{"limit":{"type":"integer"}}}}]`))
	f.Add([]byte(`[{"name":"wait_for_connection"},{"name":"a"},{"name":"a"},1,{"name":"x\n"}]`))
	f.Add([]byte(`{"tools":[]}`))
	f.Add([]byte(`[{"name":"a","inputSchema":{"type":"object","properties":{"\u200b":{}}}}]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		// The door refuses what it refused when it read the value itself,
		// by the same rule, at the same byte.
		var l List
		err := door(frame(raw), Sanitize(&l, reserved))
		if alone := door(frame(raw), skip); !same(err, alone) {
			t.Fatalf("the door refuses %q, read by Sanitize, as %v; read alone, as %v", frame(raw), err, alone)
		}
		if err != nil {
			return
		}
		tools, dropped := l.Tools, l.Dropped
		raw = bytes.TrimSpace(raw)

		seen := map[string]bool{}
		for _, tl := range tools {
			if !NamePattern.MatchString(tl.Name) {
				t.Errorf("kept tool name %q does not match %s", tl.Name, NamePattern)
			}
			for _, r := range reserved {
				if Fold(tl.Name) == Fold(r) {
					t.Errorf("kept tool %q shadows the bridge's %q", tl.Name, r)
				}
			}
			if seen[tl.Name] {
				t.Errorf("kept tool %q twice", tl.Name)
			}
			seen[tl.Name] = true
			if n := utf8.RuneCountInString(tl.Description); n > MaxDescription {
				t.Errorf("tool %q description has %d characters, want <= %d", tl.Name, n, MaxDescription)
			}
			if n := utf8.RuneCountInString(tl.Title); n > MaxTitle {
				t.Errorf("tool %q title has %d characters, want <= %d", tl.Name, n, MaxTitle)
			}
			var written struct {
				Name, Title, Description string
				InputSchema              json.RawMessage
				Annotations              map[string]any
			}
			if err := json.Unmarshal(tl.JSON, &written); err != nil || written.Name != tl.Name || written.Title != tl.Title || written.Description != tl.Description {
				t.Errorf("tool %q is written %q (%v), want its name, title and description", tl.Name, tl.JSON, err)
			}
			var schema map[string]any
			if len(written.InputSchema) > MaxSchema || json.Unmarshal(written.InputSchema, &schema) != nil || schema["type"] != "object" {
				t.Errorf("tool %q schema %.100s is not a bounded object schema", tl.Name, written.InputSchema)
			}
			if props, _ := schema["properties"].(map[string]any); len(props) != len(tl.Args) {
				t.Errorf("tool %q has Args %q for the properties of %.100s", tl.Name, tl.Args, written.InputSchema)
			}
			oneEncoder(t, tl.JSON)
		}
		if len(tools) > MaxTools {
			t.Errorf("kept %d tools, want <= %d", len(tools), MaxTools)
		}
		if n := len(listed(tools)); n > MaxList {
			t.Errorf("the list is %d bytes, want <= %d", n, MaxList)
		}
		// Sanitised again, as a follower does its leader's list, it is the
		// same: the two bridges list the same bytes.
		if again, _ := read(t, frame(listed(tools)), reserved); !slices.EqualFunc(again, tools, func(a, b Tool) bool { return bytes.Equal(a.JSON, b.JSON) }) {
			t.Errorf("Sanitize(%q) = %q, sanitised again %q", raw, listed(tools), listed(again))
		}
		if len(dropped) > MaxDropped+2 {
			t.Errorf("report has %d entries, want <= %d (named, and the two counts)", len(dropped), MaxDropped+2)
		}
		for _, d := range dropped {
			if d.Part != "" && ((d.Part != PartAnnotations && d.Part != PartTitle) || (d.Name != "" && !seen[d.Name])) {
				t.Errorf("report entry %+v is about a part of a tool that is not kept", d)
			}
		}

		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || items == nil {
			if len(tools) != 0 || len(dropped) != 1 || dropped[0].Reason != NotAList {
				t.Errorf("Sanitize(%q) = %d tools, %v; want none and %q", raw, len(tools), dropped, NotAList)
			}
			return
		}
		if got := accounted(tools, dropped); got != len(items) {
			t.Errorf("Sanitize(%q): %d kept and %v dropped account for %d items, want %d", raw, len(tools), dropped, got, len(items))
		}
	})
}

// oneEncoder fails unless every string and name of v is written as
// gate.AppendString writes it.
func oneEncoder(t *testing.T, v []byte) {
	t.Helper()
	d := jsontext.NewDecoder(bytes.NewReader(v))
	for {
		switch d.PeekKind() {
		case 0:
			return
		case '"':
			raw, _ := d.ReadValue()
			s, _ := jsontext.AppendUnquote(nil, raw)
			if want := gate.AppendString(nil, string(s)); !bytes.Equal(raw, want) {
				t.Errorf("%q holds %s, written %s by the one encoder", v, raw, want)
			}
		default:
			if _, err := d.ReadToken(); err != nil {
				return
			}
		}
	}
}
