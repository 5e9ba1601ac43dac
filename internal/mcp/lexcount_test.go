//go:build lexcount

package mcp

import (
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
)

// The MCP face answers from the Reply the door made (page.Server.serve
// reads each frame once): saving the reply's files and writing the result
// read no byte of it again (issue 34: call_to_files read a reply three
// times more). Run with go test -tags lexcount.
func TestOneLexPerReply(t *testing.T) {
	env := []byte(`{"id":3,"ok":true,"say":"Exported.","dataUrl":"data:image/png;base64,` + pngHead + `","files":[{"name":"a.dst","dataUrl":"data:application/octet-stream;base64,TEE6AP8="}],"text":"hi"}`)
	before := envelope.Lexes()
	reply := mustReply(env)
	r := replyfiles.Save(reply, replyfiles.Options{Dir: t.TempDir(), TextFile: "notes.txt", FileName: "p.png"})
	toolResponse([]byte("3"), reply, saveReport(r), true)
	toolResponse([]byte("3"), mustReply(env), ownWords{}, false)
	if got := envelope.Lexes() - before; got != 2 {
		t.Errorf("two replies read %d times, want twice", got)
	}
}
