package files

import "testing"

func TestSplitDataURL(t *testing.T) {
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
	}
	for _, tt := range tests {
		mime, payload, ok := SplitDataURL(tt.in)
		if ok != tt.ok || mime != tt.mime || payload != tt.payload {
			t.Errorf("SplitDataURL(%q) = %q, %q, %v; want %q, %q, %v", tt.in, mime, payload, ok, tt.mime, tt.payload, tt.ok)
		}
	}
}
