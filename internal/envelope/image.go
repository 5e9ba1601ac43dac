package envelope

import (
	"encoding/base64"

	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// Image is a reply's dataUrl as the door found it: standard base64 by the
// one rule (files.Base64), so no byte can end the JSON string it is copied
// into, of the type it claims (files.ImageType). Its base64 is a piece of
// the reply, never copied.
type Image struct {
	mime string
	data []byte
}

// MIME is the type as the bytes say it, never the page's spelling.
func (im Image) MIME() string { return im.mime }

// Base64 must not be changed.
func (im Image) Base64() []byte { return im.data }

func imageOf(v []byte) Image {
	mime, data, ok := DataURL(v)
	if !ok || !files.Base64(data) {
		return Image{}
	}
	head := make([]byte, 18)
	n, _ := base64.StdEncoding.Decode(head, data[:min(24, len(data))])
	typ := files.ImageType(mime, head[:n])
	if typ == "" {
		return Image{}
	}
	return Image{typ, data}
}

// DataURL returns the MIME type and payload, not decoded, of v, a raw
// dataUrl value, by the one parser (files.ParseDataURL), read in place: a
// string with an escape is none (EscapedDataURL), so no face copies one.
func DataURL(v []byte) (mime string, payload []byte, ok bool) {
	s, plain := gate.Plain(v)
	if !plain {
		return "", nil, false
	}
	mime, payload, err := files.ParseDataURL(s)
	return mime, payload, err == nil
}

// EscapedDataURL says why a dataUrl written with a JSON escape is not
// read: a browser's JSON.stringify escapes no character a data URL can
// hold, and reading one would mean decoding a copy of megabytes.
const EscapedDataURL = "its dataUrl holds a JSON escape, which no browser writes in a data URL; the bridge reads a data URL only as a browser writes it"
