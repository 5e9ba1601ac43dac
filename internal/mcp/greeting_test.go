package mcp

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// voiceSession is a session whose attached tab lists voice.listen.
func voiceSession(t *testing.T) (*Session, *Server) {
	t.Helper()
	s, _, page := sessionWithPage(t)
	srv := s.srv
	srv.ListenCommand = func(port int) string { return "stitchslop-bridge --port " + strconv.Itoa(port) + " listen --owner 1" }
	srv.Hub.SetTools(page, []toollist.Tool{{Name: "voice.listen", InputSchema: json.RawMessage(`{"type":"object"}`)}}, nil)
	return s, srv
}

// With no listener running the greeting gives the command; once one runs
// (this bridge's own, or the host's for a follower) it names its pid and
// starts nothing.
func TestVoicePartListenerAlreadyRunning(t *testing.T) {
	s, srv := voiceSession(t)
	if got, _ := s.voicePart(8787, srv.Hub.State(), nil); !strings.Contains(got, "--port 8787 listen --owner 1") || strings.Contains(got, "a listener is already running for this tab") {
		t.Errorf("voicePart with no listener = %q, want the command", got)
	}
	srv.Hub.NoteListener(os.Getpid())
	want := "a listener is already running for this tab (pid " + strconv.Itoa(os.Getpid()) + ")"
	if got, _ := s.voicePart(8787, srv.Hub.State(), nil); !strings.Contains(got, want) || strings.Contains(got, "listen --owner") {
		t.Errorf("voicePart with a listener = %q, want %q and no command", got, want)
	}
	if got, _ := s.voicePart(8787, srv.Hub.State(), []int{4242}); !strings.Contains(got, "(pid 4242)") {
		t.Errorf("voicePart of a follower whose host runs a listener = %q, want the host's pid", got)
	}
}

// thousands writes stitch counts as the greeting shows them.
func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12345: "-12,345"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
