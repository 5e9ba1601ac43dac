package mcp

import (
	"encoding/base64"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
)

// call_to_files answers with the reply as a call gives it, then its own
// block; a file's data URL too long for the model is a note there, and the
// note points to that block, never to call_to_files again, which would
// save the files twice. Its top-level image and text, saved, are left out
// of the reply's block, and no image block goes with it.
func TestCallToFilesAnswer(t *testing.T) {
	dst := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("LA:\x00", 1000)))
	env := []byte(`{"id":3,"ok":true,"say":"Exported.","files":[{"name":"a.dst","dataUrl":"data:application/octet-stream;base64,` + dst + `"}],` +
		`"dataUrl":"data:image/png;base64,` + pngHead + `","text":"notes","n":1}`)
	dir := t.TempDir()
	for _, modern := range []bool{false, true} {
		reply := mustReply(env)
		r := replyfiles.Save(reply, replyfiles.Options{Dir: dir, FileName: "p.png", TextFile: "t.txt", Overwrite: true})
		texts, image, isError, _ := decodeResult(t, toolResponse([]byte("3"), reply, saveReport(r), modern))
		if len(texts) != 2 || image != "" || isError {
			t.Fatalf("modern %v: %d text blocks, image %q, isError %v; want 2, none, false: %q", modern, len(texts), image, isError, texts)
		}
		wantReply := "Exported.\n\n" + `{"ok":true,"say":"Exported.","files":[{"name":"a.dst","dataUrl":"[bridge: a 5,373-character data URL was left out here (at files.0.dataUrl); the bridge's block after this one says whether call_to_files saved it, and where]"}],"n":1}`
		if texts[0] != wantReply {
			t.Errorf("modern %v: the reply's block %q, want %q", modern, texts[0], wantReply)
		}
		for _, want := range []string{"[bridge] call_to_files saved ", "files[0] -> " + strconv.Quote(filepath.Join(dir, "a.stitchslop.dst")), "dataUrl -> " + strconv.Quote(filepath.Join(dir, "p.stitchslop.png")), "text -> " + strconv.Quote(filepath.Join(dir, "t.stitchslop.txt")), "less the dataUrl and text saved"} {
			if !strings.Contains(texts[1], want) {
				t.Errorf("modern %v: the bridge's block %q, want it to say %q", modern, texts[1], want)
			}
		}
	}
}
