//go:build lexcount

package mcp

import (
	"context"
	"encoding/json"
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
}

// call_to_files reads the reply once at the door and walks its files
// list from what the door recorded (envelope.Reply.Entries), and shows
// the reply as it came (replyfiles.Options.AsItCame): its files list,
// which holds data URLs every one of which becomes a note
// (gate.Guard.EveryDataURL), is read once more by the gate's walk as the
// result is written, as any member with something to change is: 2 in
// all, however many entries. (Before, 3 and one more an entry: the list
// read again, each entry read again into an object, then the walk.)
func TestOneLexPerCallToFiles(t *testing.T) {
	file := `{"name":"a.png","w":[1,{"k":2}],"dataUrl":"data:image/png;base64,` + pngHead + `"}`
	env := []byte(`{"id":3,"ok":true,"say":"Exported.","files":[` + file + `,` + file + `,` + file + `],"n":1}`)
	before := envelope.Lexes()
	reply := mustReply(env)
	r := replyfiles.Save(reply, replyfiles.Options{Dir: t.TempDir(), AsItCame: true}) // as callToFiles
	toolResponse([]byte("3"), reply, saveReport(r), true)
	if got := envelope.Lexes() - before; got != 2 || len(r.Saved) != 3 {
		t.Errorf("saved %d files, read the reply %d times, want 3 and twice", len(r.Saved), got)
	}
}

// lexPage answers each frame with reply, reading the frame's id with
// encoding/json, which envelope.Lexes does not count.
type lexPage struct {
	srv   *Server
	reply string
}

func (p *lexPage) Send(b []byte) error {
	var f struct{ ID int64 }
	json.Unmarshal(b, &f)
	go p.srv.Hub.Deliver(p, f.ID, mustReply([]byte(`{"id":`+strconv.FormatInt(f.ID, 10)+`,`+p.reply+`}`)))
	return nil
}
func (p *lexPage) Close()          {}
func (p *lexPage) Reachable() bool { return true }

// The greeting's canvas reads scene.describe's answer once, at the door,
// and its items from what the door recorded: 1 in all. (Before, 1, the
// items list read again, and each item shown read again for each of its
// name, treatmentLabel, treatment, stitches and stitchCount looked up: 10
// here.)
func TestOneLexPerGreeting(t *testing.T) {
	srv := newTestServer()
	p := &lexPage{srv: srv, reply: `"ok":true,"say":"Hi.","items":[{"name":"A","treatment":"satin","stitchCount":12},{"name":"B","treatmentLabel":"Fill","stitches":3}],"omitted":1`}
	if _, err := srv.Hub.Reserve(p, false); err != nil {
		t.Fatal(err)
	}
	srv.Hub.Commit(p)
	s := srv.NewSession(context.Background(), newCapture())
	defer s.Close()
	before := envelope.Lexes()
	got := s.canvas(context.Background(), srv.Hub.State(), time.Second)
	if n := envelope.Lexes() - before; n != 1 || !strings.Contains(got, "2. B, Fill, 3 stitches") {
		t.Errorf("the canvas %q read the answer %d times, want once and item B", got, n)
	}
}
