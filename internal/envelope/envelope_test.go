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

func TestDataURL(t *testing.T) {
	tests := []struct {
		in       string
		ok       bool
		mime, b6 string
	}{
		{"data:image/png;base64,iVBORw0KGgo=", true, "image/png", "iVBORw0KGgo="},
		{"data:image/svg+xml;charset=utf-8;base64,PHN2Zz4=", true, "image/svg+xml", "PHN2Zz4="},
		{"data:image/png,rawtext", false, "", ""},
		{"data:;base64,AAAA", false, "", ""},
		{"http://x/y.png", false, "", ""},
	}
	for _, tt := range tests {
		im, ok := DataURL(tt.in)
		if ok != tt.ok || im.MIME != tt.mime || im.B64 != tt.b6 {
			t.Errorf("DataURL(%q) = %+v, %v; want {%s %s}, %v", tt.in, im, ok, tt.mime, tt.b6, tt.ok)
		}
	}
}
