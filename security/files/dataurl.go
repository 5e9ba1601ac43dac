package files

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// SplitDataURL is the one data URL parser (RFC 2397, base64 form only). It
// returns the MIME type lower-cased without parameters, and the payload
// undecoded. A type holding a space, quote or line break is refused.
func SplitDataURL(s string) (mime, payload string, ok bool) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "data:") {
		return "", "", false
	}
	meta, payload, ok := strings.Cut(s[5:], ",")
	const b64 = ";base64"
	if !ok || len(meta) < len(b64) || !strings.EqualFold(meta[len(meta)-len(b64):], b64) {
		return "", "", false
	}
	mime, _, _ = strings.Cut(meta[:len(meta)-len(b64)], ";")
	if strings.ContainsAny(mime, " \t\r\n\"") {
		return "", "", false
	}
	return strings.ToLower(mime), payload, true
}

// DecodeDataURL splits a data URL and decodes its payload. Errors never
// quote the URL, which may be large or hostile.
func DecodeDataURL(s string) (mime string, data []byte, err error) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "data:") {
		return "", nil, errors.New("files: not a data URL")
	}
	mime, payload, ok := SplitDataURL(s)
	switch {
	case !strings.ContainsAny(s[5:], ";,"):
		return "", nil, fmt.Errorf("files: data URL of %d bytes has no data", len(s))
	case !ok:
		return "", nil, fmt.Errorf("files: data URL of %d bytes is not ;base64,", len(s))
	}
	data, err = base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, fmt.Errorf("files: data URL of %d bytes: bad base64: %w", len(s), err)
	}
	return mime, data, nil
}
