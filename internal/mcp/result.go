package mcp

import (
	"slices"
	"strconv"
	"sync"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// toolResponse builds the tools/call response for request id from a reply
// the door decoded (protocol.md §3.5): a text block of the say line, then
// the envelope as compact JSON without its transport id, bounded by
// modelGuard; an image (envelope.Image) as an image block; isError for any
// reply but ok:true. A bridge tool's own words (own) are a text block
// after the reply's, never inside it.
//
// Every byte is encoded here but the image's base64, which only the door's
// envelope.Image gives, canonical, so no byte of it can end the string it
// is written into; it aliases the reply, uncopied.
func toolResponse(id []byte, env envelope.Reply, own ownWords, modern bool) Message {
	img, hasImage := env.Image()
	if slices.Contains(own.saved, "dataUrl") {
		hasImage = false
	}
	guard := modelGuard
	if own.guard != nil {
		guard = *own.guard
	}
	var say string
	if v := env.Get("say"); v != nil {
		var cut bool
		if say, cut = guard.Note("say", v); !cut {
			// The page's lines stay lines, but none reads as the bridge's
			// (docs/protocol.md §3.5).
			say, _ = gate.String(v)
			say = gate.Unmark(say)
		}
	}
	// Room for the text as the gate bounds it, not for the whole reply: a
	// reply of megabytes is cut to notes. The text is copied into the
	// answer below, so its buffer serves the next reply too.
	tb := textBuffers.Get().(*[]byte)
	defer textBuffers.Put(tb)
	text := slices.Grow((*tb)[:0], len(say)+2+min(len(env.Bytes())-len(img.Base64()), gate.MaxTotal+gate.MaxString))
	defer func() { *tb = text[:0] }()
	if say != "" {
		text = append(text, say...)
		text = append(text, "\n\n"...)
	}
	// The envelope without its transport id, nor the image it carries,
	// nor what the bridge saved to files, bounded as a whole by the gate.
	text = guard.AppendObject(text, func(yield func(string, gate.Value) bool) {
		for _, m := range env.Members() {
			if m.Key == "id" || (hasImage && m.Key == "dataUrl") || slices.Contains(own.saved, m.Key) {
				continue
			}
			if !yield(m.Key, m.Gated()) {
				return
			}
		}
	}, nil)
	// One reading of ok on both faces (protocol.md §3.5, §4.4): a reply
	// succeeds only when it says ok:true; ok:false, a missing ok or one
	// that is not a boolean is isError here and exit 1 in the shell.
	failed := own.refused || !env.OK()
	// The reply's text block, its image block when there is an image, then
	// the bridge's own words.
	head := make([]byte, 0, len(text)+len(id)+len(modernHead)+len(own.words)+96)
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	head = append(head, `,"result":`...)
	head = resultHead(head, string(text), modern)
	if !hasImage {
		return one(append(resultEnd(head, own.words, failed), "}\n"...))
	}
	head = append(head, `,{"type":"image","data":"`...)
	tail := make([]byte, 0, len(img.MIME())+len(own.words)+96)
	tail = append(tail, `","mimeType":`...)
	tail = gate.AppendString(tail, img.MIME())
	tail = append(tail, '}')
	return Message{{Encoded: head, Image: img}, {Encoded: append(resultEnd(tail, own.words, failed), "}\n"...)}}
}

// textBuffers hold toolResponse's text between replies: one allocation
// less a call. A buffer is no larger than the gate lets a text be, and the
// pool lets its buffers go at each collection.
var textBuffers = sync.Pool{New: func() any { return new([]byte) }}

// ownMark starts the bridge's own block of a result.
const ownMark = "[bridge] "

// ownWords is what a file tool adds to the reply it passes on, which is
// never rewritten to say it.
type ownWords struct {
	words   string      // the bridge's, in a text block after the reply's
	saved   []string    // top-level members saved to files: left out, as an image is
	refused bool        // isError though the reply says ok:true
	guard   *gate.Guard // the reply's guard, when not modelGuard
}

// textResult is a result of one text block, in the era's shape.
func textResult(text string, isError, modern bool) []byte {
	return resultEnd(resultHead(nil, text, modern), "", isError)
}

// resultHead opens every tools/call result, its content list and its
// first text block.
func resultHead(dst []byte, text string, modern bool) []byte {
	if modern {
		dst = append(dst, modernHead...)
		dst = append(dst, ',')
	} else {
		dst = append(dst, '{')
	}
	dst = append(dst, `"content":[`...)
	return textBlock(dst, text)
}

// textBlock writes every text block of a result, and is where its text
// passes the gate to the model (gate.Text: cleaned, bounded), whoever built
// it. TestGateIsTheOnlyWayToTheModel holds that nothing else writes one.
func textBlock(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"text","text":`...)
	dst = gate.AppendString(dst, gate.Text(text))
	return append(dst, '}')
}

// resultEnd closes the content list, after a text block of the bridge's
// own words if any, and the result. That block starts ownMark, which no
// line of a page's starts (gate.Unmark, and the guard's marked escape in
// the reply's JSON), so a model knows it for the bridge's
// (docs/protocol.md §3.5).
func resultEnd(dst []byte, own string, isError bool) []byte {
	if own != "" {
		dst = textBlock(append(dst, ','), ownMark+own)
	}
	dst = append(dst, `],"isError":`...)
	dst = strconv.AppendBool(dst, isError)
	return append(dst, '}')
}
