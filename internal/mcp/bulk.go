package mcp

import "github.com/stitchslop/stitchslop-bridge/security/gate"

// modelGuard is the bulk guard on what the model reads of a page reply
// (security/gate; THREAT_MODEL.md T8, T9): toolResponse passes each member
// of the envelope through it, and the say line that leads the text. The
// top-level image never goes through it: it leaves as an image block,
// copied from the reply's own bytes as the door's envelope.Image, the
// whole of it canonical base64.
var modelGuard = gate.Guard{Remedy: modelRemedy}

// modelRemedy tells the model how to get a string the guard left out: by
// call_to_files, which saves the reply's files, its top-level dataUrl and
// (with textFile) its long text to disk and answers with where they went,
// so the bytes never pass through the model (protocol.md
// §7.9). Rerunning the call on the shell is not offered:
// the same bytes would come back through the model's own output. A number
// no reader can hold has no remedy: no file holds it either.
func modelRemedy(l gate.Left) string {
	if l.Number {
		return ""
	}
	return "to get it, call call_to_files with the same command, args and a dir (and textFile to save long text): it saves the data as files and answers with their paths"
}

// savedGuard is modelGuard in call_to_files' answer: every data URL in the
// tab's reply is a note, however short, since the files are on disk and
// their bytes have no business in the model's context (protocol.md §7.15).
var savedGuard = gate.Guard{Remedy: savedRemedy, EveryDataURL: true}

// savedRemedy is modelRemedy in call_to_files' own answer, where a data
// URL left out was saved, or refused, as the block after the reply says:
// a model told to call call_to_files again would save the files twice.
func savedRemedy(l gate.Left) string {
	if l.DataURL {
		return "the bridge's block after this one says whether call_to_files saved it, and where"
	}
	return modelRemedy(l)
}
