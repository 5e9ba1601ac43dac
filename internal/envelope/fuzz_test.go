package envelope

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

var strip = unprintable.Strip

// FuzzDecode holds the door to what encoding/json, an independent reader,
// makes of the same bytes: Decode accepts exactly the JSON objects of
// Unicode text in which no object names a member twice (and refuses such a one that is
// over its member bounds as ErrBadNames); what it accepts reads, member
// by member, as encoding/json reads it; and an Image is only ever a
// top-level dataUrl whose whole payload is canonical base64 of the image
// type it names. Into agrees on syntax and names given twice. The gate
// writes its members from what the door saw as it writes them read again,
// for every Guard, after a face's words and before its own members
// (sameAsWalkAll). Its lists' entries read as encoding/json reads them,
// recorded or streamed (entriesAsRead).
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		// Unicode text, too: no invalid UTF-8, no escaped lone surrogate.
		valid := json.Valid(b) && bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{")) && utf8.Valid(b) && !loneSurrogate(b)
		dup, members, longest, unprintable := namesOf(b)
		// Into, the door for an answer of a known shape, refuses what
		// Decode refuses for its syntax or for a name given twice.
		var st struct {
			OK bool `json:"ok"`
		}
		switch ierr := Into(b, &st); {
		case ierr == nil && (!valid || dup):
			t.Fatalf("Into(%q) accepted it; valid object %v, a name given twice %v", b, valid, dup)
		case errors.Is(ierr, ErrNotObject) && valid, errors.Is(ierr, ErrBadNames) && !dup:
			t.Fatalf("Into(%q) = %v; valid object %v, a name given twice %v", b, ierr, valid, dup)
		}
		// A name's raw form is at most 6 bytes a byte of its value (\u0000),
		// and its value at most 3 bytes a raw byte (an invalid byte is U+FFFD).
		switch {
		case err == nil && (!valid || dup || longest > 3*gate.MaxMemberName || unprintable):
			t.Fatalf("Decode(%q) accepted it; valid object %v, a name given twice %v, a name of %d bytes, one that does not print as it decodes %v", b, valid, dup, longest, unprintable)
		// Names held past gate.MaxOpenNames take 120 KB at least.
		case errors.Is(err, ErrBadNames) && (!valid || !dup && !unprintable && members <= gate.MaxMembers && 6*longest <= gate.MaxMemberName && len(b) < 120<<10):
			t.Fatalf("Decode(%q) = %v; valid object %v, a name given twice %v, %d members, a name of %d bytes", b, err, valid, dup, members, longest)
		case errors.Is(err, ErrNotObject) && valid:
			t.Fatalf("Decode(%q) = %v for a valid object", b, err)
		case err != nil:
			if r.Bytes() != nil || r.Members() != nil {
				t.Fatalf("Decode(%q) refused it but kept %q", b, r.Bytes())
			}
			return
		}
		var want map[string]json.RawMessage
		if json.Unmarshal(b, &want) != nil || len(want) != len(r.Members()) {
			t.Fatalf("Decode(%q) = %d members; encoding/json reads %d", b, len(r.Members()), len(want))
		}
		sameAsWalkAll(t, r)
		entriesAsRead(t, r)
		for _, m := range r.Members() {
			var got, exp any
			if json.Unmarshal(m.Value, &got) != nil || json.Unmarshal(want[m.Key], &exp) != nil || !reflect.DeepEqual(got, exp) {
				t.Fatalf("Decode(%q): member %q is %s; encoding/json reads %s", b, m.Key, m.Value, want[m.Key])
			}
		}
		img, ok := r.Image()
		if !ok {
			return
		}
		var url string
		json.Unmarshal(want["dataUrl"], &url)
		mime, p, perr := files.ParseDataURL([]byte(url))
		payload := string(p)
		data, derr := base64.StdEncoding.Strict().DecodeString(payload)
		if perr != nil || payload != string(img.Base64()) || derr != nil || base64.StdEncoding.EncodeToString(data) != payload ||
			img.MIME() == "" || files.ImageType(mime, data[:min(18, len(data))]) != img.MIME() || !strings.HasPrefix(img.MIME(), "image/") {
			t.Fatalf("Decode(%q) gave the image %s %q: not the dataUrl's canonical base64 of its type", b, img.MIME(), img.Base64())
		}
	})
}

// namesOf reads b with encoding/json's tokenizer: whether an object in it
// names a member twice, how many members it has in all, the length of its
// longest name, and whether a name does not print as it decodes (it holds
// a character security/unprintable strips).
func namesOf(b []byte) (dup bool, members, longest int, unprintable bool) {
	type frame struct {
		object, wantKey bool
		keys            map[string]bool
	}
	var stack []*frame
	d := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err == io.EOF || err != nil {
			return dup, members, longest, unprintable
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if top != nil && top.object {
				top.wantKey = true
			}
			stack = append(stack, &frame{object: tok == json.Delim('{'), wantKey: true, keys: map[string]bool{}})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			continue
		}
		if top == nil || !top.object {
			continue
		}
		if !top.wantKey {
			top.wantKey = true
			continue
		}
		k := tok.(string)
		longest = max(longest, len(k))
		unprintable = unprintable || strip(k) != k
		members++
		dup = dup || top.keys[k]
		top.keys[k] = true
		top.wantKey = false
	}
}

// loneSurrogate reports whether b, valid JSON, escapes a UTF-16 surrogate
// that is not half of a pair (a high \uD800-\uDBFF escape followed at
// once by a low \uDC00-\uDFFF one). A backslash is only ever in a string.
func loneSurrogate(b []byte) bool {
	half := func(i int) byte { // 'h' high, 'l' low, 0 neither, for the escape at i
		if i+5 >= len(b) || b[i] != '\\' || b[i+1] != 'u' || b[i+2]|0x20 != 'd' {
			return 0
		}
		switch c := b[i+3] | 0x20; {
		case c == '8' || c == '9' || c == 'a' || c == 'b':
			return 'h'
		case c >= 'c' && c <= 'f':
			return 'l'
		}
		return 0
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		switch half(i) {
		case 'h':
			if half(i+6) != 'l' {
				return true
			}
			i += 11
		case 'l':
			return true
		default:
			i++ // the escaped character, which may be a backslash
		}
	}
	return false
}
