package files

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

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
		if got := ImageType(tc.mime, tc.head); (got != "") != tc.ok || got != "" && got != sniff(tc.head) {
			t.Errorf("ImageType(%q, %q) = %q, want ok %v", tc.mime, tc.head, got, tc.ok)
		}
	}
	// --out writes an image only, of the type its name says, whatever
	// type the reply claims (TestT16_OutIsAnImageOfItsName in e2e).
	for _, tc := range []struct {
		name string
		head []byte
		ok   bool
	}{
		{"preview.png", png, true},
		{"preview.png", html, false}, // issue 19
		{"preview.PNG", html, false},
		{"photo.jpg", png, false},
	} {
		dir := tempDir(t)
		var be *BytesError
		p, err := Out(filepath.Join(dir, tc.name), false)
		if err == nil {
			p.Write(tc.head)
			err = p.Commit(false)
		}
		if (err == nil) != tc.ok || (err != nil && !errors.As(err, &be)) {
			t.Errorf("Out(%q) with %q: %v, want ok %v (or a *BytesError)", tc.name, tc.head, err, tc.ok)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != map[bool]int{true: 1, false: 0}[tc.ok] {
			t.Errorf("Out(%q) with %q left %v", tc.name, tc.head, ents)
		}
	}
}
