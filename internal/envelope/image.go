package envelope

import (
	"bytes"
	"encoding/base64"

	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// Image is the image a reply's top-level dataUrl carries, as the door
// found it: the whole payload canonical standard base64 (canonicalBase64),
// so that no byte of it can end the JSON string it is copied into, and
// decoding to the image type it claims (files.ImageType). Only the door
// makes one. Its base64 is a piece of the reply's bytes when the page
// wrote the string without escapes, as pages do: never copied, never
// decoded.
type Image struct {
	mime string
	data []byte
}

// MIME returns the image's type as its bytes say it (files.ImageType),
// which is the type the data URL claims: image/png, image/jpeg, image/gif
// or image/webp, never the page's spelling of it.
func (im Image) MIME() string { return im.mime }

// Base64 returns the image's payload: canonical standard base64, which an
// MCP image block carries as it is. It must not be changed.
func (im Image) Base64() []byte { return im.data }

// imageOf returns the image v, the raw value of a dataUrl member, holds,
// or the zero Image when it holds none that may pass as one.
func imageOf(v []byte) Image {
	mime, data, ok := DataURL(v)
	if !ok || !canonicalBase64(data) {
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

// DataURL reads v, a raw JSON value of a reply (its top-level dataUrl),
// for every face: the MIME type of a base64 data URL (files.SplitDataURL)
// and its payload, not decoded. A string without escapes, as pages write
// them, is read in place: payload is a piece of v, never a copy.
func DataURL(v []byte) (mime string, payload []byte, ok bool) {
	s, plain := Plain(v)
	if !plain {
		u, isString := String(v)
		if !isString {
			return "", nil, false
		}
		s = []byte(u)
	}
	head, payload, found := bytes.Cut(s, []byte(","))
	if !found {
		return "", nil, false // and no copy of a string that is no data URL
	}
	mime, _, ok = files.SplitDataURL(string(head) + ",")
	return mime, payload, ok
}

// b64 maps each byte to its value in the standard base64 alphabet
// (A-Z a-z 0-9 + /), and every other byte to 0xFF.
var b64 = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range t {
		t[i] = 0xFF
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// canonicalBase64 reports whether p is standard base64 as
// base64.StdEncoding writes it, and nothing else: whole quanta of the
// alphabet, "=" only as the padding of the last one, and no bits set past
// the data it pads. None of these bytes is a quote, a backslash or a
// control character, so p copied as is between quotes is one JSON string
// that decodes to p. One pass without branches per byte: an 8 MiB image's
// 11 MB take about as long as reading them.
func canonicalBase64(p []byte) bool {
	if len(p) == 0 || len(p)%4 != 0 {
		return false
	}
	body, last := p[:len(p)-4], p[len(p)-4:]
	var bad byte
	for len(body) >= 8 {
		bad |= b64[body[0]] | b64[body[1]] | b64[body[2]] | b64[body[3]] |
			b64[body[4]] | b64[body[5]] | b64[body[6]] | b64[body[7]]
		body = body[8:]
	}
	for _, c := range body {
		bad |= b64[c]
	}
	if bad&0x80 != 0 || b64[last[0]]|b64[last[1]] == 0xFF {
		return false
	}
	switch {
	case last[2] == '=' && last[3] == '=':
		return b64[last[1]]&0x0F == 0
	case last[3] == '=':
		return b64[last[2]] != 0xFF && b64[last[2]]&0x03 == 0
	}
	return b64[last[2]]|b64[last[3]] != 0xFF
}
