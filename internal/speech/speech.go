// Package speech reads the tab's voice.listen answers (protocol.md §7.16)
// for the listen verb and for the bridge's voice channel (Run,
// --voice-channel), which hands each utterance to the MCP session as an
// event (protocol.md §7.19).
package speech

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// Command is the tab's voice command; Seconds is how long each ask waits
// for speech, the most the tab holds one, and CallSeconds the deadline of
// one ask: the tab's own and 10 s for the answer to come back.
const (
	Command     = hub.VoiceCommand
	Seconds     = 25
	CallSeconds = Seconds + 10
	CallTimeout = CallSeconds * time.Second
)

var Args = json.RawMessage(`{"timeoutSeconds":` + strconv.Itoa(Seconds) + `}`)

// Answer is a voice.listen envelope; a member of another type is absent.
type Answer struct {
	OK           bool
	Error        string
	Message      string
	Say          string
	VoiceOn      *bool
	VoiceSupport json.RawMessage // nil when absent or null
	// Reply is the answer as the door read it: its heard (a list of
	// {text, atMs}) and selection are walked from it (Reply.Entries).
	Reply envelope.Reply
}

func Read(env envelope.Reply) Answer {
	r := Answer{OK: env.OK(), Reply: env}
	r.Error, _ = env.String("error")
	r.Message, _ = env.String("message")
	r.Say, _ = env.String("say")
	if on, isBool := map[string]bool{"true": true, "false": false}[string(env.Get("voiceOn"))]; isBool {
		r.VoiceOn = &on
	}
	if v := env.Get("voiceSupport"); !gate.IsNull(v) {
		r.VoiceSupport = v
	}
	return r
}

// Next is what an answer asks of the loop.
type Next int

const (
	Heard   Next = iota // ok: print or send what it carries, then ask again
	Again               // the bridge's own timeout: ask again
	Away                // no tab (not_connected, disconnected): park until one attaches
	Refused             // no voice here (refused, unknown_command, bad_arguments)
	Taken               // the bridge's own voice_taken: another session hears (protocol.md §7.19)
	Failed              // anything else: pause, then ask again
)

func (a Answer) Next() Next {
	switch {
	case a.OK:
		return Heard
	case a.Error == hub.CodeTimeout:
		return Again
	case a.Error == hub.CodeNotConnected || a.Error == hub.CodeDisconnected:
		return Away
	case a.Error == hub.CodeRefused || a.Error == "unknown_command" || a.Error == "bad_arguments":
		return Refused
	case a.Error == hub.CodeVoiceTaken:
		return Taken
	}
	return Failed
}

// The bounds of the channel's events, in bytes as cleaned: the session's
// context is the model's, so they are tighter than listen's lines.
const (
	// MaxText bounds one event's words: 25 s of speech is a few hundred.
	MaxText       = 2000
	MaxUtterances = 20
	// maxNames and maxName bound the selection's names in meta.
	maxNames = 20
	maxName  = 64
	// An utterance past MaxRate in a Window is dropped and counted.
	Window  = 3 * time.Second
	MaxRate = 16 << 10
	pause   = time.Second
	// maxEvents bounds the utterances, each a turn of the model's, in a
	// Window.
	maxEvents = 20
)

// Event is one channel event: Content the words (or the bridge's own
// sentence), Meta attributes of the bridge's keys and cleaned values.
type Event struct {
	Content string
	Meta    map[string]string
}

// The sentences of the bridge's own events: no byte of them is the tab's.
const (
	switchedOn  = "The user switched voice input on in the Stitch Slop tab."
	switchedOff = "The user switched voice input off in the Stitch Slop tab."
	unsupported = "Voice input cannot work in the user's browser (the tab says so); tell the user."
)

// retake is how long the loop waits before asking again while another
// session holds the voice: that session may end without the tab changing,
// and nothing in this process says so.
var retake = 5 * time.Second

// Tab is what Run needs of the bridge's hub (hub.Hub).
type Tab interface {
	CallVoice(ctx context.Context, args json.RawMessage, timeout time.Duration) envelope.Reply
	ArgNames(name string) ([]string, bool)
	Next() <-chan struct{}
	Watch() (changed <-chan struct{}, stop func())
}

// Run asks tab for what the user says while it lists voice.listen, and
// hands send an Event per utterance and per change of the voice switch,
// until ctx ends.
func Run(ctx context.Context, tab Tab, send func(Event)) {
	b := budget{}
	voice := "" // as last sent: "on", "off", "unsupported"; "" before
	listed, stop := tab.Watch()
	defer stop()
	for ctx.Err() == nil {
		next := tab.Next()
		if _, ok := tab.ArgNames(Command); !ok {
			wait(ctx, next, listed, 0)
			continue
		}
		started := time.Now()
		a := Read(tab.CallVoice(ctx, Args, CallTimeout))
		switch a.Next() {
		case Heard:
			b.answer(a, &voice, send)
		case Away, Refused:
			wait(ctx, next, listed, 0) // until the tab attaches, leaves or lists anew
		case Taken:
			wait(ctx, next, listed, retake)
		}
		// However fast the answer (the bridge's own timeout too), asks are
		// at least a pause apart.
		if time.Since(started) < pause {
			wait(ctx, nil, nil, pause)
		}
	}
}

// answer sends what an ok answer carries.
func (b *budget) answer(a Answer, voice *string, send func(Event)) {
	if e, ok := switched(a, voice); ok {
		b.send(e, send, false)
	}
	n, m := 0, meta(a.Reply) // the time the answer came, for each
	for _, u := range a.Reply.Entries("heard") {
		if n == MaxUtterances { // counted, not read: a page sets how many
			b.dropped += said(u.Get("text"))
			continue
		}
		text, _ := u.String("text")
		if text = Clip(text, MaxText); strings.TrimSpace(text) != "" {
			n++
			b.send(Event{Content: text, Meta: m}, send, true)
		}
	}
	b.flush(send)
}

// wait returns when next closes, listed signals, d (0: never) passes or
// ctx ends.
func wait(ctx context.Context, next, listed <-chan struct{}, d time.Duration) {
	var after <-chan time.Time
	if d > 0 {
		after = time.After(d)
	}
	select {
	case <-next:
	case <-listed:
	case <-after:
	case <-ctx.Done():
	}
}

// switched is the event of an answer's voiceOn when it changes what was
// last sent: on the first answer an off only with voiceSupport; an answer
// without voiceOn (an app with no switch) changes nothing.
func switched(a Answer, last *string) (Event, bool) {
	if a.VoiceOn == nil {
		return Event{}, false
	}
	now, say := "off", switchedOff
	switch {
	case *a.VoiceOn:
		now, say = "on", switchedOn
	case a.VoiceSupport != nil:
		now, say = "unsupported", unsupported
	case *last == "":
		*last = "off"
		return Event{}, false
	}
	if now == *last {
		return Event{}, false
	}
	*last = now
	return Event{Content: say, Meta: map[string]string{"voice": now, "time": stamp()}}, true
}

func meta(env envelope.Reply) map[string]string {
	m := map[string]string{"time": stamp()}
	var names []string
	more := 0
	for _, o := range env.Entries("selection") {
		if len(names) == maxNames { // counted, not read: a page sets how many
			more += said(o.Get("name"))
			continue
		}
		name, _ := o.String("name")
		if name = plain(Clip(name, maxName)); name != "" {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		if more > 0 {
			names = append(names, "and "+strconv.Itoa(more)+" more")
		}
		m["selection"] = strings.Join(names, ", ")
	}
	return m
}

// plain is a name as meta carries it: letters, marks, digits, spaces and
// -_.#() kept, every other character a space, so no name can end the
// attribute or open a tag of the event. Lookalikes (Canadian syllabics ᐸ)
// are confusables, out of scope (THREAT_MODEL.md T18).
func plain(s string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.#()", r) {
			return r
		}
		return ' '
	}, s)), " ")
}

// stamp is the bridge's clock, not the tab's (atMs is the tab's own).
func stamp() string { return time.Now().UTC().Format(Stamp) }

const Stamp = "2006-01-02T15:04:05.000Z07:00"

// Clip is s cleaned by the gate, on one line, at most max bytes; < and >
// become ‹ and › so the words cannot close or open the event's tag, and a
// line that would start "[bridge" starts "\u005b" instead (gate.Unmark),
// so the words cannot pose as the bridge's (docs/protocol.md §3.5). Only a
// prefix is cleaned, so a megabyte costs its sender more than the bridge.
func Clip(s string, max int) string {
	if len(s) > 4*max {
		i := 4 * max
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	// One line, so the words cannot pose as lines of anything else; marked
	// once joined, as what starts the line is known only then.
	s = strings.Join(strings.Fields(angles.Replace(gate.Clean(s))), " ")
	s = gate.Unmark(s)
	if len(s) <= max {
		return s
	}
	i := max - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

var angles = strings.NewReplacer("<", "‹", ">", "›")

// said is 1 when v is a string of any length but "", 0 else: what an entry
// past the ones sent counts, judged without decoding it, so that a list
// of a million costs no copy of each (an entry that cleans to nothing
// counts too).
func said(v []byte) int {
	if len(v) > 2 && v[0] == '"' {
		return 1
	}
	return 0
}

// budget holds what was sent in the last Window, and the drops not yet
// reported.
type budget struct {
	sent    []sent
	size    int
	dropped int
}

type sent struct {
	at time.Time
	n  int
}

// room is what the events that are never dropped can take in a Window.
const room = 2 << 10

// send passes e on, unless it is an utterance (droppable) that would take
// the Window past MaxRate-room: then it is counted as dropped.
func (b *budget) send(e Event, send func(Event), droppable bool) {
	now := time.Now()
	for len(b.sent) > 0 && now.Sub(b.sent[0].at) >= Window {
		b.size -= b.sent[0].n
		b.sent = b.sent[1:]
	}
	n := size(e)
	if droppable && (b.size+n > MaxRate-room || len(b.sent) >= maxEvents) {
		b.dropped++
		return
	}
	b.sent = append(b.sent, sent{now, n})
	b.size += n
	send(e)
}

// flush ends an answer with an event counting the drops, if any.
func (b *budget) flush(send func(Event)) {
	if b.dropped == 0 {
		return
	}
	d := Event{Content: "The tab sent more than the bridge passes on in " + Window.String() + "; " + strconv.Itoa(b.dropped) + " utterance(s) were dropped.",
		Meta: map[string]string{"dropped": strconv.Itoa(b.dropped), "time": stamp()}}
	b.dropped = 0
	b.send(d, send, false)
}

func size(e Event) int {
	n := len(e.Content)
	for k, v := range e.Meta {
		n += len(k) + len(v)
	}
	return n
}
