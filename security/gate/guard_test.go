package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// remedy is the end of every note in these tests.
const remedy = "REMEDY"

var testGuard = Guard{Remedy: func(Left) string { return remedy }}

// guarded runs the compacting guard over a whole document.
func guarded(doc string) string {
	out, _ := testGuard.walk(nil, []byte(doc), nil, 0)
	return string(out)
}

// note is the expected note, as a JSON string, written from the wording
// the package promises.
func note(chars, what, where string) string {
	b, _ := json.Marshal("[bridge: a " + chars + "-character " + what + " was left out here (" + where + "); " + remedy + "]")
	return string(b)
}

// Sizes written out, not computed with the code under test.
var (
	big     = strings.Repeat("x", 3<<20)                              // 3,145,728 characters
	dataURL = "data:image/png;base64," + strings.Repeat("A", 3000-22) // 3,000 characters
	under   = strings.Repeat("y", 100_000)
	overBy1 = strings.Repeat("y", 100_001)
)

func TestDataURLFixture(t *testing.T) {
	if len(dataURL) != 3000 || len(big) != 3145728 {
		t.Fatalf("fixtures: data URL %d, big %d characters; want 3000 and 3145728", len(dataURL), len(big))
	}
}

func TestGuard(t *testing.T) {
	dataURLOf := func(n int) string {
		head := "data:image/svg+xml;base64,"
		return head + strings.Repeat("A", n-len(head))
	}
	tests := []struct {
		name, in, want string
	}{
		{"a 3 MB string at the top level",
			`{"ok":true,"say":"Done.","text":"` + big + `","n":1}`,
			`{"ok":true,"say":"Done.","text":` + note("3,145,728", "string", "at text") + `,"n":1}`},
		{"a 3 MB string in an object in an array",
			`{"ok":true,"members":[{"id":1,"text":"` + big + `"},{"id":2,"text":"short"}]}`,
			`{"ok":true,"members":[{"id":1,"text":` + note("3,145,728", "string", "at members.0.text") + `},{"id":2,"text":"short"}]}`},
		{"a 3 MB string in an array in an array",
			`{"grid":[[1,2],[3,"` + big + `"]],"after":true}`,
			`{"grid":[[1,2],[3,` + note("3,145,728", "string", "at grid.1.1") + `]],"after":true}`},
		{"a 3,000-character data URL nested in a member",
			`{"ok":true,"files":[{"name":"a.png","dataUrl":"` + dataURL + `"}],"count":1}`,
			`{"ok":true,"files":[{"name":"a.png","dataUrl":` + note("3,000", "data URL", "at files.0.dataUrl") + `}],"count":1}`},
		{"a data URL under any name is one",
			`{"preview":"` + dataURL + `"}`,
			`{"preview":` + note("3,000", "data URL", "at preview") + `}`},
		{"the data: scheme in any case",
			`{"a":"DATA:image/PNG;base64,` + strings.Repeat("A", 3000) + `"}`,
			`{"a":` + note("3,022", "data URL", "at a") + `}`},
		{"a data URL whose scheme is escaped",
			`{"a":"data\u003aimage/png;base64,` + strings.Repeat("A", 3000) + `"}`,
			`{"a":` + note("3,022", "data URL", "at a") + `}`},
		{"a data URL with no plain MIME type",
			`{"a":"data:,` + strings.Repeat("A", 3000) + `"}`,
			`{"a":` + note("3,006", "data URL", "at a") + `}`},
		{"a data URL of exactly 2,048 characters passes", `{"a":"` + dataURLOf(2048) + `"}`, `{"a":"` + dataURLOf(2048) + `"}`},
		{"a data URL of 2,049 characters does not", `{"a":"` + dataURLOf(2049) + `"}`,
			`{"a":` + note("2,049", "data URL", "at a") + `}`},
		{"a 3,000-character string that is not a data URL passes", `{"a":"` + strings.Repeat("d", 3000) + `"}`, `{"a":"` + strings.Repeat("d", 3000) + `"}`},
		{"a string of exactly 100,000 characters passes", `{"a":"` + under + `"}`, `{"a":"` + under + `"}`},
		{"a string of 100,001 characters does not", `{"a":"` + overBy1 + `"}`, `{"a":` + note("100,001", "string", "at a") + `}`},
		{"escapes count as one character: 60,000 \\n (120,000 bytes) pass",
			`{"a":"` + strings.Repeat(`\n`, 60_000) + `"}`, `{"a":"` + strings.Repeat(`\n`, 60_000) + `"}`},
		{"escapes count as one character: 100,001 \\u00e9 do not",
			`{"a":"` + strings.Repeat(`\u00e9`, 100_001) + `"}`, `{"a":` + note("100,001", "string", "at a") + `}`},
		{"a surrogate pair is one character: 24,000 (288,000 bytes, within the ceiling) pass",
			`{"a":"` + strings.Repeat(`\ud83d\ude00`, 24_000) + `"}`, `{"a":"` + strings.Repeat(`\ud83d\ude00`, 24_000) + `"}`},
		{"100,000 surrogate pairs as the page escaped them (1.2 MB) end past the ceiling",
			`{"a":"` + strings.Repeat(`\ud83d\ude00`, 100_000) + `"}`, `{"a":` + note("100,000", "string", "at a") + `}`},
		{"a surrogate pair is one character: 100,001 do not",
			`{"a":"` + strings.Repeat(`\ud83d\ude00`, 100_001) + `"}`, `{"a":` + note("100,001", "string", "at a") + `}`},
		{"UTF-8 counts characters, not bytes: 100,000 é pass",
			`{"a":"` + strings.Repeat("é", 100_000) + `"}`, `{"a":"` + strings.Repeat("é", 100_000) + `"}`},
		{"an escaped quote does not end the string",
			`{"a":"\"` + big + `\"","b":"\""}`, `{"a":` + note("3,145,730", "string", "at a") + `,"b":"\""}`},
		{"a name that is not an identifier is quoted",
			`{"x y":{"a.b":"` + big + `"}}`, `{"x y":{"a.b":` + note("3,145,728", "string", `at ["x y"]["a.b"]`) + `}}`},
		{"a member name over the limit",
			`{"ok":true,"m":{"` + overBy1 + `":{"v":"` + big + `"}}}`,
			`{"ok":true,"m":{` + note("100,001", "member name", "in m") + `:{"v":` + note("3,145,728", "string", "at m[name left out].v") + `}}}`},
		{"a top-level member name over the limit",
			`{"` + overBy1 + `":1}`, `{` + note("100,001", "member name", "at the top level") + `:1}`},
		{"the whole reply a string", `"` + big + `"`, note("3,145,728", "string", "the whole reply")},
		{"everything else as it came",
			`{"ok":true,"n":-1.5e3,"t":true,"f":false,"z":null,"e":{},"l":[],"s":"a\"\\\/\u00e9é","big":"` + big + `","last":[{"k":"v"}]}`,
			`{"ok":true,"n":-1.5e3,"t":true,"f":false,"z":null,"e":{},"l":[],"s":"a\"\\\/\u00e9é","big":` + note("3,145,728", "string", "at big") + `,"last":[{"k":"v"}]}`},
		{"several in one envelope",
			`{"a":"` + big + `","b":["` + dataURL + `","` + big + `"]}`,
			`{"a":` + note("3,145,728", "string", "at a") + `,"b":[` + note("3,000", "data URL", "at b.0") + `,` + note("3,145,728", "string", "at b.1") + `]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := guarded(tt.in); got != tt.want {
				t.Errorf("guard(%.80s…) = %.300s…, want %.300s…", tt.in, got, tt.want)
			}
			if !json.Valid([]byte(guarded(tt.in))) {
				t.Errorf("guard(%.80s…) is not valid JSON", tt.in)
			}
		})
	}
}

// The note the model reads, in full.
func TestNoteWording(t *testing.T) {
	g := Guard{Remedy: func(l Left) string {
		return "to get it whole, run the same call from a shell: stitchslop-bridge call COMMAND 'JSON-ARGS' --raw"
	}}
	out, _ := g.walk(nil, []byte(`{"members":[{"text":"`+big+`"}]}`), nil, 0)
	got := string(out)
	want := `{"members":[{"text":"[bridge: a 3,145,728-character string was left out here (at members.0.text); ` +
		`to get it whole, run the same call from a shell: stitchslop-bridge call COMMAND 'JSON-ARGS' --raw]"}]}`
	if got != want {
		t.Errorf("note = %s, want %s", got, want)
	}
}

// The Remedy is told what it words the way to.
func TestRemedyIsToldWhat(t *testing.T) {
	var got []Left
	g := Guard{Remedy: func(l Left) string { got = append(got, l); return "" }}
	out, _ := g.Apply([]byte(`{"dataUrl":"` + dataURL + `","x":{"` + overBy1 + `":"` + big + `"}}`))
	want := []Left{{At: "dataUrl", DataURL: true}, {At: "x", Name: true}, {At: "x[name left out]"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Remedy was called with %+v, want %+v", got, want)
	}
	if !bytes.Contains(out, []byte(`(at dataUrl)]"`)) {
		t.Errorf("a note with an empty remedy = %.200s, want it to end after the place", out)
	}
}

func TestPaths(t *testing.T) {
	long := strings.Repeat("k", 100)
	deep := strings.Repeat("[", 300) + `"` + big + `"` + strings.Repeat("]", 300)
	tests := []struct{ doc, want string }{
		{`{"a":{"b":[0,{"c":"BIG"}]}}`, "a.b.1.c"},
		{`[["BIG"]]`, "0.0"},
		{`{"\u0061":"BIG"}`, "a"},
		{`{"a.b":{"c":"BIG"}}`, `["a.b"].c`},
		{`{"":"BIG"}`, `[""]`},
		{`{"a":{"\u0007x\u202e":"BIG"}}`, `a["\ax\u202e"]`},
		{`{"é":"BIG"}`, `["\u00e9"]`},
		{`{"` + long + `":"BIG"}`, `["` + strings.Repeat("k", maxKeyShown) + `"...]`},
		{`{"a":1,"b":2,"c":"BIG"}`, "c"},
		{`{"a":[1,2,"BIG"]}`, "a.2"},
	}
	for _, tt := range tests {
		var at []string
		g := Guard{Remedy: func(l Left) string { at = append(at, l.At); return "" }}
		g.Apply([]byte(strings.ReplaceAll(tt.doc, "BIG", big)))
		if len(at) != 1 || at[0] != tt.want {
			t.Errorf("path of BIG in %s = %q, want %q", tt.doc, at, tt.want)
		}
	}
	var at string
	g := Guard{Remedy: func(l Left) string { at = l.At; return "" }}
	g.Apply([]byte(deep))
	if !strings.HasPrefix(at, "...") || len(at) > maxPath+3 || !strings.HasSuffix(at, ".0.0.0") {
		t.Errorf("path 300 arrays deep = %q, want its end after \"...\", at most %d bytes", at, maxPath+3)
	}
}

// With nothing over a limit, Apply returns the document itself: no copy,
// nothing moved, whitespace and all.
func TestApplyNothingOver(t *testing.T) {
	for _, doc := range []string{
		`{"ok":true,"say":"Done.","n":3}`,
		"{ \"ok\" : true ,\n \"list\" : [ 1, 2 ] }",
		`{"a":"` + strings.Repeat("d", 3000) + `","b":"` + under + `"}`,
		`{"a":"` + strings.Repeat(`\n`, 60_000) + `"}`,
		`{"a":"data:,short"}`,
		`not json "` + big + `"`, // invalid JSON is left alone
		``,
	} {
		in := []byte(doc)
		out, changed := testGuard.Apply(in)
		if changed || len(out) != len(in) || (len(in) > 0 && &out[0] != &in[0]) {
			t.Errorf("Apply(%.60s…) = %.60s…, %v; want the document itself, false", doc, out, changed)
		}
	}
}

// A document the guard changes comes out compact, written by the one
// encoder; one it leaves alone comes back whitespace and all
// (TestApplyNothingOver).
func TestApplyCompactsWhatItChanges(t *testing.T) {
	g := Guard{Remedy: func(Left) string { return remedy }}
	in := "{ \"a\" : \"" + big + "\" ,\n  \"b\" : [ 1 , 2 ] }\n"
	out, changed := g.Apply([]byte(in))
	want := "{\"a\":" + note("3,145,728", "string", "at a") + ",\"b\":[1,2]}"
	if !changed || string(out) != want {
		t.Errorf("Apply(spaced) = %.200q, %v; want %.200q, true", out, changed, want)
	}
}

// With nothing over, the walk's result is json.Compact's.
func TestCompactIsJSONCompact(t *testing.T) {
	for _, doc := range []string{
		"{ \"id\" : 2 , \"ok\" : true , \"list\" : [ 1, 2 ] }",
		"{\"a\":{ \"b\" :[ {}, [ ], \"x y\\\" \" , -0.5E+2 , null ]},\t\"c\"\r\n:\"\\u00e9\"}",
		`"just a string"`,
		` [1 , "a" ] `,
		`{"s":"  spaces inside a string stay  "}`,
	} {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(doc)); err != nil {
			t.Fatalf("json.Compact(%q): %v", doc, err)
		}
		if got := guarded(doc); got != want.String() {
			t.Errorf("guard(%q) = %q, want json.Compact's %q", doc, got, want.String())
		}
	}
}

// members is an object's members in order, as AppendObject takes them.
func members(kv ...string) iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if !yield(kv[i], Value{Raw: []byte(kv[i+1])}) {
				return
			}
		}
	}
}

func TestAppendObject(t *testing.T) {
	got := string(testGuard.AppendObject(nil, members("text", `{ "a" : "`+big+`" }`), nil))
	want := `{"text":{"a":` + note("3,145,728", "string", "at text.a") + `}}`
	if got != want {
		t.Errorf("AppendObject = %.200s, want %.200s", got, want)
	}
	got = string(testGuard.AppendObject(nil, members(overBy1, `1`, "[bridge]", `2`, "\u200b[bridge: x", `3`), nil))
	if want := "{" + note("100,001", "member name", "at the top level") + `:1}`; got != want {
		t.Errorf("AppendObject(long name, reserved names) = %.200s, want %.200s", got, want)
	}
}

// TestSec_GateBoundsTheTopLevel: the members of a reply are bounded as a
// whole, as the entries of a nested object are (THREAT_MODEL.md T9): at
// most MaxItems of them, and none begun past about MaxTotal bytes, a note
// saying how many were left out. A member at a time, 200 strings each just
// under MaxString reached the shell's stdout as 20 MB.
func TestSec_GateBoundsTheTopLevel(t *testing.T) {
	long := `"` + strings.Repeat("x", MaxString-1) + `"`
	var kv []string
	for i := range 300 {
		kv = append(kv, "m"+strconv.Itoa(i), long)
	}
	out := Guard{}.AppendObject(nil, members(kv...), nil)
	if !json.Valid(out) || len(out) > MaxTotal+2*MaxString {
		t.Fatalf("AppendObject(300 strings of %d) = %d bytes (valid %v): over the budget", MaxString-1, len(out), json.Valid(out))
	}
	if !bytes.HasSuffix(out, []byte(`"[bridge]":"[bridge: 298 more members were left out here (at the top level)]"}`)) {
		t.Errorf("AppendObject(300 strings) ends %q, want the note of 298 members left out", out[len(out)-120:])
	}
	kv = kv[:0]
	for i := range MaxItems + 500 {
		kv = append(kv, "k"+strconv.Itoa(i), "0")
	}
	var m map[string]any
	if err := json.Unmarshal(Guard{}.AppendObject(nil, members(kv...), nil), &m); err != nil || len(m) != MaxItems+1 {
		t.Fatalf("AppendObject(%d members) = %d members (%v), want %d and the note", MaxItems+500, len(m), err, MaxItems)
	}
	if n := m["[bridge]"]; n != "[bridge: 500 more members were left out here (at the top level)]" {
		t.Errorf("the note = %q", n)
	}
	m = nil
	if out := (Guard{Whole: true}).AppendObject(nil, members(kv...), nil); json.Unmarshal(out, &m) != nil || len(m) != MaxItems+500 {
		t.Errorf("a Whole guard (--raw) left members out: %d of %d", len(m), MaxItems+500)
	}
}

// TestWalkStopsOnAReadErrorPastTheItemCap: input that is not valid JSON
// (which the door never passes on) ends the walk, also where the rest of
// a container is skipped: skipping nothing and going on, it never ended.
func TestWalkStopsOnAReadErrorPastTheItemCap(t *testing.T) {
	for _, doc := range []string{
		"[" + strings.Repeat("0,", MaxItems) + "t]",
		`{` + strings.Repeat(`"a":0,`, MaxItems) + `"b":t}`,
		`{` + strings.Repeat(`"a":0,`, MaxItems) + `t}`,
		`{"[bridge]":t,"a":1}`,
	} {
		done := make(chan []byte, 1)
		go func() { out, _ := Guard{}.walk(nil, []byte(doc), nil, 0); done <- out }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("walk(%.40q...) has not ended after 10 s", doc)
		}
	}
}

func TestNote(t *testing.T) {
	n, cut := testGuard.Note("say", []byte(`"`+big+`"`))
	if want := "[bridge: a 3,145,728-character string was left out here (at say); " + remedy + "]"; !cut || n != want {
		t.Errorf("Note(say, 3 MB) = %q, %v; want %q, true", n, cut, want)
	}
	for _, v := range []string{`"Done."`, `"` + under + `"`, `12`, `"`} {
		if n, cut := testGuard.Note("say", []byte(v)); cut || n != "" {
			t.Errorf("Note(say, %.40s) = %q, %v; want nothing", v, n, cut)
		}
	}
}

// Only strings over MaxDataURL bytes are looked at, so MaxString must be
// larger.
func TestLimitsRelation(t *testing.T) {
	if MaxString <= MaxDataURL {
		t.Errorf("MaxString (%d) <= MaxDataURL (%d): long strings would pass unseen", MaxString, MaxDataURL)
	}
	// envelope.TestMaxNameIsNeverCut holds that a name the door passes is
	// never cut to a note.
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100001: "100,001", 3145728: "3,145,728", 1234567890: "1,234,567,890"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// A string of many escapes is walked in linear time: a scan that looked for
// the closing quote again after each backslash would take minutes here.
func TestEscapesTakeLinearTime(t *testing.T) {
	doc := []byte(`{"a":"` + strings.Repeat(`\n`, 1_600_000) + `","b":1}`)
	start := time.Now()
	out, changed := testGuard.Apply(doc)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Apply on 1.6 million escapes took %v, want well under 5 s", took)
	}
	if want := `{"a":` + note("1,600,000", "string", "at a") + `,"b":1}`; !changed || string(out) != want {
		t.Errorf("Apply(1.6 million escapes) = %.200s, want %.200s", out, want)
	}
}

func TestFuzzGuardSeeds(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzGuard"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("seed corpus testdata/fuzz/FuzzGuard is missing or empty (err=%v); it must be committed", err)
	}
}
