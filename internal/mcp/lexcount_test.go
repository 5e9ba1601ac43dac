//go:build lexcount

package mcp

import (
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
)

// The MCP face answers from the Reply the door made (page.Server.serve
// reads each frame once): writing the result reads no byte of it again,
// nested lists and objects included (issue 34). envelope.Lexes counts
// every read by the standard's reader, the door's and the gate's. Run with
// go test -tags lexcount.
func TestOneLexPerReply(t *testing.T) {
	env := []byte(`{"id":3,"ok":true,"say":"Exported.","dataUrl":"data:image/png;base64,` + pngHead + `","shapes":[{"id":"a1","name":"Rosé … ✓","at":[1,2.5,{"k":null}]},{"id":"a2"}],"meta":{"n":1,"tags":["x","y"]},"text":"hi"}`)
	before := envelope.Lexes()
	toolResponse([]byte("3"), mustReply(env), ownWords{}, false)
	reply := mustReply(env)
	r := replyfiles.Save(reply, replyfiles.Options{Dir: t.TempDir(), TextFile: "notes.txt", FileName: "p.png"})
	toolResponse([]byte("3"), r.Env, saveReport(r), true)
	if got := envelope.Lexes() - before; got != 2 {
		t.Errorf("two replies read %d times, want twice", got)
	}
}
