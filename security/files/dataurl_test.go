package files

import (
	"strings"
	"testing"
)

func TestParseDataURL(t *testing.T) {
	tests := []struct {
		in            string
		ok            bool
		mime, payload string
	}{
		{"data:image/png;base64,iVBORw0KGgo=", true, "image/png", "iVBORw0KGgo="},
		{"data:image/svg+xml;charset=utf-8;base64,PHN2Zz4=", true, "image/svg+xml", "PHN2Zz4="},
		// One case rule (issue 19): the scheme, ";base64" and the type
		// are matched without regard to case.
		{"DATA:Image/PNG;BASE64,iVBO", true, "image/png", "iVBO"},
		{"Data:image/png;Base64,", true, "image/png", ""},
		{"data:image/png,rawtext", false, "", ""},
		{"data:;base64,AAAA", true, "", "AAAA"},
		{"data:image/png;base64", false, "", ""},
		{"data:image /png;base64,AAAA", false, "", ""},
		{"http://x/y.png", false, "", ""},
		// A type longer than any (RFC 6838) is read as none, never copied.
		{"data:image/" + strings.Repeat("p", 300) + ";base64,AAAA", true, "", "AAAA"},
	}
	for _, tt := range tests {
		in := []byte(tt.in)
		mime, payload, err := ParseDataURL(in)
		if ok := err == nil; ok != tt.ok || mime != tt.mime || string(payload) != tt.payload {
			t.Errorf("ParseDataURL(%q) = %q, %q, %v; want %q, %q, %v", tt.in, mime, payload, err, tt.mime, tt.payload, tt.ok)
		}
		if len(payload) > 0 && &payload[0] != &in[len(in)-len(payload)] {
			t.Errorf("ParseDataURL(%q) copied the payload", tt.in)
		}
	}
}
