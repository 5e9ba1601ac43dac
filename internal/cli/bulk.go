package cli

import "github.com/stitchslop/stitchslop-bridge/security/gate"

// guardReply applies the bulk guard (security/gate; THREAT_MODEL.md T8, T9)
// to the envelope call prints, unless --raw: the reader of a shell verb is
// usually an agent too, and a page's megabytes would land in its context as
// surely as over MCP. The bridge's /call stays verbatim (protocol.md §4.2);
// the guard is the printing side's. Whitespace is kept as it came, and an
// envelope with nothing over the limits is printed byte for byte.
//
// saved says the top-level image has been written by --out already; without
// --out, an image left out is one that --out would save.
func guardReply(env []byte, a args, saved bool) []byte {
	if a.has("raw") {
		return env
	}
	g := gate.Guard{Remedy: func(l gate.Left) string {
		if l.DataURL && l.At == "dataUrl" && !saved {
			return "run the call again with --out FILE to save the image, or with --raw to print it whole"
		}
		return "run the call again with --raw to print it whole"
	}}
	env, _ = g.Apply(env)
	return env
}
