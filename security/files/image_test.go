package files

import "testing"

func TestImageChecks(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0d")
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0}
	html := []byte("<html><script>")
	for _, tc := range []struct {
		mime string
		head []byte
		ok   bool
	}{
		{"image/png", png, true}, {"IMAGE/PNG", png, true}, {"image/jpg", jpeg, true},
		{"image/jpeg", png, false}, {"image/png", html, false}, {"text/html", html, false},
		{"image/svg+xml", []byte("<svg>"), false}, {"image/png", nil, false},
	} {
		if got := ImageOK(tc.mime, tc.head); got != tc.ok {
			t.Errorf("ImageOK(%q, %q) = %v, want %v", tc.mime, tc.head, got, tc.ok)
		}
	}
	for _, tc := range []struct {
		name, mime string
		head       []byte
		ok         bool
	}{
		{"preview.png", "image/png", png, true},
		{"preview.png", "text/html", html, false}, // issue 19
		{"preview.PNG", "image/png", html, false},
		{"photo.jpg", "image/png", png, false},
		{"design.svg", "image/svg+xml", []byte("<svg>"), true},
		{"export.bin", "image/png", html, false},
		{"export.bin", "application/octet-stream", html, true},
	} {
		if err := CheckOut(tc.name, tc.mime, tc.head); (err == nil) != tc.ok {
			t.Errorf("CheckOut(%q, %q, %q) = %v, want ok %v", tc.name, tc.mime, tc.head, err, tc.ok)
		}
	}
}
