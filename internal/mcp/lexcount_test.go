//go:build lexcount

package mcp

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
	// call_to_files of a files list: each entry saved, and the list written
	// in its place from the door's entries.
	files := []byte(`{"id":4,"ok":true,"files":[{"name":"a.png","dataUrl":"data:image/png;base64,` + pngHead + `","page":1},{"name":"b.png","dataUrl":"data:image/png;base64,` + pngHead + `","meta":{"w":2,"tags":["x"]}},{"name":"c.png","dataUrl":"data:image/png;base64,` + pngHead + `"}]}`)
	before = envelope.Lexes()
	r = replyfiles.Save(mustReply(files), replyfiles.Options{Dir: t.TempDir()})
	out := toolResponse([]byte("4"), r.Env, saveReport(r), true).join()
	if got := envelope.Lexes() - before; got != 1 || len(r.Saved) != 3 || bytes.Count(out, []byte(`savedBytes`)) != 3 {
		t.Errorf("call_to_files: read %d times, %d saved, want once and 3; %.300s", got, len(r.Saved), out)
	}
}

// The greeting describes the canvas from the door's reading of
// scene.describe's reply, its items list included.
func TestOneLexPerGreeting(t *testing.T) {
	srv := newTestServer()
	p := &lexFreePage{srv: srv, reply: `"ok":true,"say":"Hi.","items":[{"name":"A","treatmentLabel":"Satin","stitches":1234},{"name":"B","treatment":"run","stitchCount":5},{"name":"C","at":{"x":1}}]`}
	if _, err := srv.Hub.Reserve(p, false); err != nil {
		t.Fatal(err)
	}
	srv.Hub.Commit(p)
	s := srv.NewSession(context.Background(), newCapture())
	defer s.Close()
	before := envelope.Lexes()
	got := s.canvas(context.Background(), srv.Hub.State(), time.Second)
	if n := envelope.Lexes() - before; n != 1 || !strings.Contains(got, "2. B, run, 5 stitches\n3. C") {
		t.Errorf("canvas = %q, reading the reply %d times; want its items, and once", got, n)
	}
}

// lexFreePage answers as describePage does, finding the frame's id
// without the standard's reader, which the count would include.
type lexFreePage struct {
	srv   *Server
	reply string
}

var frameID = regexp.MustCompile(`"id":([0-9]+)`)

func (p *lexFreePage) Send(b []byte) error {
	id, _ := strconv.ParseInt(string(frameID.FindSubmatch(b)[1]), 10, 64)
	go p.srv.Hub.Deliver(p, id, mustReply([]byte(`{"id":`+strconv.FormatInt(id, 10)+`,`+p.reply+`}`)))
	return nil
}
func (p *lexFreePage) Close()          {}
func (p *lexFreePage) Reachable() bool { return true }
