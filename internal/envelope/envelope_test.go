package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

func TestObjectKeepsOrder(t *testing.T) {
	in := `{"id":7,"ok":true,"say":"Hi.","z":1,"a":{"b":[1,2]},"dataUrl":"data:image/png;base64,AAAA"}`
	r, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	o := r.Members()
	b := o.With("savedBytes", 3).With("ok", false).AppendJSON(nil)
	if want := `{"id":7,"ok":false,"say":"Hi.","z":1,"a":{"b":[1,2]},"dataUrl":"data:image/png;base64,AAAA","savedBytes":3}`; string(b) != want {
		t.Fatalf("With = %s, want %s", b, want)
	}
	if !o.OK() {
		t.Fatal("OK() = false on ok:true")
	}
}

// TestWithWritesAStringAsTheGateDoes: the bridge's own member (a saved
// file's path) is written by the exits' one encoder, byte for byte as the
// gate writes a name or a note. Before, With wrote U+2028 raw, a line's end
// in JavaScript, where AppendString escapes it.
func TestWithWritesAStringAsTheGateDoes(t *testing.T) {
	for _, s := range []string{"/tmp/a<b>&c.png", "/tmp/line\u2028sep\u2029.png", "/tmp/bad\xff\xfe.png"} {
		o := Object{}.With("savedTo", s)
		if want := string(gate.AppendString(nil, s)); string(o.Get("savedTo")) != want {
			t.Errorf("With(%q) wrote %s, want %s", s, o.Get("savedTo"), want)
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want error
	}{
		{``, ErrNotObject}, {`[]`, ErrNotObject}, {`"x"`, ErrNotObject}, {`{"a":1} {}`, ErrNotObject}, {`{"a":}`, ErrNotObject},
		{"{\"a\":\"\n\"}", ErrNotObject},
		{`{"a":1,"a":2}`, ErrBadNames}, {`{"a":[{"b":1,"\u0062":2}]}`, ErrBadNames},
	} {
		if r, err := Decode([]byte(tt.in)); !errors.Is(err, tt.want) || r.Bytes() != nil || r.Members() != nil {
			t.Errorf("Decode(%q) = %q, %v; want %v and nothing", tt.in, r.Bytes(), err, tt.want)
		}
	}
}

// The door finds the members once, in order, and the image when the
// whole of its payload may pass as an image block.
func TestDecodeReadsOnce(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	for _, tt := range []struct {
		in        string
		keys      string
		mime, b64 string
	}{
		{`{"id":3,"ok":true,"say":"Hi","dataUrl":"data:image/png;base64,` + png + `"}`, "id ok say dataUrl", "image/png", png},
		{`{"ok":true,"dataUrl":"data:image/png;base64,` + png + `\"}"}`, "ok dataUrl", "", ""},           // not base64 to its end
		{`{"ok":true,"dataUrl":"data:image/jpeg;base64,` + png + `"}`, "ok dataUrl", "", ""},             // not the type it claims
		{`{"ok":true,"dataUrl":"data:image/png;base64,` + png[:len(png)-2] + `"}`, "ok dataUrl", "", ""}, // not whole quanta
		{`{"\u0073ay":"x","files":[{"dataUrl":"data:image/png;base64,` + png + `"}]}`, "say files", "", ""},
		// The block's type is the bridge's word for it, not the page's
		// spelling.
		{`{"dataUrl":"data:IMAGE/PNG;base64,` + png + `"}`, "dataUrl", "image/png", png},
		// A data URL with an escape is none (EscapedDataURL): an outside
		// attack sent a vertical tab so; another an escaped comma, which
		// cost a copy of megabytes to read.
		{`{"dataUrl":"data:\u000bimage/png;base64,` + png + `"}`, "dataUrl", "", ""},
		{`{"dataUrl":"data:image/png;base64\u002c` + png + `"}`, "dataUrl", "", ""},
	} {
		r, err := Decode([]byte(tt.in))
		if err != nil {
			t.Fatalf("Decode(%.60q): %v", tt.in, err)
		}
		var keys []string
		for _, m := range r.Members() {
			keys = append(keys, m.Key)
		}
		img, ok := r.Image()
		if strings.Join(keys, " ") != tt.keys || ok != (tt.mime != "") || img.MIME() != tt.mime || string(img.Base64()) != tt.b64 {
			t.Errorf("Decode(%.60q) = members %q, image %v %q %.20q; want %q, %q %.20q", tt.in, keys, ok, img.MIME(), img.Base64(), tt.keys, tt.mime, tt.b64)
		}
	}
}

// The bridge's own envelope is what it says, and reads as a reply does.
func TestOwn(t *testing.T) {
	r := Own("timeout", `The "tab" did not answer.`)
	if want := `{"ok":false,"error":"timeout","message":"The \"tab\" did not answer."}`; string(r.Bytes()) != want {
		t.Fatalf("Own = %s, want %s", r.Bytes(), want)
	}
	d, err := Decode(r.Bytes())
	if err != nil || r.OK() || d.OK() {
		t.Fatalf("Own does not read as a reply that failed: %v", err)
	}
	if code, _ := r.String("error"); code != "timeout" {
		t.Errorf("Own's error = %q", code)
	}
}

func TestSetAndWithout(t *testing.T) {
	// Built by the bridge (a name twice, which the door never passes).
	o := Object{{Key: "a", Value: json.RawMessage(`1`)}, {Key: "savedTo", Value: json.RawMessage(`"x"`)}, {Key: "b", Value: json.RawMessage(`2`)}, {Key: "savedTo", Value: json.RawMessage(`"y"`)}}
	for _, tt := range []struct {
		name string
		got  Object
		want string
	}{
		{"Set replaces the first and drops the rest", o.Set("savedTo", gate.Value{Raw: []byte(`"z"`)}), `{"a":1,"savedTo":"z","b":2}`},
		{"Set appends a new member", o.Set("c", gate.Value{Raw: []byte(`3`)}), `{"a":1,"savedTo":"x","b":2,"savedTo":"y","c":3}`},
		{"Set of no bytes drops every one", o.Set("savedTo", gate.Value{}), `{"a":1,"b":2}`},
		{"Without drops every one named", o.Without("savedTo", "a"), `{"b":2}`},
	} {
		if b := tt.got.AppendJSON(nil); string(b) != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, b, tt.want)
		}
	}
}

// Into reads what every other reader of an answer reads: a field takes
// the member of its name exactly, never one alike but for case (an outside
// attack's /status named both origin and Origin, and encoding/json, which
// folds case, read the last).
func TestIntoReadsNamesExactly(t *testing.T) {
	for in, want := range map[string]string{
		`{"origin":"https://a","Origin":"https://b"}`:      "https://a",
		`{"Origin":"https://b","origin":"https://a"}`:      "https://a",
		`{"ORIGIN":"https://b"}`:                           "",
		`{"\u017Frigin":"https://b","origin":"https://a"}`: "https://a",
	} {
		var st struct {
			Origin string `json:"origin"`
		}
		if err := Into([]byte(in), &st); err != nil || st.Origin != want {
			t.Errorf("Into(%s) = %q, %v; want %q", in, st.Origin, err, want)
		}
	}
}

// A name the door lets through is never cut to a note by the gate
// (security/gate cuts only strings over gate.MaxDataURL), so that no two
// names of one object come out as one note.
func TestMaxNameIsNeverCut(t *testing.T) {
	if gate.MaxMemberName >= gate.MaxDataURL {
		t.Errorf("gate.MaxMemberName (%d) >= gate.MaxDataURL (%d): two names the door passes could become one note", gate.MaxMemberName, gate.MaxDataURL)
	}
}

// A name over gate.MaxMemberName bytes as written, at any depth, is refused; one of
// gate.MaxMemberName passes.
func TestDecodeMaxName(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want error
	}{
		{`{"` + strings.Repeat("n", gate.MaxMemberName) + `":1}`, nil},
		{`{"` + strings.Repeat("n", gate.MaxMemberName+1) + `":1}`, ErrBadNames},
		{`{"a":[{"` + strings.Repeat("n", gate.MaxMemberName+1) + `":1}]}`, ErrBadNames},
		{`{"` + strings.Repeat(`\u006e`, gate.MaxMemberName/6+1) + `":1}`, ErrBadNames}, // counted as written
	} {
		if _, err := Decode([]byte(tt.in)); !errors.Is(err, tt.want) {
			t.Errorf("Decode(a name of %d bytes) = %v, want %v", len(tt.in)-6, err, tt.want)
		}
	}
}

// An object of over gate.MaxMembers members, at any depth, is refused; one of
// gate.MaxMembers passes.
func TestDecodeMaxMembers(t *testing.T) {
	object := func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"m%d":0`, i)
		}
		return b.String() + "}"
	}
	for _, tt := range []struct {
		in   string
		want error
	}{
		{object(gate.MaxMembers), nil},
		{object(gate.MaxMembers + 1), ErrBadNames},
		{`{"a":[` + object(gate.MaxMembers+1) + `]}`, ErrBadNames},
	} {
		if _, err := Decode([]byte(tt.in)); !errors.Is(err, tt.want) {
			t.Errorf("Decode(%.40s…) = %v, want %v", tt.in, err, tt.want)
		}
	}
}

// A name that does not print as it decodes, at any depth, is refused, how
// ever it is written; so are invalid UTF-8 and an escaped lone surrogate,
// which are no Unicode text.
func TestDecodeRefusesWhatDoesNotPrint(t *testing.T) {
	for in, want := range map[string]error{
		`{"o\u200bk":true}`:             ErrBadNames,
		"{\"o\u200bk\":true}":           ErrBadNames,
		`{"a":{"b\u202e":1}}`:           ErrBadNames,
		`{"a":"\ud800"}`:                ErrNotObject,
		"{\"a\":\"\xff\"}":              ErrNotObject,
		`{"a":"\ud83d\ude00","b\tc":1}`: nil,
	} {
		if _, err := Decode([]byte(in)); !errors.Is(err, want) {
			t.Errorf("Decode(%q) = %v, want %v", in, err, want)
		}
	}
}

// Into refuses as Decode does, a name given twice at any depth included,
// and words a refusal without a byte of the answer.
func TestIntoRefusesAsTheDoorDoes(t *testing.T) {
	var st struct {
		Origin string `json:"origin"`
		Tools  []any  `json:"tools"`
	}
	for in, want := range map[string]error{
		`{"origin":"a","origin":"b"}`:   ErrBadNames,
		`{"tools":[{"n":1,"n":2}]}`:     ErrBadNames,
		`{"origin":"\xff-secret"}`:      ErrNotObject,
		`{"origin":"a"} {"origin":"b"}`: ErrNotObject,
		`{"origin":"a"`:                 ErrNotObject,
		`{"origin":5,"tools":"secret"}`: ErrShape,
		`["secret"]`:                    ErrShape,
		` null`:                         ErrShape,
		`{"origin":"` + strings.Repeat("s", MaxShaped) + `"}`:                                                                   ErrTooLarge,
		`{"origin":"a","x":` + strings.Repeat(`{"secret":0,"y":`, MaxShaped/16) + `0` + strings.Repeat("}", MaxShaped/16) + `}`: ErrTooLarge,
	} {
		err := Into([]byte(in), &st)
		if !errors.Is(err, want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("Into(%q) = %v, want %v, quoting nothing", in, err, want)
		}
	}
}
