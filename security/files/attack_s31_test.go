package files

import (
	"testing"
	"unicode/utf8"
)

// TestParseDataURLTypeIsItsOwnSpelling: ParseDataURL lower-cases
// the type with strings.ToLower, which maps some characters outside ASCII
// to ASCII letters (U+0130 İ to "i", U+212A KELVIN SIGN to "k"): a claim
// that is no type at all (RFC 6838 types are ASCII) reads as one, and
// the image door (envelope.DataURL, files.ImageType) passes
// "data:İmage/png;base64,..." as an image/png block, where a browser
// reads no image type in it. A type outside ASCII must read as none.
func TestParseDataURLTypeIsItsOwnSpelling(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	for _, in := range []string{
		"data:\u0130mage/png;base64,iVBORw0KGgo=",
		"data:image/png\u212a;base64,iVBORw0KGgo=",
	} {
		mime, _, err := ParseDataURL([]byte(in))
		if err != nil {
			continue // refused: no reading to disagree with
		}
		if mime != "" && utf8.RuneCountInString(mime) == len(mime) {
			t.Errorf("ParseDataURL(%q) reads a type outside ASCII as the ASCII type %q (ImageType: %q)", in, mime, ImageType(mime, png))
		}
	}
}
