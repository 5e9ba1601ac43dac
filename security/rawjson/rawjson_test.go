package rawjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/fuzzseed"
)

func TestEach(t *testing.T) {
	in := []byte(` { "id" : 7 , "ok":true, "s":"a\"}b", "o":{"x":[1,{"y":"]"}]}, "n":null, "e\u0041":-1.5e3 } `)
	var got []string
	if !Each(in, func(k, v []byte) bool { got = append(got, string(k)+"="+string(v)); return true }) {
		t.Fatal("Each = false on an object")
	}
	want := []string{`"id"=7`, `"ok"=true`, `"s"="a\"}b"`, `"o"={"x":[1,{"y":"]"}]}`, `"n"=null`, `"e\u0041"=-1.5e3`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Each members = %q, want %q", got, want)
	}
	if v := Get(in, "eA"); string(v) != "-1.5e3" {
		t.Fatalf(`Get("eA") through an escaped key = %q, want -1.5e3`, v)
	}
	for _, bad := range []string{`[1]`, `"x"`, `7`, ``} {
		if Each([]byte(bad), func(_, _ []byte) bool { return true }) {
			t.Errorf("Each(%q) = true, want false (not an object)", bad)
		}
	}
}

func TestStrings(t *testing.T) {
	if s, ok := String([]byte(`"a\nb\u00e9"`)); !ok || s != "a\nbé" {
		t.Fatalf("String = %q, %v", s, ok)
	}
	if p, ok := Plain([]byte(`"abc"`)); !ok || string(p) != "abc" {
		t.Fatalf("Plain(plain) = %q, %v", p, ok)
	}
	if _, ok := Plain([]byte(`"a\/b"`)); ok {
		t.Fatal("Plain of an escaped string = true")
	}
}

func TestFuzzEachSeeds(t *testing.T) { fuzzseed.Require(t, "FuzzEach") }

// FuzzEach: on any valid JSON object, Each yields the members encoding/json
// sees, in order, and Get agrees with Each; on anything else it never
// panics.
func FuzzEach(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		var members [][2]string
		ok := Each(b, func(k, v []byte) bool {
			members = append(members, [2]string{string(k), string(v)})
			return true
		})
		if !json.Valid(b) {
			return
		}
		d := json.NewDecoder(bytes.NewReader(b))
		tok, _ := d.Token()
		if tok != json.Delim('{') {
			if ok {
				t.Fatalf("Each(%q) = true on a value that is not an object", b)
			}
			return
		}
		if !ok {
			t.Fatalf("Each(%q) = false on an object", b)
		}
		i := 0
		for d.More() {
			kt, _ := d.Token()
			var v json.RawMessage
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if i >= len(members) {
				t.Fatalf("Each(%q) found %d members, encoding/json more", b, len(members))
			}
			k, _ := String([]byte(members[i][0]))
			if k != kt.(string) {
				t.Fatalf("Each(%q) member %d key %q, want %q", b, i, k, kt)
			}
			var c1, c2 bytes.Buffer
			json.Compact(&c1, v)
			json.Compact(&c2, []byte(members[i][1]))
			if c1.String() != c2.String() {
				t.Fatalf("Each(%q) member %d value %q, want %q", b, i, members[i][1], v)
			}
			i++
		}
		if i != len(members) {
			t.Fatalf("Each(%q) found %d members, encoding/json %d", b, len(members), i)
		}
		if len(members) > 0 {
			k, _ := String([]byte(members[0][0]))
			if got := Get(b, k); string(got) != members[0][1] {
				t.Fatalf("Get(%q, %q) = %q, want %q", b, k, got, members[0][1])
			}
		}
	})
}

func TestValid(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `0`, `-0.5e+3`, `"a\u00e9\n"`, ` {"a":[1,{"b":null}],"c":true} `, `[[[]]]`, `{"a":"x\/y"}`} {
		if !Valid([]byte(s)) {
			t.Errorf("Valid(%q) = false, want true", s)
		}
	}
	for _, s := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]`, `01`, `1.`, `-`, `1e`, `"a`, "\"a\x01\"", `"\x"`, `"\u12"`, `tru`, `{} {}`, `{"a":1,}`, `[1 2]`, `nul`} {
		if Valid([]byte(s)) {
			t.Errorf("Valid(%q) = true, want false", s)
		}
	}
}

func TestFuzzValidSeeds(t *testing.T) { fuzzseed.Require(t, "FuzzValid") }

// FuzzValid: Valid agrees with json.Valid on every input.
func FuzzValid(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
	})
}

// A name of over MaxName bytes, as written, is refused at any depth.
func TestCheckMaxName(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"` + strings.Repeat("n", MaxName) + `":1}`, true},
		{`{"` + strings.Repeat("n", MaxName+1) + `":1}`, false},
		{`{"a":[{"` + strings.Repeat("n", MaxName+1) + `":1}]}`, false},
		{`{"a":"` + strings.Repeat("v", 10*MaxName) + `"}`, true},
	} {
		if ok := Check([]byte(tc.in), nil); ok != tc.ok {
			t.Errorf("Check(a name of %d bytes) = %v, want %v", len(tc.in)-8, ok, tc.ok)
		}
	}
}

// A top level of more than MaxMembers members is refused, so that the set
// of names Check keeps stays bounded.
func TestCheckMaxMembers(t *testing.T) {
	obj := func(n int) []byte {
		b := []byte("{")
		for i := range n {
			b = fmt.Appendf(b, `"k%d":0,`, i)
		}
		return append(b[:len(b)-1], '}')
	}
	if ok := Check(obj(MaxMembers), nil); !ok {
		t.Errorf("Check(%d members) = false, want true", MaxMembers)
	}
	if ok := Check(obj(MaxMembers+1), nil); ok {
		t.Errorf("Check(%d members) = true, want false", MaxMembers+1)
	}
}

func BenchmarkCheckImage(b *testing.B) {
	env := []byte(`{"id":12,"ok":true,"say":"Here.","dataUrl":"data:image/png;base64,` + strings.Repeat("QUJD", 11<<20/4) + `"}`)
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		Check(env, nil)
	}
}

func BenchmarkGetImage(b *testing.B) {
	env := []byte(`{"dataUrl":"data:image/png;base64,` + strings.Repeat("QUJD", 11<<20/4) + `","id":12}`)
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		Get(env, "id")
	}
}

func BenchmarkValidImage(b *testing.B) {
	env := []byte(`{"id":12,"ok":true,"dataUrl":"data:image/png;base64,` + strings.Repeat("QUJD", 11<<20/4) + `"}`)
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		Valid(env)
	}
}

// A string of escapes costs time in proportion to its length: a page could
// otherwise stall the bridge with one frame (T9). Doubling the string must
// not quadruple the work; measured against a plain string of the same size
// in the same run, not against the clock.
func TestEscapesTakeLinearTime(t *testing.T) {
	work := func(n int) (time.Duration, time.Duration) {
		esc := []byte(`{"s":"` + strings.Repeat(`\n`, n) + `"}`)
		plain := []byte(`{"s":"` + strings.Repeat("ab", n) + `"}`)
		start := time.Now()
		if !Valid(esc) || Get(esc, "s") == nil {
			t.Fatal("an escaped string was not read")
		}
		mid := time.Now()
		Valid(plain)
		Get(plain, "s")
		return mid.Sub(start), time.Since(mid)
	}
	// 1 MiB of escapes: quadratic scanning would take minutes, linear
	// well under a second; compare with 1,000 times the plain cost.
	esc, plain := work(1 << 19)
	if esc > 1000*plain+time.Second {
		t.Fatalf("1 MiB of escapes took %v (plain %v): the scan is not linear", esc, plain)
	}
}

func TestItems(t *testing.T) {
	var got []string
	if !Items([]byte(` [1, "a,]" ,{"b":[2,3]},[] ] `), func(v []byte) bool { got = append(got, string(v)); return true }) {
		t.Fatal("Items(array) = false")
	}
	if want := []string{`1`, `"a,]"`, `{"b":[2,3]}`, `[]`}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Items = %q, want %q", got, want)
	}
	n := 0
	Items([]byte(`[1,2,3]`), func([]byte) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("Items went on after false: %d calls", n)
	}
	for _, bad := range []string{`{}`, `"x"`, `[1,2`, ``} {
		if Items([]byte(bad), func([]byte) bool { return true }) {
			t.Errorf("Items(%q) = true", bad)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"ok":true}`, true}, {` {"a":[1,{"b":"c"}]} `, true},
		{`[1]`, false}, {`"x"`, false}, {`{"a":"raw` + "\n" + `newline"}`, false},
		{`{"a":1}{"b":2}`, false}, {`{"a":`, false}, {``, false},
		// One rule for duplicate names: none at any depth, however
		// spelled.
		{`{"ok":true,"say":"a","say":"b"}`, false}, {`{"a":1,"\u0061":2}`, false},
		{`{"\u00e9":1,"é":2}`, false}, {`{"a":{"b":1,"b":2}}`, false}, {`{"c":[{"d":1,"d":2}]}`, false},
		{`{"c":[{"d":1},{"d":2}],"d":{"d":{"d":3}}}`, true}, {`{"a":{"\u0062":1,"b":2}}`, false},
		{"{\"a\":{\"\xff\":1,\"\xfe\":2}}", false}, {`{"a":[[{"x":1,"y":2,"x":3}]]}`, false},
		{`{"a":1,"A":2,"a ":3}`, true},
		// A name that does not print as it decodes is refused: every exit
		// strips what security/unprintable names, so "o\u200bk" would
		// print as "ok", and a reader that compares names exactly would
		// not take it for one.
		{`{"ok":true,"o\u200bk":false}`, false}, {"{\"ok\":true,\"o\u200bk\":false}", false},
		{`{"a":{"savedTo":"x","saved\u202eTo":"y"}}`, false}, {`{"a\u0000":1,"a":2}`, false},
		{`{"a\t":1,"a":2}`, true}, {`{"o\u200bk":true}`, false}, {`{"x":[{"ok\u00ad":1}]}`, false},
		{`{"\u00e9t\u00e9":1,"\uffff":2}`, false}, {`{"\u00e9t\u00e9":1,"日本":2,"a\nb":3}`, true},
	} {
		if ok := Check([]byte(tc.in), nil); ok != tc.ok {
			t.Errorf("Check(%q) = %v; want %v", tc.in, ok, tc.ok)
		}
	}
}

// A reply of millions of tiny entries (issue 19: 28 million zeros), which
// Check walks whole.
func BenchmarkCheckNumbers(b *testing.B) {
	env := []byte(`{"ok":true,"files":[0` + strings.Repeat(",0", 4<<20) + `]}`)
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		Check(env, nil)
	}
}

// Objects past smallObject keep their names in a set: a name given twice
// is found there too, in an object nested in another, and a sibling with
// the same names is its own object.
func TestCheckNamesInLargeObjects(t *testing.T) {
	obj := func(n int, dup bool) string {
		b := []byte("{")
		for i := range n {
			b = fmt.Appendf(b, `"k%d":{"k%d":[{"k0":1}]},`, i, i)
		}
		if dup {
			b = append(b, `"\u006b1":0,`...)
		}
		return string(append(b[:len(b)-1], '}'))
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"a":` + obj(40, false) + `,"b":` + obj(40, false) + `}`, true},
		{`{"a":` + obj(40, false) + `,"b":` + obj(40, true) + `}`, false},
		{`{"a":[` + obj(17, true) + `]}`, false},
		{`{"a":[` + obj(17, false) + `,` + obj(16, false) + `]}`, true},
		{`{"a":[` + obj(3, true) + `]}`, false},
	} {
		if ok := Check([]byte(tc.in), nil); ok != tc.ok {
			t.Errorf("Check(%.80q…) = %v, want %v", tc.in, ok, tc.ok)
		}
	}
}

// The names held in sets at once are bounded, however the objects nest:
// two objects of MaxMembers/2 members, one inside the other, are at the
// bound, and one more member is over it.
func TestCheckNamesHeldAreBounded(t *testing.T) {
	obj := func(n int, inner string) string {
		b := []byte("{")
		for i := range n {
			b = fmt.Appendf(b, `"k%d":0,`, i)
		}
		return string(append(b, `"in":`+inner+`}`...))
	}
	if ok := Check([]byte(obj(MaxMembers/2-1, obj(MaxMembers/2-1, "0"))), nil); !ok {
		t.Error("two nested objects of MaxMembers names in all: refused")
	}
	if ok := Check([]byte(obj(MaxMembers/2, obj(MaxMembers/2-1, "0"))), nil); ok {
		t.Error("two nested objects of MaxMembers+1 names in all: accepted")
	}
	if ok := Check([]byte(`{"a":`+obj(MaxMembers-1, "0")+`,"b":`+obj(MaxMembers-1, "0")+`}`), nil); !ok {
		t.Error("two sibling objects of MaxMembers names each: refused")
	}
}
