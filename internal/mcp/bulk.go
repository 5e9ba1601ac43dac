package mcp

import "github.com/stitchslop/stitchslop-bridge/security/gate"

// modelGuard is the bulk guard on what the model reads of a page reply
// (security/gate; THREAT_MODEL.md T8, T9): toolResponse passes each member
// of the envelope through it, and the say line that leads the text. The
// top-level image never goes through it: it leaves as an image block,
// spliced from the reply's own bytes.
var modelGuard = gate.Guard{Compact: true, Remedy: modelRemedy}

// modelRemedy tells the model how to get a string the guard left out: the
// shell's call prints it whole with --raw. The control plane is served by
// this same bridge, so the shell reaches the same tab.
func modelRemedy(gate.Left) string {
	return "to get it whole, run the same call from a shell: stitchslop-bridge call COMMAND 'JSON-ARGS' --raw"
}
