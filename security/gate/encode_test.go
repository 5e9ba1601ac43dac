package gate

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// The strings encoders disagree on: what encoding/json escapes and the
// gate does not (<, >, &), what JavaScript ends a line at, invalid UTF-8 (a
// byte, and a run of them), controls, a quote, and what needs no escape.
var encoderStrings = []string{"", "plain", "a<b && c>d", "\u2028\u2029", "bad \xff", "two \xff\xfe bytes", "\xed\xa0\x80 surrogate",
	"ctl\x00\x07\x1f\x7f", "\b\f\n\r\t", `q"b\`, "é ☃ 😀", "\u202e\u200b\ufeff"}

// TestMarshalWritesAStringAsAppendString: the exits' one encoder (Marshal),
// the hand encoder of names and notes (AppendString) and the walk's
// writer write every string the same bytes, so a string of a page's reads
// the same whichever exit writes it. Before, AppendString wrote a run of
// invalid bytes as one U+FFFD, and the exits encoded with encoding/json
// (<, > and & as \u003c, \u003e, \u0026).
func TestMarshalWritesAStringAsAppendString(t *testing.T) {
	for _, s := range encoderStrings {
		sameString(t, s)
	}
	// A string inside a value the exits encode is written as one alone.
	// What encoding/json wrote of the rest, too: an agent's raw arguments
	// whole (compact, a name twice, a number's digits), nil as null.
	m, err := Marshal(map[string]any{"a<b": []any{"x&y", json.Number("1.5e3"), nil}, "z": struct {
		S []string `json:"s"`
		B bool     `json:"b,omitzero"`
	}{}, "r": json.RawMessage(`{ "d" : 1, "d":2.50 }`)})
	if want := `{"a<b":["x&y",1.5e3,null],"r":{"d":1,"d":2.50},"z":{"s":null}}`; err != nil || string(m) != want {
		t.Errorf("Marshal = %s, %v; want %s", m, err, want)
	}
	for _, n := range []json.Number{"x", `"1"`, "1 ", "01"} {
		if b, err := Marshal(n); err == nil {
			t.Errorf("Marshal(json.Number(%q)) = %s; want an error, as encoding/json gives", n, b)
		}
	}
}

// sameString fails t unless Marshal, AppendString and a jsontext.Encoder
// with the walk's options write s as the same bytes, which read back as s
// with each invalid byte a U+FFFD, on one line.
func sameString(t *testing.T, s string) {
	t.Helper()
	m, err := Marshal(s)
	if err != nil {
		t.Fatalf("Marshal(%q): %v", s, err)
	}
	if a := AppendString(nil, s); !bytes.Equal(a, m) {
		t.Fatalf("AppendString(%q) = %q, Marshal = %q", s, a, m)
	}
	var w bytes.Buffer
	e := jsontext.NewEncoder(&w, writeOpts...)
	if err := e.WriteToken(jsontext.String(s)); err != nil {
		t.Fatal(err)
	}
	if got := bytes.TrimSuffix(w.Bytes(), []byte("\n")); !bytes.Equal(got, m) {
		t.Fatalf("the walk's writer wrote %q as %q, Marshal as %q", s, got, m)
	}
	var back string
	if err := json.Unmarshal(m, &back); err != nil || back != string([]rune(s)) {
		t.Fatalf("Marshal(%q) = %q reads back as %q (%v)", s, m, back, err)
	}
	if bytes.ContainsAny(m, "\n\r\u2028\u2029") {
		t.Fatalf("Marshal(%q) = %q holds a line break", s, m)
	}
}

// FuzzMarshalString holds sameString for every string.
func FuzzMarshalString(f *testing.F) {
	for _, s := range encoderStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameString(t, s) })
}
