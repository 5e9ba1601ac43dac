package replyfiles

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Ready decides before the call what needs no reply: the agent's names and
// the folder, made when missing (issue 28).
func TestReady(t *testing.T) {
	dir := t.TempDir()
	hidden := filepath.Join(dir, ".hid")
	for _, tt := range []struct {
		name  string
		o     Options
		field string // "" and ok: nil
		ok    bool
	}{
		{"fine", Options{Dir: filepath.Join(dir, "new", "deeper"), FileName: "preview.png", TextFile: "notes.md"}, "", true},
		{"cannot be made", Options{Dir: "/proc/nope/out"}, "dir", false},
		{"hidden", Options{Dir: hidden}, "dir", false},
		{"bad fileName", Options{Dir: dir, FileName: "../x.png"}, "fileName", false},
		{"bad textFile", Options{Dir: dir, TextFile: "AGENT.md"}, "textFile", false},
		{"one file", Options{Dir: dir, FileName: "x.json", TextFile: "X.JSON"}, "", false},
	} {
		err := Ready(tt.o)
		var nr *NotReady
		switch {
		case tt.ok && err != nil:
			t.Errorf("Ready(%s) = %v, want nil", tt.name, err)
		case !tt.ok && (!errors.As(err, &nr) || nr.Field != tt.field):
			t.Errorf("Ready(%s) = %v, want a *NotReady for %q", tt.name, err, tt.field)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new", "deeper")); err != nil {
		t.Errorf("Ready did not make the missing folder: %v", err)
	}
	if _, err := os.Stat(hidden); err == nil {
		t.Errorf("Ready made the hidden folder")
	}
}
