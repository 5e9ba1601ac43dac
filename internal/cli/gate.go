package cli

import (
	"bytes"
	"io"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// emit writes doc, one JSON document, and a newline to stdout, through the
// gate to the model (security/gate; THREAT_MODEL.md T8, T9): the reader of
// a shell verb is usually an agent too, and what a page put in a reply (or
// in a status, through the bridge) would land in its context as surely as
// over MCP. Every document a verb prints goes through here; listen's lines
// too, each encoded by listen within bounds of its own. Whitespace is kept
// as it came, and a document with nothing to clean and nothing over the
// limits is printed byte for byte.
//
// With --raw nothing is cut, but invisible characters still go. The
// bridge's /call stays verbatim (protocol.md §4.2); the gate is the
// printing side's.
func emit(w io.Writer, doc []byte, a args) {
	_, saved := a.flags["out"]
	g := gate.Guard{Whole: a.has("raw"), Remedy: func(l gate.Left) string {
		if l.DataURL && l.At == "dataUrl" && !saved {
			return "run the call again with --out FILE to save the image, or with --raw to print it whole"
		}
		return "run the call again with --raw to print it whole"
	}}
	if !envelope.Valid(doc) {
		// door lets no such answer through; stdout stays one JSON
		// document all the same.
		doc = envelope.Bridge("bad_reply", "the answer is not valid JSON, so it is not printed")
	}
	doc, _ = g.Apply(doc)
	// A relayed reply comes with the bridge's own line end; one is written.
	doc = bytes.TrimSuffix(doc, []byte("\n"))
	w.Write(append(doc[:len(doc):len(doc)], '\n'))
}
