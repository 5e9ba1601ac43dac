package toollist

// Attacks, as a hostile page, on the one pass (Sanitize): what a list
// costs (THREAT_MODEL.md T9) and what of a schema reaches a client's
// validator (T8). The black-box counterparts are in e2e
// (attack_s31_toollist*_test.go).

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestSec_T9_LongTextCostsAtMostTwiceItsSize: a description, a title
// or an annotations title of megabytes is cut to MaxDescription or
// MaxTitle characters, yet Sanitize decodes it whole (stringOf), cleans
// the copy (gate.Clean: another when a character is not ASCII) and cut
// turns all of it into a []rune, four bytes a character, to keep the
// first few thousand: five times the string (gate.Head reads no further
// than the characters it keeps). Issue 34 item 3 bounds a frame's cost at
// twice its size.
//
// Failed on 7eab7d6, before the fix: 5.0x for each of the three.
func TestSec_T9_LongTextCostsAtMostTwiceItsSize(t *testing.T) {
	long := "é" + strings.Repeat("a", 8<<20)
	for name, list := range map[string]string{
		"description":      `[{"name":"big","description":"` + long + `"}]`,
		"title":            `[{"name":"big","title":"` + long + `"}]`,
		"annotationsTitle": `[{"name":"big","annotations":{"title":"` + long + `"}}]`,
	} {
		t.Run(name, func(t *testing.T) {
			raw := frame(list)
			var tools []Tool
			n := allocated(func() { tools, _ = read(t, raw, reserved) })
			if len(tools) != 1 {
				t.Fatalf("kept %d tools, want big", len(tools))
			}
			if n > 2*uint64(len(raw)) {
				t.Errorf("Sanitize of a %d KiB list whose %s is cut allocated %d KiB (%.1fx), want at most twice the list", len(raw)>>10, name, n>>10, float64(n)/float64(len(raw)))
			}
		})
	}
}

// TestSec_T9_ItemsPastTheReportAreOnlyCounted: "millions of tiny
// items cost one pass" (Sanitize), but each item past MaxDropped is still
// named, quoted and worded as if it would be reported (report takes a
// formatted name: fmt.Sprintf("#%d"), printable's Quote, annotations'
// reason), then only counted: 2 to 9 allocations an item, and a 60 MB
// frame of them some 3 to 5 s of a core, five times the door's reading of
// it (envelope.Decode). What is only counted should cost at most its
// name.
//
// Failed on 7eab7d6, before the fix: 2 to 9 allocations an item.
func TestSec_T9_ItemsPastTheReportAreOnlyCounted(t *testing.T) {
	for name, item := range map[string]string{
		"notAnObject":  `0`,
		"noName":       `{}`,
		"badName":      `{"name":"-"}`,
		"duplicate":    `{"name":"ab"}`,
		"dupAnnotated": `{"name":"ab","annotations":{"x":1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			list := func(n int) []byte {
				return frame("[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]")
			}
			small, large := list(2*MaxDropped), list(2*MaxDropped+10_000)
			a := testing.AllocsPerRun(3, func() { read(t, small, reserved) })
			b := testing.AllocsPerRun(3, func() { read(t, large, reserved) })
			if per := (b - a) / 10_000; per > 1 {
				t.Errorf("each %s item past the report costs %.1f allocations, want at most one: it is only counted", item, per)
			}
		})
	}
}

// TestSec_T8_RemoteSchemaURIsDropped: Sanitize drops a remote "$ref"
// or "$dynamicRef", but a schema's "$schema" (the meta-schema a validator
// loads to compile it) and "$id" (its base URI) pass as the page wrote
// them, a page's URL included: a client whose validator resolves an
// unknown meta-schema fetches it (T8's "no remote reference"), and one
// that cannot refuses the schema, the page's choice.
//
// Failed on 7eab7d6, before the fix: both reach tools/list.
func TestSec_T8_RemoteSchemaURIsDropped(t *testing.T) {
	tools, _ := sanitize(t, `[{"name":"a","inputSchema":{"$schema":"https://evil.example/meta.json","$id":"https://evil.example/a.json","type":"object"}}]`)
	if len(tools) != 1 {
		t.Fatalf("kept %d tools, want a", len(tools))
	}
	if bytes.Contains(tools[0].JSON, []byte("evil.example")) {
		t.Errorf("tools/list writes %s: a page's URL a validator may fetch", tools[0].JSON)
	}
}

// TestAnnotationsTitleOfABridgeToolIsReportedForWhatItIs: an
// annotations title that names one of the bridge's own tools is dropped,
// but the report says it was dropped for not being a string title ("only
// the boolean hints ... and a string title are kept"): title's own reason
// is discarded (annotations), so the page's author, and the user reading
// droppedTools, are told the wrong fault.
//
// Failed on 7eab7d6, before the fix.
func TestAnnotationsTitleOfABridgeToolIsReportedForWhatItIs(t *testing.T) {
	_, dropped := sanitize(t, `[{"name":"a","annotations":{"title":"Connection status","readOnlyHint":true}}]`)
	for _, d := range dropped {
		if d.Name == "a" && d.Part == PartAnnotations {
			if !strings.Contains(d.Reason, "bridge's own") {
				t.Errorf("the report says %q, want the reason: it names one of the bridge's own tools", d.Reason)
			}
			return
		}
	}
	t.Errorf("report %+v has no entry for a's annotations title", dropped)
}
