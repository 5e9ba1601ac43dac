package toolbox

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/speech"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// The listen verb (protocol.md §7.16)
// asks the tab for what the user says, over and over, and prints a JSON
// line for each thing, and nothing else on stdout:
//
//	{"heard":"make it red","atMs":1200,"selection":[{"id":"s1","name":"Rose"}]}
//	{"event":"connected"|"disconnected"|"voice-on"|"voice-off"|"unavailable"}
//
// The tab holds voice.listen until the user speaks, its voice switch flips
// or the time is up (its answer: protocol.md §7.16). ok:false with
// refused, unknown_command or bad_arguments, or the bridge's voice_taken
// (§7.19), means no voice here: listen prints unavailable with the app's
// message and exits 1. The bridge's own timeout means ask again;
// not_connected and disconnected, wait on /wait for the tab. Every request
// carries the listener header with this process's pid, so the bridge does
// not count it as an agent's use.
//
// connected and disconnected are printed once per change, none at start.
// voice-on and voice-off: on the first answer only when the switch is on,
// or off with voiceSupport; after that on every change. Before any exit
// but a signal's, an unavailable line says why: a refusal (exit 1), three
// other failures in a row (exit 1), the owner (--owner PID, default the
// bridge's pid) gone, or no bridge answering for bridgeGone (exit 0).
// With no bridge at start it prints nothing and exits 3.

// Clocks of listen.
const (
	// listenCallMs is the bridge's deadline for one voice.listen
	// (speech.CallSeconds).
	listenCallMs = speech.CallSeconds * 1000
	// waitSeconds is one park on /wait while the tab is away, as the
	// reference bridge parks.
	waitSeconds = 90
	// ownerPoll is how often the owner is looked for: a process has no
	// portable exit notice to wait on.
	ownerPoll = 2 * time.Second
	// listenPause follows every answer of the tab's that came back within
	// it, heard or not, and every failure, so asks (and the lines each
	// prints) are at least listenPause apart, however fast the tab or the
	// bridge answers.
	listenPause = time.Second
	// findPoll is how often the session files are read again while the
	// bridge does not answer: a follower that takes the port over writes
	// a new file with a new key within its own 3-second poll.
	findPoll = 2 * time.Second
	// bridgeGone is how long no bridge may answer before listen gives up
	// (exit 0): past it, no follower is coming to take the port over.
	bridgeGone = 10 * time.Minute
	// maxFailures ends listen (exit 1) after that many failures in a row
	// that are neither a refusal nor a missing bridge: one is a hiccup,
	// three a tab or bridge that will not listen.
	maxFailures = 3
)

// The bounds of what listen prints, whatever the tab sends. Its reader is
// an agent's monitor, which hands each batch of lines to a model, and
// sometimes a program with a fixed line buffer (bufio.Scanner's default is
// 64 KiB). Sizes are bytes as printed: JSON escapes count.
const (
	// maxLine bounds one line, its newline aside. The parts below are
	// bounded so that any line fits: a heard line is its text (maxText),
	// a selection (maxSelectionBytes) and under 100 bytes more; an event
	// line its message (maxMessage) and a voiceSupport (maxVoiceSupport).
	maxLine = 8 << 10
	// maxText bounds what one utterance line says: 25 seconds of speech
	// is a few hundred bytes; past it the text is cut, ending in "…".
	maxText = 2000
	// maxMessage bounds an event's message (the app's sentence, or why
	// listen stops): a sentence or two.
	maxMessage = 500
	// maxUtterances bounds the lines one answer prints: 25 seconds of
	// speech is a few utterances; the rest of a longer list is dropped.
	maxUtterances = 50
	// maxSelection bounds the entries of a selection, maxSelectionField
	// each entry's id and name, and maxSelectionBytes the whole list: a
	// selection names the shapes the user pointed at, and a hundred of
	// them with short ids fit. The entries past a bound are dropped, and
	// their number given as selectionMore.
	maxSelection      = 100
	maxSelectionField = 128
	maxSelectionBytes = 5 << 10
	// maxVoiceSupport bounds a voiceSupport; a larger one is replaced by
	// a note.
	maxVoiceSupport = 1000
	// rateWindow and maxRate bound what listen prints in any rateWindow.
	// A heard line is dropped (and the drop counted on stderr) when the
	// lines of the last rateWindow and it would pass maxRate-eventRoom.
	// Event lines are always printed; eventRoom holds what they can take
	// in a window: asks are at least listenPause apart (at most four in a
	// window), and each prints at most one voice event (under 1,600
	// bytes) and two connection events.
	rateWindow = 3 * time.Second
	maxRate    = 64 << 10
	eventRoom  = 8 << 10
)

// listenClock holds the clocks tests shorten.
var listenClock = struct {
	owner, find, gone time.Duration
	now               func() time.Time
}{ownerPoll, findPoll, bridgeGone, time.Now}

// field is one member of a line: its name and its value as JSON, either
// the tab's own bytes as the door passed them or bytes gate.AppendString
// wrote, or a list of them a gate.List wrote, with what it saw of them.
type field struct {
	name  string
	value gate.Value
}

// member is the field name of the value v.
func member(name string, v []byte) field { return field{name, gate.Value{Raw: v}} }

// line is fields as one JSON object, written by the one encoder of what
// reaches stdout (gate.Guard.AppendObject): a tab's string within its
// bound comes out as the same string does in a call's reply, cleaned and
// with its escapes as they came, so no byte of the tab's reaches stdout
// but as a string the gate wrote.
func line(fields ...field) []byte {
	return gate.Guard{}.AppendObject(nil, func(yield func(string, gate.Value) bool) {
		for _, f := range fields {
			if f.value.Raw != nil && !yield(f.name, f.value) {
				return
			}
		}
	}, nil)
}

// eventLine is an event line. voiceSupport and message go with a
// voice-off in a browser where voice cannot work, message with
// unavailable; nil leaves them out.
func eventLine(event string, voiceSupport, message []byte) []byte {
	return line(member("event", gate.AppendString(nil, event)), member("voiceSupport", voiceSupport), member("message", message))
}

// voiceReply is what listen reads of a voice.listen envelope; the
// bridge's voice channel reads it the same way (speech.Read).
type voiceReply = speech.Answer

var readVoice = speech.Read

// heardLines are the lines of an answer: one per utterance with text among
// the first maxUtterances entries of heard, its text bounded at maxText
// (text), atMs a number or null; the first carries the answer's
// selection, printed once per answer (null when it is not a list), and
// selectionMore counting the entries past its bounds. dropped counts the
// utterances past maxUtterances. A heard that is not a list is nothing
// heard.
func heardLines(r voiceReply) (lines [][]byte, dropped int) {
	n := 0
	for _, u := range r.Reply.Entries("heard") {
		if n++; n > maxUtterances {
			dropped++
			continue
		}
		t := u.Get("text")
		if len(t) <= 2 || t[0] != '"' { // not a string, or ""
			continue
		}
		heard := member("heard", text(t, maxText))
		at := member("atMs", number(u.Get("atMs")))
		if len(lines) > 0 {
			lines = append(lines, line(heard, at))
			continue
		}
		sel, more := selection(r.Reply)
		var over []byte
		if more > 0 {
			over = strconv.AppendInt(nil, int64(more), 10)
		}
		lines = append(lines, line(heard, at, field{"selection", sel}, member("selectionMore", over)))
	}
	return lines, dropped
}

// maxNumber bounds a number as a line holds it: a time in milliseconds is
// a few digits.
const maxNumber = 32

// number is v when it is a JSON number of at most maxNumber bytes that a
// float64 holds, as the tab wrote it, else null: a number past float64's
// range (1e999) makes a line Go's encoding/json refuses whole, and that
// JavaScript reads as Infinity.
func number(v []byte) []byte {
	if len(v) == 0 || len(v) > maxNumber || v[0] != '-' && (v[0] < '0' || v[0] > '9') || !gate.Fits(v) {
		return []byte("null")
	}
	return v
}

// selection is an answer's selection as its first line prints it: the
// {id, name} entries (those that are not objects, or have no id, left
// out) while they fit maxSelection and maxSelectionBytes as the line's
// encoder writes them, each id and name bounded at maxSelectionField
// (text); more counts the entries past the bounds. It is null when env's is
// not a list. An id is a string, or a number written as a string. The
// list is a gate.List, so the line writes it unread when nothing in it
// is the gate's to change.
func selection(env envelope.Reply) (sel gate.Value, more int) {
	if v := env.Get("selection"); len(v) == 0 || v[0] != '[' {
		return gate.Value{Raw: []byte("null")}, 0
	}
	l := gate.NewList(maxSelectionBytes)
	n, used, full := 0, 1, false // used: the list as printed, "[" first
	for _, o := range env.Entries("selection") {
		v := o.Get("id")
		str := len(v) > 2 && v[0] == '"'
		if !str && (len(v) == 0 || v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
			continue // no id
		}
		if full { // counted, not written: a page sets how many
			more++
			continue
		}
		var id []byte
		if str {
			id = text(v, maxSelectionField)
		} else {
			id = clip(string(v), maxSelectionField)
		}
		name := o.Get("name")
		if len(name) < 2 || name[0] != '"' {
			name = []byte(`""`)
		}
		name = text(name, maxSelectionField)
		// Measured as the line's encoder writes the entry, which a walk
		// of the list writes alike, and a comma or bracket.
		size := len(line(member("id", id), member("name", name))) + 1
		if full = n == maxSelection || used+size > maxSelectionBytes; full {
			more++
			continue
		}
		n, used = n+1, used+size
		l.Open()
		l.Member(idName, gate.Value{Raw: id})
		l.Member(nameName, gate.Value{Raw: name})
		l.Close()
	}
	return l.Value(), more
}

var idName, nameName = gate.AppendString(nil, "id"), gate.AppendString(nil, "name")

// text is raw, a JSON string the door passed, as a line holds it: as the
// tab wrote it when that is at most max bytes between its quotes, for the
// gate to write as it writes the same string in a call's reply; else
// decoded and clipped (clip).
func text(raw []byte, max int) []byte {
	if len(raw)-2 <= max {
		return raw
	}
	s, _ := gate.String(raw)
	return clip(s, max)
}

// clip is s as listen prints it: cleaned by the gate (security/gate.Clean),
// as a JSON string gate.AppendString wrote, of at most max bytes between
// its quotes, cut at a character and ending in "…" when cut.
func clip(s string, max int) []byte {
	// Only a prefix can be printed: cleaning a megabyte to print a few
	// hundred bytes of it would cost the flood's sender nothing and listen
	// the megabyte. A tab that pads its text with invisible characters
	// gets less of it printed.
	cut := len(s) > 4*max
	if cut {
		i := 4 * max
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	s = gate.Clean(s)
	q := gate.AppendString(nil, s)
	if !cut && len(q)-2 <= max {
		return q
	}
	// The encoder writes each character on its own, so the first i
	// characters of s are the first bytes of q: the cut is where they and
	// "…" still fit, each measured as the encoder writes it.
	n := len("…")
	var one [16]byte
	for i, r := range s {
		if n += len(gate.AppendString(one[:0], string(r))) - 2; n > max {
			return gate.AppendString(nil, s[:i]+"…")
		}
	}
	return gate.AppendString(nil, s+"…")
}

// printer writes listen's lines to stdout, within maxLine each and maxRate
// in any rateWindow.
type printer struct {
	w        io.Writer
	log      *slog.Logger
	sent     []printed // the lines of the last rateWindow, oldest first
	inWindow int       // their bytes
}

type printed struct {
	at time.Time
	n  int
}

// print writes b, a line the gate wrote (line), and a newline. A heard
// line (droppable) that would take the lines of the last rateWindow past
// maxRate-eventRoom is dropped.
func (p *printer) print(b []byte, droppable bool) {
	if len(b) == 0 || len(b) > maxLine { // cannot happen: the parts are bounded
		p.log.Error("listen made a line over " + strconv.Itoa(maxLine) + " bytes, and did not print it")
		return
	}
	now := listenClock.now()
	for len(p.sent) > 0 && now.Sub(p.sent[0].at) >= rateWindow {
		p.inWindow -= p.sent[0].n
		p.sent = p.sent[1:]
	}
	n := len(b) + 1 // and its newline
	if droppable && p.inWindow+n > maxRate-eventRoom {
		p.log.Warn("the tab sent more than listen prints in " + rateWindow.String() + " (" + strconv.Itoa(maxRate>>10) + " KiB); a line of what it heard was not printed")
		return
	}
	p.sent = append(p.sent, printed{now, n})
	p.inWindow += n
	p.w.Write(append(b[:len(b):len(b)], '\n'))
}

// errOwnerGone ends the run when the --owner process is gone.
var errOwnerGone = errors.New("the owner is gone")

// listener is one run of the verb.
type listener struct {
	dir   string
	port  int // --port, or 0
	owner int
	pid   int // this process, for the listener header
	out   *printer
	log   *slog.Logger
	c     *client.Client

	state    string    // "connected" or "disconnected" as last seen; "" before
	voice    string    // as last reported: "on", "off", "unsupported" (off where voice cannot work), "" before
	failures int       // failures in a row (maxFailures)
	lost     time.Time // since when no bridge answers; zero while one does
}

func (l *listener) event(e string) { l.out.print(eventLine(e, nil, nil), false) }

// unavailable prints the line that comes before listen's exit.
func (l *listener) unavailable(msg string) {
	l.out.print(eventLine("unavailable", nil, clip(msg, maxMessage)), false)
}

// runListen runs the verb and returns its exit code. Which flags go with
// it, Main has checked already.
func runListen(ctx context.Context, c *command, a args, dir string, stdout io.Writer, log *slog.Logger) int {
	if len(a.Pos()) > 1 {
		return fail(log, stdout, c, a, usageErr("listen takes no arguments"))
	}
	port, err := portFlag(a)
	if err != nil {
		return fail(log, stdout, c, a, usageErr("%v", err))
	}
	s, err := client.Find(dir, port)
	if err != nil {
		// stdout carries event lines only: whoever reads them (an agent's
		// Monitor) must not take an envelope for one.
		return quiet(log, err).Exit
	}
	owner := s.PID
	if v, ok := a.Flag("owner"); ok {
		if owner, err = strconv.Atoi(v); err != nil || owner < 1 {
			return fail(log, stdout, c, a, usageErr("--owner %q is not a process id", v))
		}
	}
	l := &listener{dir: dir, port: port, owner: owner, pid: os.Getpid(), log: log, c: client.New(s),
		out: &printer{w: stdout, log: log}}
	// The first look, for exit 3 when the session file's bridge does not
	// answer, and for the state the first change is measured from.
	b, err := l.c.Do(ctx, client.Request{Method: "GET", Path: "/status", Timeout: timeouts.quick, Listener: l.pid})
	var ce *client.Error
	if errors.As(err, &ce) && ce.Exit == exitcode.NoBridge {
		return quiet(log, err).Exit
	}
	if st, err2 := door(b, err); err2 == nil {
		l.connected(string(st.Get("connected")) == "true")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	every := listenClock.owner
	go func() {
		for session.Alive(owner) && pause(ctx, every) {
		}
		cancel(errOwnerGone) // once ctx has ended, a no-op: its cause stays
	}()
	return l.run(ctx)
}

func (l *listener) run(ctx context.Context) int {
	call := client.Request{Method: "POST", Path: "/call", Listener: l.pid,
		Timeout: listenCallMs*time.Millisecond + timeouts.margin,
		Body: callBody{Command: speech.Command, Args: speech.Args,
			TimeoutMs: listenCallMs}}
	for ctx.Err() == nil {
		started := time.Now()
		code, end, err := l.ask(ctx, call)
		switch {
		case ctx.Err() != nil: // the loop ends
		case err != nil:
			if code, end := l.failed(ctx, err); end {
				return code
			}
		case end:
			return code
		default:
			l.failures = 0
			if time.Since(started) < listenPause {
				pause(ctx, listenPause)
			}
		}
	}
	// Quiet on a signal, an unavailable line when the owner is gone.
	if errors.Is(context.Cause(ctx), errOwnerGone) {
		l.log.Info("stopping: the owner (pid " + strconv.Itoa(l.owner) + ") is gone")
		l.unavailable("The listener's owner (pid " + strconv.Itoa(l.owner) + ") is gone, so it stops.")
	}
	return exitcode.OK
}

// ask asks the tab once and prints what it answered; while the tab is
// away, it parks on /wait. err is a request that brought no answer, or a
// failed one (failed takes it); end says listen is over, with code.
func (l *listener) ask(ctx context.Context, call client.Request) (code int, end bool, err error) {
	env, err := l.c.Do(ctx, call)
	if err != nil {
		return 0, false, err
	}
	l.lost = time.Time{}
	answer, err := door(env, nil)
	if err != nil {
		return 0, false, errors.New("the bridge answered voice.listen with something that is not an envelope")
	}
	r := readVoice(answer)
	switch r.Next() {
	case speech.Heard:
		l.connected(true)
		l.setVoice(r)
		lines, dropped := heardLines(r)
		for _, h := range lines {
			l.out.print(h, true)
		}
		if dropped > 0 {
			l.log.Warn("the tab sent more than " + strconv.Itoa(maxUtterances) + " utterances in one answer; " + strconv.Itoa(dropped) + " were not printed")
		}
	case speech.Again: // the bridge's own timeout: the tab took too long; ask again
	case speech.Away:
		l.failures = 0
		l.connected(false)
		// Park on /wait until the tab attaches or the wait ends; then the
		// pause: a tab that comes and goes at once must not print
		// connected and disconnected faster than a line a second.
		b, err := l.c.Do(ctx, client.Request{Method: "POST", Path: "/wait", Body: map[string]any{"seconds": waitSeconds},
			Timeout: waitSeconds*time.Second + timeouts.margin, Listener: l.pid})
		if err != nil {
			return 0, false, err
		}
		l.lost = time.Time{}
		if o, err := door(b, nil); err == nil && o.OK() {
			l.connected(true)
		}
	case speech.Refused, speech.Taken:
		l.log.Error("voice.listen was refused", "error", r.Error, "message", r.Message)
		l.unavailable(cmp.Or(r.Message, r.Say, "The tab refused to listen ("+r.Error+")."))
		return exitcode.Failed, true, nil
	default:
		return 0, false, errors.New("voice.listen failed: " + r.Error + ": " + r.Message)
	}
	return 0, false, nil
}

// failed handles a request that did not bring an answer: a missing bridge
// is looked for again through the session files (a 401 or a dead port: a
// follower may have taken the port over, with a new key) until
// listenClock.gone; anything else counts towards maxFailures. Either
// way it pauses. end says listen is over, with code.
func (l *listener) failed(ctx context.Context, err error) (code int, end bool) {
	var ce *client.Error
	if errors.As(err, &ce) && ce.Exit == exitcode.NoBridge {
		l.connected(false)
		if l.lost.IsZero() {
			l.lost = time.Now()
			l.log.Warn(ce.Msg + "; looking for the bridge again")
		}
		if time.Since(l.lost) >= listenClock.gone {
			l.log.Info("stopping: no bridge has answered for " + span(listenClock.gone))
			l.unavailable("No bridge has answered for " + span(listenClock.gone) + ", so the listener stops.")
			return exitcode.OK, true
		}
		if pause(ctx, listenClock.find) {
			if s, err := client.Find(l.dir, l.port); err == nil {
				l.c = client.New(s)
			}
		}
		return 0, false
	}
	l.failures++
	l.log.Warn(err.Error())
	if l.failures >= maxFailures {
		l.unavailable("voice.listen failed " + strconv.Itoa(l.failures) + " times in a row; the last: " + err.Error())
		return exitcode.Failed, true
	}
	pause(ctx, listenPause) // run sees ctx end
	return 0, false
}

// span words d for a person: "10 minutes", or as Go writes it.
func span(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return strconv.Itoa(int(d/time.Minute)) + " minutes"
	}
	return d.String()
}

// connected prints connected or disconnected when that changes; the first
// state seen is not printed.
func (l *listener) connected(yes bool) {
	e := "disconnected"
	if yes {
		e = "connected"
	}
	if l.state != "" && l.state != e {
		l.event(e)
	}
	l.state = e
}

// setVoice prints voice-on or voice-off when the answer's voiceOn changes
// what listen last reported. On the first answer, an off is printed only
// with voiceSupport; an off with voiceSupport carries it and the app's
// sentence; an answer without voiceOn (an app with no switch) changes
// nothing.
func (l *listener) setVoice(r voiceReply) {
	if r.VoiceOn == nil {
		return
	}
	switch unsupported := r.VoiceSupport != nil; {
	case *r.VoiceOn:
		if l.voice != "on" {
			l.voice = "on"
			l.event("voice-on")
		}
	case unsupported:
		if l.voice != "unsupported" {
			l.voice = "unsupported"
			msg := clip(cmp.Or(r.Say, "Voice input does not work in this browser."), maxMessage)
			l.out.print(eventLine("voice-off", boundSupport(r.VoiceSupport), msg), false)
		}
	case l.voice == "on":
		l.voice = "off"
		l.event("voice-off")
	case l.voice == "":
		l.voice = "off"
	}
}

// boundSupport is voiceSupport as listen prints it: none longer than a
// line as it came (maxLine bytes), which is refused on its length alone,
// with a note, before any byte of it is decoded or encoded; a string
// bounded as text is, at maxVoiceSupport; another value as the tab wrote
// it when the line's encoder writes it in at most maxVoiceSupport bytes
// (which notes a number no float64 holds); else a note.
func boundSupport(v []byte) []byte {
	over := gate.AppendString(nil, "(the tab's voiceSupport is over "+strconv.Itoa(maxVoiceSupport)+" bytes; not shown)")
	switch {
	case len(v) == 0 || len(v) > maxLine:
		return over
	case v[0] == '"':
		return text(v, maxVoiceSupport)
	case len(line(member("v", v)))-len(`{"v":}`) > maxVoiceSupport:
		return over
	}
	return v
}

// pause waits d, or until ctx ends (false).
func pause(ctx context.Context, d time.Duration) bool {
	select {
	case <-time.After(d): // collected once it fires or is dropped (Go 1.23)
		return true
	case <-ctx.Done():
		return false
	}
}
