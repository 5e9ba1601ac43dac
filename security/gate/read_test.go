package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

func TestEach(t *testing.T) {
	in := []byte(` { "id" : 7 , "ok":true, "s":"a\"}b", "o":{"x":[1,{"y":"]"}]}, "n":null, "e\u0041":-1.5e3 } `)
	var got []string
	if !Each(in, func(k string, v []byte) bool { got = append(got, k+"="+string(v)); return true }) {
		t.Fatal("Each = false on an object")
	}
	want := []string{`id=7`, `ok=true`, `s="a\"}b"`, `o={"x":[1,{"y":"]"}]}`, `n=null`, `eA=-1.5e3`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Each members = %q, want %q", got, want)
	}
	if v := Get(in, "eA"); string(v) != "-1.5e3" {
		t.Fatalf(`Get("eA") through an escaped key = %q, want -1.5e3`, v)
	}
	for _, bad := range []string{`[1]`, `"x"`, `7`, ``} {
		if Each([]byte(bad), func(string, []byte) bool { return true }) {
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

// FuzzEach: on any valid JSON object, Each (jsontext, read leniently: the
// door checked the names) yields the members encoding/json
// sees, in order, and Get agrees with Each; on anything else it never
// panics.
func FuzzEach(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		var members [][2]string
		ok := Each(b, func(k string, v []byte) bool {
			members = append(members, [2]string{k, string(v)})
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
			if k := members[i][0]; k != kt.(string) {
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
			k := members[0][0]
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

// FuzzValid: Valid agrees with json.Valid on every input.
func FuzzValid(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
	})
}
