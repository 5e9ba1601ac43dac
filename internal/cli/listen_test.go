package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/security/fuzzseed"
)

// listenMain runs listen against the bridges of dir and returns its exit
// code, its stdout lines and its stderr.
func listenMain(t *testing.T, dir string, args ...string) (int, []string, string) {
	t.Helper()
	var so, se bytes.Buffer
	done := make(chan int, 1)
	argv := append([]string{"--config-dir", dir, "listen"}, args...)
	go func() { done <- Main(context.Background(), argv, strings.NewReader(""), &so, &se) }()
	select {
	case code := <-done:
		var lines []string
		if s := strings.TrimSuffix(so.String(), "\n"); s != "" {
			lines = strings.Split(s, "\n")
		}
		return code, lines, se.String()
	case <-time.After(20 * time.Second):
		t.Fatalf("Main(%q) still running after 20 s", argv)
		return 0, nil, ""
	}
}

// shortenListen swaps in short listen clocks for one test.
func shortenListen(t *testing.T, find, gone time.Duration) {
	t.Helper()
	old := listenClock
	listenClock.find, listenClock.gone = find, gone
	t.Cleanup(func() { listenClock = old })
}

// Three failures in a row that are neither a refusal nor a missing bridge
// end listen with exit 1, after an unavailable line saying so.
func TestListenGivesUpAfterThreeFailures(t *testing.T) {
	var calls atomic.Int32
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/status":
			io.WriteString(w, `{"ok":true,"connected":true}`)
		case "/call":
			calls.Add(1)
			io.WriteString(w, `{"ok":false,"error":"page_error","message":"The tab broke."}`)
		}
	})
	code, lines, stderr := listenMain(t, dir)
	if code != 1 || calls.Load() != 3 || len(lines) != 1 ||
		!strings.HasPrefix(lines[0], `{"event":"unavailable","message":"voice.listen failed 3 times in a row`) {
		t.Errorf("listen against a failing tab = %d after %d calls, %q; want 1 after 3, one unavailable line; stderr:\n%s", code, calls.Load(), lines, stderr)
	}
}

// A bridge that refuses the key (401: another process has the port now)
// is looked for again through the session files; one that stays missing
// ends listen with exit 0, after an unavailable line.
func TestListenGivesUpOnAMissingBridge(t *testing.T) {
	shortenListen(t, 20*time.Millisecond, 300*time.Millisecond)
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status" {
			io.WriteString(w, `{"ok":true,"connected":true}`)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"ok":false,"error":"unauthorized"}`)
	})
	code, lines, stderr := listenMain(t, dir, "--owner", strconv.Itoa(os.Getpid()))
	want := []string{`{"event":"disconnected"}`, `{"event":"unavailable","message":"No bridge has answered for 300ms, so the listener stops."}`}
	if code != 0 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("listen with its bridge gone = %d, %q; want 0, %q; stderr:\n%s", code, lines, want, stderr)
	}
}

// After a 401 listen finds the bridge that took over (a new session file,
// a new key) and asks it, with its pid in the listener header.
func TestListenFindsTheBridgeAgain(t *testing.T) {
	shortenListen(t, 20*time.Millisecond, time.Minute)
	heard := make(chan string, 4)
	next := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard <- r.Header.Get("x-stitchslop-key") + " " + r.Header.Get("x-stitchslop-listener")
		io.WriteString(w, `{"ok":false,"error":"refused","message":"Voice is off here."}`)
	}))
	t.Cleanup(next.Close)
	_, p, _ := net.SplitHostPort(next.Listener.Addr().String())
	nextPort, _ := strconv.Atoi(p)
	var dir string
	var swapped sync.Once
	dir = fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status" {
			io.WriteString(w, `{"ok":true,"connected":true}`)
			return
		}
		// The port changes hands while listen asks: its file goes, the
		// new bridge's comes, and the old key is refused.
		swapped.Do(func() {
			old, _, _ := session.List(dir)
			for _, f := range old {
				os.Remove(session.Path(dir, f.File.Port))
			}
			session.Write(dir, session.File{Port: nextPort, Key: "k2", Origin: "https://x", PID: os.Getpid(), Protocol: 1,
				StartedAt: session.Timestamp(time.Now())})
		})
		w.WriteHeader(http.StatusUnauthorized)
	})
	code, lines, stderr := listenMain(t, dir)
	want := []string{`{"event":"disconnected"}`, `{"event":"unavailable","message":"Voice is off here."}`}
	if code != 1 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("listen after the takeover = %d, %q; want 1 and %q; stderr:\n%s", code, lines, want, stderr)
	}
	if got, want := <-heard, "k2 "+strconv.Itoa(os.Getpid()); got != want {
		t.Errorf("the new bridge got key and listener %q, want %q", got, want)
	}
}

func TestFuzzListenReplySeeds(t *testing.T) { fuzzseed.Require(t, "FuzzListenReply") }

// FuzzListenReply: whatever a tab answers voice.listen with, the lines
// listen prints of it are bounded (utterances, characters, selection) and
// valid JSON, and a voiceSupport it passes on is valid JSON of bounded
// size.
func FuzzListenReply(f *testing.F) {
	f.Fuzz(func(t *testing.T, reply []byte) {
		var r voiceReply
		if json.Unmarshal(reply, &r) != nil {
			return
		}
		lines, dropped := heardLines(r)
		if len(lines) > maxUtterances || dropped < 0 {
			t.Fatalf("heardLines(%q) = %d lines, %d dropped; want at most %d", reply, len(lines), dropped, maxUtterances)
		}
		for _, h := range lines {
			if h.Heard == "" || utf8.RuneCountInString(h.Heard) > maxHeard || len(h.Selection) > maxSelection {
				t.Fatalf("heardLines(%q): a line %q with %d selected, over the bounds", reply, h.Heard, len(h.Selection))
			}
			for _, s := range h.Selection {
				if s.ID == "" || utf8.RuneCountInString(s.ID) > maxSelectionID || utf8.RuneCountInString(s.Name) > maxSelectionID {
					t.Fatalf("heardLines(%q): selection entry %+v, over the bounds", reply, s)
				}
			}
			if b, err := json.Marshal(h); err != nil || !json.Valid(b) {
				t.Fatalf("heardLines(%q): line %+v does not encode: %v", reply, h, err)
			}
		}
		if len(r.VoiceSupport) > 0 {
			b := boundSupport(r.VoiceSupport)
			if !json.Valid(b) || len(b) > max(maxVoiceSupport, 6*maxHeard+2) {
				t.Fatalf("boundSupport(%q) = %q: not JSON, or over the bound", r.VoiceSupport, b)
			}
		}
	})
}

// The first answer's voice switch is printed when on, or off in a browser
// without voice; a plain off is no news then, but is after an on.
func TestListenVoiceEvents(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name    string
		replies []voiceReply
		want    string
	}{
		{"first on", []voiceReply{{VoiceOn: &on}}, `{"event":"voice-on"}`},
		{"first off", []voiceReply{{VoiceOn: &off}}, ``},
		{"no switch", []voiceReply{{}, {}}, ``},
		{"off, on, on, off", []voiceReply{{VoiceOn: &off}, {VoiceOn: &on}, {VoiceOn: &on}, {VoiceOn: &off}}, `{"event":"voice-on"} {"event":"voice-off"}`},
		{"unsupported twice", []voiceReply{{VoiceOn: &off, VoiceSupport: json.RawMessage(`"none"`), Say: "No voice here."}, {VoiceOn: &off, VoiceSupport: json.RawMessage(`"none"`)}},
			`{"event":"voice-off","voiceSupport":"none","message":"No voice here."}`},
		{"off, then unsupported", []voiceReply{{VoiceOn: &off}, {VoiceOn: &off, VoiceSupport: json.RawMessage(`{"speech":false}`)}},
			`{"event":"voice-off","voiceSupport":{"speech":false},"message":"Voice input does not work in this browser."}`},
	}
	for _, tt := range tests {
		var got []string
		l := &listener{out: func(v any) { b, _ := json.Marshal(v); got = append(got, string(b)) }}
		for _, r := range tt.replies {
			l.setVoice(r)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s: setVoice printed %q, want %q", tt.name, strings.Join(got, " "), tt.want)
		}
	}
}
