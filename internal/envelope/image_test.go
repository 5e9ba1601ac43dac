package envelope

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// files.Base64, the one rule the door's image takes, accepts exactly what
// base64.StdEncoding writes: what decodes strictly and encodes back to the
// same bytes.
func FuzzCanonicalBase64(f *testing.F) {
	for _, s := range []string{"", "QQ==", "QR==", "QUI=", "QUJ=", "QUJD", "QUJD\n", "QU\nJD", "QUJD\"}", `QUJ\"`, "QUJD====", "=QUJ", "-_-_"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		dec, err := base64.StdEncoding.Strict().DecodeString(string(p))
		want := err == nil && base64.StdEncoding.EncodeToString(dec) == string(p)
		if got := files.Base64(p); got != want {
			t.Fatalf("files.Base64(%q) = %v, want %v", p, got, want)
		}
	})
}

// BenchmarkDecodeImage is the door's cost on an 8 MiB render's reply:
// the check, the members and the image's check, in one call.
func BenchmarkDecodeImage(b *testing.B) {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
	data := png + strings.Repeat("QUJD", (11<<20-len(png))/4)
	env := []byte(`{"id":12,"ok":true,"say":"Here.","dataUrl":"data:image/png;base64,` + data + `"}`)
	b.SetBytes(int64(len(env)))
	b.ReportAllocs()
	for b.Loop() {
		if r, err := Decode(env); err != nil {
			b.Fatal(err)
		} else if _, ok := r.Image(); !ok {
			b.Fatal("no image")
		}
	}
}

// BenchmarkDecodeSmall is the door on a reply of a few members, as most
// are: its allocations are the reply's own (its members), not the lexer's.
func BenchmarkDecodeSmall(b *testing.B) {
	env := []byte(`{"id":12,"ok":true,"say":"Moved the star.","echo":"` + strings.Repeat("x", 200) + `","count":3,"at":{"x":1,"y":[2,3]}}`)
	b.SetBytes(int64(len(env)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(env); err != nil {
			b.Fatal(err)
		}
	}
}
