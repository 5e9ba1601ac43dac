package cli

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A 60 MB reply of '<' saved with --out costs the shell at most the
// reply's size again (issue 34: 2.16 GB, when the reply was re-encoded,
// each '<' as six bytes, twice, and read by the door again): the door
// reads it in place and emit writes its members once, the long string cut
// to a note.
func TestOutOfSixtyMBOfAngles(t *testing.T) {
	if testing.Short() {
		t.Skip("60 MB")
	}
	reply := []byte(`{"ok":true,"dataUrl":"data:image/png;base64,` + pngB64 + `","note":"` + strings.Repeat("<", 60<<20) + `"}`)
	path := filepath.Join(t.TempDir(), "out.png")
	var stdout bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := door(reply, nil)
	if err == nil {
		r, err = saveImage(r, path, false, slog.New(slog.DiscardHandler))
	}
	if err == nil {
		emit(&stdout, r, args{flags: map[string]string{"out": path}})
	}
	runtime.ReadMemStats(&after)
	if err != nil || !strings.Contains(stdout.String(), `"savedType":"image/png"`) {
		t.Fatalf("call --out: %v, stdout %.300s", err, stdout.String())
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(reply)) {
		t.Errorf("call --out of a %d MB reply allocated %d MB, want at most the reply's size", len(reply)>>20, n>>20)
	}
}
