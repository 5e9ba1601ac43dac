package envelope

import (
	"encoding/json"
	"testing"
)

func TestObjectKeepsOrder(t *testing.T) {
	in := `{"id":7,"ok":true,"say":"Hi.","z":1,"a":{"b":[1,2]},"dataUrl":"data:image/png;base64,AAAA"}`
	o, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(o.With("savedBytes", 3).With("ok", false))
	if want := `{"id":7,"ok":false,"say":"Hi.","z":1,"a":{"b":[1,2]},"dataUrl":"data:image/png;base64,AAAA","savedBytes":3}`; string(b) != want {
		t.Fatalf("With = %s, want %s", b, want)
	}
	if !o.OK() {
		t.Fatal("OK() = false on ok:true")
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{"a":1} {}`, `{"a":}`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) = nil error, want error", in)
		}
	}
}

func TestSetAndWithout(t *testing.T) {
	o, err := Parse([]byte(`{"a":1,"savedTo":"x","b":2,"savedTo":"y"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		got  Object
		want string
	}{
		{"Set replaces the first and drops the rest", o.Set("savedTo", json.RawMessage(`"z"`)), `{"a":1,"savedTo":"z","b":2}`},
		{"Set appends a new member", o.Set("c", json.RawMessage(`3`)), `{"a":1,"savedTo":"x","b":2,"savedTo":"y","c":3}`},
		{"Set nil drops every one", o.Set("savedTo", nil), `{"a":1,"b":2}`},
		{"Without drops every one named", o.Without("savedTo", "a"), `{"b":2}`},
	} {
		b, err := json.Marshal(tt.got)
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: %s (%v), want %s", tt.name, b, err, tt.want)
		}
	}
}
