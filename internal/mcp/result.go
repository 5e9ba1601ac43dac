package mcp

import (
	"encoding/base64"
	"strconv"

	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/rawjson"
)

// toolResponse builds the tools/call response for request id from a page
// envelope (protocol.md §3.5), which only rawjson.Check can have made: the
// one validation every reply passes, from the tab, a leader or the bridge
// itself. One text block, intro and the say line
// first, then the envelope as compact JSON without its transport id; a
// dataUrl becomes an image block and leaves the text; ok:false is isError,
// and so is any reply when refused (a save report that refused a file). In
// the text, strings too long for a model are replaced by a note
// (modelGuard); the image is not text and is never cut.
//
// It reads env in place. Every byte of the Message is encoded here (the
// text by gate.AppendString) but the image's base64, which dataURL gives
// only when the whole of it is canonical base64: no byte of it can end the
// JSON string it is written into. It is not decoded or copied: it is a
// piece of the returned Message that aliases env (or, when the page wrote
// it with escapes, a copy of its value).
func toolResponse(id []byte, checked rawjson.Checked, intro string, refused, modern bool) Message {
	env := checked.Bytes()
	var say string
	var failed bool
	var img []byte // the base64 payload, in place
	var mime string
	rawjson.Each(env, func(k, v []byte) bool {
		switch {
		case rawjson.KeyIs(k, "say"):
			var cut bool
			if say, cut = modelGuard.Note(k, v); !cut {
				say, _ = rawjson.String(v)
			}
		case rawjson.KeyIs(k, "ok"):
			failed = string(v) == "false"
		case rawjson.KeyIs(k, "dataUrl") && img == nil:
			img, mime = dataURL(v)
		}
		return true
	})
	text := make([]byte, 0, len(intro)+len(say)+2+len(env)-len(img))
	text = append(text, intro...)
	if say != "" {
		text = append(text, say...)
		text = append(text, "\n\n"...)
	}
	text = append(text, '{')
	rawjson.Each(env, func(k, v []byte) bool {
		if rawjson.KeyIs(k, "id") || (img != nil && rawjson.KeyIs(k, "dataUrl")) {
			return true
		}
		if text[len(text)-1] != '{' { // no member's value ends with {
			text = append(text, ',')
		}
		// Compacted as json.Compact would, in the same pass.
		text = modelGuard.AppendMember(text, k, v)
		return true
	})
	text = append(text, '}')
	// The text block, then the image block when there is an image.
	head := make([]byte, 0, len(text)+len(id)+len(modernHead)+96)
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	head = append(head, `,"result":`...)
	head = resultHead(head, string(text), modern)
	if img == nil {
		return Message{append(resultTail(head, "", refused || failed), "}\n"...)}
	}
	head = append(head, `,{"type":"image","data":"`...)
	return Message{head, img, append(resultTail(make([]byte, 0, len(mime)+48), mime, refused || failed), "}\n"...)}
}

// dataURL returns the base64 payload and MIME type of a raw JSON string of
// the form "data:<mime>;base64,<data>" when it is an image block's worth,
// or nil: the whole payload canonical standard base64 (canonicalBase64),
// so that no byte of it can end the JSON string it is copied into, and
// decoding to the image type it claims (files.ImageOK). Any other data
// URL stays in the text, where the gate notes it. The payload is read in
// place when the string has no escapes (the usual case), as
// replyfiles.DataURL reads it.
func dataURL(v []byte) ([]byte, string) {
	mime, data, ok := replyfiles.DataURL(v)
	if !ok || !canonicalBase64(data) {
		return nil, ""
	}
	head := make([]byte, 18)
	n, _ := base64.StdEncoding.Decode(head, data[:min(24, len(data))])
	if !files.ImageOK(mime, head[:n]) {
		return nil, ""
	}
	return data, mime
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

// textResult is a tools/call result of one text block, in the era's shape.
func textResult(text string, isError, modern bool) []byte {
	return resultTail(resultHead(nil, text, modern), "", isError)
}

// resultHead and resultTail write every tools/call result there is, and
// resultHead is where its text passes the gate to the model (security/gate:
// invisible characters out, bounded), whoever built the text: a page's
// reply, a greeting, a status, a save report. TestGateIsTheOnlyWayToTheModel
// holds that nothing else writes a result's content.
func resultHead(dst []byte, text string, modern bool) []byte {
	if modern {
		dst = append(dst, modernHead...)
		dst = append(dst, ',')
	} else {
		dst = append(dst, '{')
	}
	dst = append(dst, `"content":[{"type":"text","text":`...)
	dst = gate.AppendString(dst, gate.Text(text))
	return append(dst, '}')
}

// resultTail closes the content list and the result: after the image's
// data, with its MIME type, when mime is given (an image's always is).
func resultTail(dst []byte, mime string, isError bool) []byte {
	if mime != "" {
		dst = append(dst, `","mimeType":`...)
		dst = gate.AppendString(dst, mime)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"isError":`...)
	dst = strconv.AppendBool(dst, isError)
	return append(dst, '}')
}
