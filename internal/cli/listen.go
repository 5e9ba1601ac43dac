package cli

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
)

// The listen verb (reference-bridge-notes.md, Voice) asks the tab for what
// the user says, over and over, and prints a JSON line for each thing:
//
//	{"heard":"make it red","atMs":1200,"selection":["s1"]}
//	{"event":"connected"|"disconnected"|"voice-on"|"voice-off"|"unavailable"}
//
// It expects the tab's voice.listen {timeoutSeconds} to answer within that
// time with ok:true and, when the user spoke, heard (with atMs and
// selection); a voice member "on" or "off" says whether the microphone is
// on. ok:false with error "voice_off" is the microphone off too; "timeout",
// "not_connected" and "disconnected" are the bridge's own and mean ask
// again, or wait for the tab; any other refusal ends the verb with exit 1,
// "unavailable" after saying so as an event. While no tab is attached it
// waits on the bridge's /wait. It ends (exit 0) when its owner (--owner
// PID, default the bridge's pid) is gone, or on a signal.

// Clocks of listen.
const (
	// listenSeconds is how long each voice.listen waits for speech, as the
	// reference bridge asks.
	listenSeconds = 25
	// ownerPoll is how often the owner is looked for: a process has no
	// portable exit notice to wait on.
	ownerPoll = time.Second
	// listenPause follows every answer of the tab's, heard or not, so a
	// tab that answers at once cannot print faster than one answer's lines
	// a second.
	listenPause = time.Second
	// maxHeard bounds, in characters, the text of one line: 25 seconds of
	// speech is a few hundred; past it the line is cut, ending in "…".
	maxHeard = 2000
	// maxSelection bounds the ids a line's selection lists, and
	// maxSelectionID each id's characters.
	maxSelection   = 100
	maxSelectionID = 200
)

// listenEvent is one event line.
type listenEvent struct {
	Event string `json:"event"`
}

// heardLine is one utterance line: what the tab transcribed, bounded.
type heardLine struct {
	Heard     string   `json:"heard"`
	AtMs      *float64 `json:"atMs"`
	Selection []string `json:"selection"`
}

// newHeard bounds what a tab said into a line: text cut at maxHeard
// characters, atMs a number or null, selection a list of at most
// maxSelection strings of at most maxSelectionID characters, or null.
// Invisible characters go at emit, with everything else printed.
func newHeard(text string, atMs, selection json.RawMessage) heardLine {
	h := heardLine{Heard: cutRunes(text, maxHeard)}
	var at float64
	if json.Unmarshal(atMs, &at) == nil && len(atMs) > 0 && atMs[0] != 'n' {
		h.AtMs = &at
	}
	var ids []any
	if json.Unmarshal(selection, &ids) == nil && ids != nil {
		h.Selection = []string{}
		for _, id := range ids {
			if s, ok := id.(string); ok && len(h.Selection) < maxSelection {
				h.Selection = append(h.Selection, cutRunes(s, maxSelectionID))
			}
		}
	}
	return h
}

// cutRunes keeps at most n characters of s, marking a cut with "…".
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// voiceReply is what listen reads of a voice.listen envelope.
type voiceReply struct {
	OK        bool            `json:"ok"`
	Error     string          `json:"error"`
	Message   string          `json:"message"`
	Heard     string          `json:"heard"`
	AtMs      json.RawMessage `json:"atMs"`
	Selection json.RawMessage `json:"selection"`
	Voice     string          `json:"voice"`
}

// listener is one run of the verb.
type listener struct {
	dir   string
	port  int         // --port, or 0
	out   func(v any) // prints one line, through the gate (emit)
	log   *slog.Logger
	state string // the last connected/disconnected event printed
	voice string // the last voice-on/voice-off event printed
}

func (l *listener) event(e string) { l.out(listenEvent{Event: e}) }

// runListen runs the verb and returns its exit code. Which flags go with
// it, Main has checked already.
func runListen(ctx context.Context, c *command, a args, dir string, stdout io.Writer, log *slog.Logger) int {
	end := func(err error) int { return fail(log, stdout, c, a, err) }
	if len(a.pos) > 1 {
		return end(usageErr("listen takes no arguments"))
	}
	port, err := portFlag(a)
	if err != nil {
		return end(usageErr("%v", err))
	}
	s, err := client.Find(dir, port)
	if err != nil {
		return end(err)
	}
	owner := s.PID
	if v, ok := a.flags["owner"]; ok {
		if owner, err = strconv.Atoi(v); err != nil || owner < 1 {
			return end(usageErr("--owner %q is not a process id", v))
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t := time.NewTicker(ownerPoll)
		defer t.Stop()
		for session.Alive(owner) {
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
		log.Info("stopping: the owner (pid " + strconv.Itoa(owner) + ") is gone")
		cancel()
	}()
	out := func(v any) {
		b, _ := json.Marshal(v)
		emit(stdout, b, a)
	}
	l := &listener{dir: dir, port: port, out: out, log: log}
	return l.run(ctx, s)
}

func (l *listener) run(ctx context.Context, s session.File) int {
	c := client.New(s)
	if b, err := c.Do(ctx, client.Request{Method: "GET", Path: "/status", Timeout: timeouts.quick}); err == nil {
		var st struct {
			Connected bool `json:"connected"`
		}
		json.Unmarshal(b, &st)
		l.connected(st.Connected)
	}
	for ctx.Err() == nil {
		started := time.Now()
		env, err := c.Do(ctx, client.Request{Method: "POST", Path: "/call", Timeout: (listenSeconds+10)*time.Second + answerMargin,
			Body: callBody{Command: "voice.listen", Args: json.RawMessage(`{"timeoutSeconds":` + strconv.Itoa(listenSeconds) + `}`),
				TimeoutMs: (listenSeconds + 10) * 1000}})
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			// The bridge went away; another may take its port over (a
			// follower does), with a new session file.
			l.connected(false)
			if !pause(ctx, ownerPoll) {
				break
			}
			if found, err := client.Find(l.dir, l.port); err == nil {
				s, c = found, client.New(found)
			}
			continue
		}
		var r voiceReply
		if err := json.Unmarshal(env, &r); err != nil {
			l.log.Error("the bridge answered voice.listen with something that is not an envelope")
			return exitcode.Failed
		}
		switch {
		case r.OK:
			l.connected(true)
			l.setVoice(r.Voice)
			if r.Heard != "" {
				l.out(newHeard(r.Heard, r.AtMs, r.Selection))
			}
		case r.Error == "timeout":
		case r.Error == "not_connected" || r.Error == "disconnected":
			l.connected(false)
			l.waitTab(ctx, c)
			continue
		case r.Error == "voice_off":
			l.connected(true)
			l.setVoice("off")
		default:
			if r.Error == "unavailable" {
				l.event("unavailable")
			}
			l.log.Error("the tab refused voice.listen: " + r.Error + ": " + r.Message)
			return exitcode.Failed
		}
		if time.Since(started) < listenPause && !pause(ctx, listenPause) {
			break
		}
	}
	return exitcode.OK
}

// waitTab waits on the bridge's /wait for the tab to attach.
func (l *listener) waitTab(ctx context.Context, c *client.Client) {
	b, err := c.Do(ctx, client.Request{Method: "POST", Path: "/wait", Body: map[string]any{"seconds": listenSeconds},
		Timeout: listenSeconds*time.Second + answerMargin})
	if err == nil {
		if o, err := envelope.Parse(b); err == nil && o.OK() {
			l.connected(true)
		}
	}
}

// connected prints connected or disconnected when that changes.
func (l *listener) connected(yes bool) {
	e := "disconnected"
	if yes {
		e = "connected"
	}
	if l.state != e {
		l.state = e
		l.event(e)
	}
}

// setVoice prints voice-on or voice-off when the tab's voice member
// changes.
func (l *listener) setVoice(v string) {
	if (v == "on" || v == "off") && l.voice != v {
		l.voice = v
		l.event("voice-" + v)
	}
}

// pause waits d, or until ctx ends (false).
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
