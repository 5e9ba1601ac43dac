package replyfiles

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// s33Guards are every setting of the gate a face may write a saved
// reply with: the shell's, its --raw, call_to_files'.
var s33Guards = []gate.Guard{
	{},
	{Remedy: func(gate.Left) string { return "R" }},
	{Whole: true},
	{EveryDataURL: true},
	{Whole: true, EveryDataURL: true},
}

// saveAsWalked saves b's files as call --save does and holds the reply it
// prints (its files list a gate.List of the page's pieces and the
// bridge's own members, Object.Set with the List's Seen) to the same
// members written with no Seen at all, which the gate walks: byte for
// byte, for every Guard, and one valid JSON document that names no
// member twice.
func saveAsWalked(t *testing.T, b string) {
	t.Helper()
	env, err := envelope.Decode([]byte(b))
	if err != nil {
		return // refused at the door: nothing reaches the gate
	}
	r := Save(env, Options{Dir: t.TempDir(), OverwriteFlag: "--overwrite"})
	seen := r.Env.Members()
	unseen := seen.Without()
	for i := range unseen {
		unseen[i].Seen = gate.Seen{}
	}
	for _, g := range s33Guards {
		got := g.AppendObject(nil, seen.All(false), seen.All(true))
		want := g.AppendObject(nil, unseen.All(false), unseen.All(true))
		if string(got) != string(want) {
			t.Fatalf("%+v: %.120q saved: written %.400q from what the door and the List saw, %.400q walked", g, b, got, want)
		}
		if !jsontext.Value(got).IsValid() {
			t.Fatalf("%+v: %.120q saved: written %.400q, not one valid JSON document naming each member once", g, b, got)
		}
	}
}

// s33Values are a hostile page's values for a files entry's member: the
// gate's work deep in a container (an invisible character, the note's
// prefix as a string and as a name at depth, escapes, whitespace inside
// and around, a long number, a short data URL), and plain ones.
var s33Values = []string{
	`"plain"`, `1`, `true`, `null`, `{}`, `[]`,
	"{\"a\":[1,{\"b\":\"x\u200by\"}]}", "[[[[\"\u2028\"]]]]", `{"a":{"[bridge":1}}`, `{"a":{"[Bridge]":1}}`,
	`{"a":["[bridge: saved"]}`, `{"a":{"b":"\u005bbridge"}}`, `{"\u0061":1}`, `{"a":"\/"}`,
	"{\"a\":[1 ,2]}", "{\"a\":[1,2] }", "{ \"a\":1}", "{\"a\" :1}", "[1,\n2]", "[ ]", "{\"a\":{ }}", "{\"a\": [1]}", "[1, {\"b\":2}]", "[[1]\t]", "{\"a\":[[]\n]}",
	`{"a":[1e999]}`, `[` + strings.Repeat("9", gate.MaxNumber+1) + `]`, `{"a":"data:,x"}`, `["DATA:image/png;base64,AA"]`,
	`{"data:,x":1}`, `"[bridge: a page's note"`, `"` + strings.Repeat("a", gate.MaxDataURL+1) + `"`,
	"\"\ufeff\"", "\"\U000E0041\"", `{"a":[{"b":[{"c":[{"d":"` + "\u202e" + `"}]}]}]}`,
}

// TestAttack_SaveListAsWalked (held): call --save's files list, built of
// the entries' pieces (gate.List) with what the door saw of each member
// and the bridge's own savedTo, savedBytes and error, is written as the
// gate's walk writes it, whatever a member's value hides at depth, in an
// entry saved, refused for its dataUrl, or not an object; whether the
// door recorded the list or a list before spent its records (streamed);
// names escaped as the bridge's and not; and a list that ends about the
// budget (gate.MaxTotal) after members that spend it.
func TestAttack_SaveListAsWalked(t *testing.T) {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	url := `"data:image/png;base64,` + png + `"`
	for _, v := range s33Values {
		files := `[{"name":"a.png","dataUrl":` + url + `,"m":` + v + `,"n":1},` +
			`{"m":` + v + `,"dataUrl":5},` + v + `,{"k":[` + v + `], "j" : ` + v + ` },` +
			`{"\u0065rror":` + v + `,"x":` + v + `},{"saved\u0054o":1,"` + "\u0061" + `":` + v + `}]`
		for _, pad := range []string{"", `"pad":[` + strings.TrimSuffix(strings.Repeat("0,", 1020), ",") + `],`} {
			saveAsWalked(t, `{"ok":true,`+pad+`"files":`+files+`}`)
			saveAsWalked(t, `{"ok":true,`+pad+`"files": [ {"m" : `+v+` } , 7 ] }`)
		}
	}
	// The budget: members of 2,000 bytes each to just short of MaxTotal,
	// then a files list of refused entries (the bridge's error, of a
	// length the page cannot move) that ends on each side of it.
	str := `"` + strings.Repeat("p", 2000) + `"`
	var pads strings.Builder
	for i := 0; pads.Len() < gate.MaxTotal-4100; i++ {
		pads.WriteString(`"p` + strings.Repeat("0", 4-len(itoa(i))) + itoa(i) + `":` + str + `,`)
	}
	pads.WriteString(`"q":"` + strings.Repeat("q", gate.MaxTotal-800-pads.Len()) + `",`)
	verbatim, walked := 0, 0
	for fill := 0; fill < 1200; fill += 29 {
		b := `{"ok":true,` + pads.String() + `"files":[{"m":"` + strings.Repeat("f", fill) + `"},{"m":[1,{"a":2}]}]}`
		saveAsWalked(t, b)
		env, _ := envelope.Decode([]byte(b))
		out := gate.Guard{}.AppendObject(nil, Save(env, Options{Dir: t.TempDir()}).Env.Members().All(false), nil)
		if strings.Contains(string(out), `"[bridge]"`) {
			walked++
		} else {
			verbatim++
		}
	}
	if verbatim == 0 || walked == 0 {
		t.Errorf("the files lists end %d times within the budget and %d past it, want both", verbatim, walked)
	}
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}

// FuzzAttackSaveListAsWalked: a fuzzed value in every place of a files
// list --save builds again (a member of a saved entry, of a refused one,
// an entry itself, a name), recorded and streamed, is written as the walk
// writes it.
func FuzzAttackSaveListAsWalked(f *testing.F) {
	for _, v := range s33Values {
		f.Add(v, "m")
	}
	f.Add(`1`, `[bridge`)
	f.Add(`1`, `saved\u0054o`)
	f.Fuzz(func(t *testing.T, v, name string) {
		k := `"` + name + `"`
		files := `[{"name":"a.png","dataUrl":"data:image/png;base64,iVBORw0KGgo=",` + k + `:` + v + `},{` + k + `:` + v + `,"dataUrl":5},` + v + `]`
		saveAsWalked(t, `{"ok":true,"files":`+files+`}`)
		saveAsWalked(t, `{"ok":true,"pad":[`+strings.TrimSuffix(strings.Repeat("0,", 1020), ",")+`],"files":`+files+`}`)
	})
}
