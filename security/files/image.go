package files

import (
	"bytes"
	"strings"
)

// SniffLen is how many leading bytes of a file sniff needs (ImageOK, Pending).
const SniffLen = 12

// sniff returns the MIME type of a PNG, JPEG, GIF or WebP image by its
// leading bytes, or "".
func sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// ImageType returns the image type head's bytes sniff as when it is the
// one mime claims, else "": an MCP image block is named in the bridge's
// words rather than the page's.
func ImageType(mime string, head []byte) string {
	if got := sniff(head); got != "" && got == rasterType(mime) {
		return got
	}
	return ""
}

// rasterType is mime, lower case and without parameters, if it is one of
// the types sniff knows; "" otherwise. It is looked up by its subtype as an
// extension in images, so image/jpg reads as image/jpeg, as .jpg does.
func rasterType(mime string) string {
	mime, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mime)), ";")
	if sub, ok := strings.CutPrefix(mime, "image/"); ok {
		return images["."+sub]
	}
	return ""
}
