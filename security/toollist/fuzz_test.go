package toollist

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzSanitize: Sanitize never panics; every tool it keeps has a valid,
// unreserved, unique name and bounded fields; the whole list marshals to at
// most MaxList bytes; and when the input is a list, every item is either
// kept or accounted for in the report.
func FuzzSanitize(f *testing.F) {
	f.Add([]byte(`[{"name":"scene.describe","description":"Describe the design.","inputSchema":{"type":"object","properties":{"limit":{"type":"integer"}}}}]`))
	f.Add([]byte(`[{"name":"wait_for_connection"},{"name":"a"},{"name":"a"},1,{"name":"x\n"}]`))
	f.Add([]byte(`{"tools":[]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		tools, dropped := Sanitize(raw, reserved)

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
			var schema map[string]any
			if len(tl.InputSchema) > MaxSchema || json.Unmarshal(tl.InputSchema, &schema) != nil || schema["type"] != "object" {
				t.Errorf("tool %q schema %.100s is not a bounded object schema", tl.Name, tl.InputSchema)
			}
			if tl.Annotations != nil && !json.Valid(tl.Annotations) {
				t.Errorf("tool %q annotations %q are not valid JSON", tl.Name, tl.Annotations)
			}
		}
		if len(tools) > MaxTools {
			t.Errorf("kept %d tools, want <= %d", len(tools), MaxTools)
		}
		if b, err := json.Marshal(tools); err != nil || len(b) > MaxList {
			t.Errorf("json.Marshal(tools) = %d bytes, %v; want <= %d, nil", len(b), err, MaxList)
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
