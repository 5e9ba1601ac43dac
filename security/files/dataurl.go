package files

import (
	"bytes"
	"errors"
	"fmt"
)

// ParseDataURL is the one data URL parser (RFC 2397, base64 form only). It
// reads url, a piece of a reply, in place: payload is a piece of it,
// neither decoded nor checked, and the part before the comma, which a page
// can make as long as the reply, is never copied. mime is the type
// lower-cased without parameters; "" when longer than any type is
// (maxMIME). A type holding a space, quote or line break is refused.
// Errors never quote the URL, which may be large or hostile.
func ParseDataURL(url []byte) (mime string, payload []byte, err error) {
	if len(url) < 5 || !bytes.EqualFold(url[:5], []byte("data:")) {
		return "", nil, errors.New("files: not a data URL")
	}
	meta, payload, found := bytes.Cut(url[5:], []byte(","))
	const b64 = ";base64"
	notBase64 := fmt.Errorf("files: data URL of %d bytes is not ;base64,", len(url))
	switch {
	case !found && bytes.IndexByte(url[5:], ';') < 0:
		return "", nil, fmt.Errorf("files: data URL of %d bytes has no data", len(url))
	case !found || len(meta) < len(b64) || !bytes.EqualFold(meta[len(meta)-len(b64):], []byte(b64)):
		return "", nil, notBase64
	}
	typ, _, _ := bytes.Cut(meta[:len(meta)-len(b64)], []byte(";"))
	if bytes.ContainsAny(typ, " \t\r\n\"") {
		return "", nil, notBase64
	}
	if len(typ) <= maxMIME {
		mime = string(asciiLower(typ))
	}
	return mime, payload, nil
}

// asciiLower lower-cases ASCII letters only: strings.ToLower would read
// "İmage/png" as image/png, a type other readers do not see.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// maxMIME is RFC 6838's longest type: a name and a subtype of 127
// characters each.
const maxMIME = 2*127 + 1

// Base64Payload is the payload of url (ParseDataURL) checked by the one rule
// (Base64), not decoded nor copied: what Batch.SaveBase64 takes.
func Base64Payload(url []byte) ([]byte, error) {
	_, payload, err := ParseDataURL(url)
	if err == nil && !Base64(payload) {
		return nil, fmt.Errorf("files: data URL of %d bytes: %s", len(url), NotBase64)
	}
	return payload, err
}

// NotBase64 says why a payload fails Base64, quoting none of it.
const NotBase64 = "bad base64: not standard base64 as written, padded, without line breaks"

// Base64 is the one rule for a data URL's payload, wherever the bridge
// takes one (an image block, --out, --save, call_to_files; docs/protocol.md
// §3.5): standard base64 as base64.StdEncoding writes it, and nothing
// else: whole quanta of the alphabet, "=" only as the padding of the last,
// no bits set past the data, no line breaks. Each payload then has one
// reading, so every face saves the same bytes or refuses the same payload;
// and no byte of it can end a JSON string it is copied into. One pass
// without branches per byte: an 8 MiB image's 11 MB take about as long as
// reading them.
func Base64(p []byte) bool {
	if len(p)%4 != 0 {
		return false
	}
	if len(p) == 0 {
		return true
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

// b64 maps each byte to its value in the standard alphabet, and every
// other byte to 0xFF.
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
