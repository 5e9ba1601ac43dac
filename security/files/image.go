package files

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// SniffLen is how many leading bytes of a file sniff needs (ImageOK, CheckOut).
const SniffLen = 12

// sniff returns the MIME type of an image recognised by its leading bytes
// (SniffLen of them suffice): image/png, image/jpeg, image/gif or
// image/webp; "" for anything else.
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

// ImageOK reports whether data that a page calls an image of type mime is
// one, by its leading bytes: true only for a PNG, JPEG, GIF or WebP image
// of that very type. It decides what becomes an MCP image block.
func ImageOK(mime string, head []byte) bool {
	got := sniff(head)
	return got != "" && got == rasterType(mime)
}

// CheckOut is the rule for call --out: the file the user named, of the
// data URL a page claims to be of type mime, whose leading bytes are head.
// A name with an image extension (.png, .jpg, .jpeg, .gif, .webp) takes
// only that image; a claim of one of those types must be true of the
// bytes. Anything else (an SVG into design.svg) is the user's choice.
// The error never quotes the page's type.
func CheckOut(name, mime string, head []byte) error {
	got := sniff(head)
	if want, ok := images[strings.ToLower(filepath.Ext(name))]; ok && got != want {
		return fmt.Errorf("files: %s is to hold %s, but the bytes of the reply's image are not %s", filepath.Base(name), want, want)
	}
	if want := rasterType(mime); want != "" && got != want {
		return fmt.Errorf("files: the reply's image claims to be %s, but its bytes are not", want)
	}
	return nil
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
