package envelope

import (
	"encoding/base64"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/fuzzseed"
)

// canonicalBase64 accepts exactly what base64.StdEncoding writes: what
// decodes strictly and encodes back to the same bytes.
func FuzzCanonicalBase64(f *testing.F) {
	for _, s := range []string{"", "QQ==", "QR==", "QUI=", "QUJ=", "QUJD", "QUJD\n", "QU\nJD", "QUJD\"}", `QUJ\"`, "QUJD====", "=QUJ", "-_-_"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		dec, err := base64.StdEncoding.Strict().DecodeString(string(p))
		want := len(p) > 0 && err == nil && base64.StdEncoding.EncodeToString(dec) == string(p)
		if got := canonicalBase64(p); got != want {
			t.Fatalf("canonicalBase64(%q) = %v, want %v", p, got, want)
		}
	})
}

func TestFuzzCanonicalBase64Seeds(t *testing.T) { fuzzseed.Require(t, "FuzzCanonicalBase64") }
