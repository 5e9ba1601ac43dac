package replyfiles

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Ready decides before the call what needs no reply: the folder, made when
// missing (issue 28). Names need no check: every one is built (issue 35).
func TestReady(t *testing.T) {
	dir := t.TempDir()
	hidden := filepath.Join(dir, ".hid")
	for _, tt := range []struct {
		name string
		o    Options
		ok   bool
	}{
		{"fine", Options{Dir: filepath.Join(dir, "new", "deeper"), FileName: "preview.png", TextFile: "notes.md"}, true},
		{"cannot be made", Options{Dir: "/proc/nope/out"}, false},
		{"hidden", Options{Dir: hidden}, false},
		{"any names", Options{Dir: dir, FileName: "../x.png", TextFile: "AGENT.md"}, true},
	} {
		err := Ready(tt.o)
		var nr *NotReady
		switch {
		case tt.ok && err != nil:
			t.Errorf("Ready(%s) = %v, want nil", tt.name, err)
		case !tt.ok && !errors.As(err, &nr):
			t.Errorf("Ready(%s) = %v, want a *NotReady", tt.name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new", "deeper")); err != nil {
		t.Errorf("Ready did not make the missing folder: %v", err)
	}
	if _, err := os.Stat(hidden); err == nil {
		t.Errorf("Ready made the hidden folder")
	}
}
