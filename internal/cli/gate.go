package cli

import (
	"io"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// emit writes r and a newline to stdout, through the gate to the model
// (security/gate; THREAT_MODEL.md T8, T9): the reader of a shell verb is
// usually an agent too, and what a page put in a reply would land in its
// context as surely as over MCP. r is the door's value (envelope.Decode),
// or the shell's view of it once --out or --save saved what it carried
// (envelope.Reply.With): its members are written in one pass by the one
// encoder, gate.Guard.AppendObject, compact and bounded as a whole (at most
// gate.MaxItems members, gate.MaxGuarded bytes), then the shell's own
// (savedTo ..., envelope.Object.With), never cut (protocol.md §4.4); no
// byte of it is read by the door again or checked again.
//
// With --raw nothing is cut, but invisible characters still go. The
// bridge's /call stays verbatim (protocol.md §4.2); the gate is the
// printing side's.
func emit(w io.Writer, r envelope.Reply, a args) {
	g := shellGuard(a)
	out := make([]byte, 0, 64+min(len(r.Bytes()), gate.MaxTotal+gate.MaxString))
	out = g.AppendObject(out, r.Members().All(false), r.Members().All(true))
	w.Write(append(out, '\n'))
}

// emitDoc writes doc, a JSON document of the shell's own that holds
// strings a page or another bridge shaped (doctor's report, a listen
// line), and a newline to stdout, through the same gate. Whitespace stays
// as it came when nothing is cleaned or cut.
func emitDoc(w io.Writer, doc []byte) {
	doc, _ = shellGuard(args{}).Apply(doc)
	w.Write(append(doc[:len(doc):len(doc)], '\n'))
}

// shellGuard is the gate as the shell's stdout uses it: whole with --raw,
// and each note saying how to get what it left out.
func shellGuard(a args) gate.Guard {
	_, saved := a.flags["out"]
	return gate.Guard{Whole: a.has("raw"), Remedy: func(l gate.Left) string {
		if l.DataURL && l.At == "dataUrl" && !saved {
			return "run the call again with --out FILE to save the image, or with --raw to print it whole"
		}
		return "run the call again with --raw to print it whole"
	}}
}
