package mcp

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
)

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A 60 MB reply of '<' saved by call_to_files costs the bridge at most the
// reply's size again (issue 34: 1.33 GB, when the reply was re-encoded,
// each '<' as six bytes, twice, and read by the door again): the door
// reads it in place, the text is saved from the reply's own bytes, and the
// model's text cuts the string to a note.
func TestCallToFilesOfSixtyMBOfAngles(t *testing.T) {
	if testing.Short() {
		t.Skip("60 MB")
	}
	text := strings.Repeat("<", 60<<20)
	env := []byte(`{"id":3,"ok":true,"files":[{"name":"a.dst","dataUrl":"data:application/octet-stream;base64,TEE6AP8="}],"text":"` + text + `","note":"` + text[:1<<20] + `"}`)
	dir := t.TempDir()
	var m Message
	var r replyfiles.Result
	n := allocated(func() {
		reply := mustReply(env)
		r = replyfiles.Save(reply, replyfiles.Options{Dir: dir, TextFile: "notes.txt"})
		m = toolResponse([]byte("3"), reply, saveReport(r), false)
	})
	saved := ""
	for _, p := range r.Saved {
		if p.Where == "text" {
			saved = p.Path
		}
	}
	if b, err := os.ReadFile(saved); err != nil || len(b) != len(text) || filepath.Dir(saved) != dir {
		t.Fatalf("the text saved as %q: %d bytes, %v; want the text in %s", saved, len(b), err, dir)
	}
	if line := m.join(); strings.Count(string(line), "<") > 1<<20/2 {
		t.Errorf("the result holds %d '<': the long strings were not cut", strings.Count(string(line), "<"))
	}
	if n > uint64(len(env)) {
		t.Errorf("call_to_files of a %d MB reply allocated %d MB, want at most the reply's size", len(env)>>20, n>>20)
	}
}
