package mcp

import (
	"strconv"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// toolResponse builds the tools/call response for request id from a page's
// reply (protocol.md §3.5) as the door decoded it (envelope.Decode), from
// the tab, a leader or the bridge itself. One text block, intro and the say
// line first, then the envelope as compact JSON without its transport id;
// an image (envelope.Image) becomes an image block and leaves the text;
// any reply but ok:true is isError (one reading of ok: the shell exits 1
// on it), and so is any reply when refused (a save report
// that refused a file). In the text, strings too long for a model are
// replaced by a note (modelGuard); the image is not text and is never cut.
//
// Every byte of the Message is encoded here (the text by gate.AppendString
// and modelGuard) but the image's base64, which only the door's
// envelope.Image gives: the whole of it checked to be canonical base64,
// which no byte of can end the JSON string it is written into. It is not
// decoded or copied: that piece of the Message aliases the reply.
func toolResponse(id []byte, env envelope.Reply, intro string, refused, modern bool) Message {
	img, hasImage := env.Image()
	var say string
	if v := env.Get("say"); v != nil {
		var cut bool
		if say, cut = modelGuard.Note("say", v); !cut {
			say, _ = envelope.String(v)
		}
	}
	// Room for the text as the gate bounds it, not for the whole reply: a
	// reply of megabytes is cut to notes.
	text := make([]byte, 0, len(intro)+len(say)+2+min(len(env.Bytes())-len(img.Base64()), gate.MaxTotal+gate.MaxString))
	text = append(text, intro...)
	if say != "" {
		text = append(text, say...)
		text = append(text, "\n\n"...)
	}
	// The envelope without its transport id, nor the image it carries,
	// bounded as a whole by the gate.
	text = modelGuard.AppendObject(text, func(yield func(string, []byte) bool) {
		for _, m := range env.Members() {
			if m.Key == "id" || (hasImage && m.Key == "dataUrl") {
				continue
			}
			if !yield(m.Key, m.Value) {
				return
			}
		}
	})
	// One reading of ok on both faces (protocol.md §3.5, §4.4): a reply
	// succeeds only when it says ok:true; ok:false, a missing ok or one
	// that is not a boolean is isError here and exit 1 in the shell.
	failed := refused || !env.OK()
	// The text block, then the image block when there is an image.
	head := make([]byte, 0, len(text)+len(id)+len(modernHead)+96)
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	head = append(head, `,"result":`...)
	head = resultHead(head, string(text), modern)
	if !hasImage {
		return one(append(resultTail(head, "", failed), "}\n"...))
	}
	head = append(head, `,{"type":"image","data":"`...)
	return Message{{Encoded: head, Image: img}, {Encoded: append(resultTail(make([]byte, 0, len(img.MIME())+48), img.MIME(), failed), "}\n"...)}}
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
