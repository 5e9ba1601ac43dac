package envelope

import (
	"bytes"
	"encoding/base64"

	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// Image is a reply's dataUrl as the door found it: canonical base64, so no
// byte can end the JSON string it is copied into, of the type it claims
// (files.ImageType). Its base64 is a piece of the reply, never copied.
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

// DataURL returns the MIME type and payload, not decoded, of v, a raw
// dataUrl value; a string without escapes is read in place.
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

// b64 maps each byte to its base64 value, others to 0xFF.
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

// canonicalBase64 reports whether p is exactly what base64.StdEncoding
// writes (no bits set past the padded data). Branch-free per byte: an
// 8 MiB image is checked about as fast as it is read.
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
