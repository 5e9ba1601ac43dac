package ui

import (
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// RepeatWindow is how long a written line's repeats are counted, then
// written as one count line: a page in a loop makes the same line hundreds
// of times a minute, burying the lines that matter.
const RepeatWindow = 10 * time.Second

// maxRepeatKeys bounds the messages counted at once, so messages that
// differ cannot grow the table; past it they count as one "other" kind.
const maxRepeatKeys = 256

// repeatClock holds what tests shorten.
var repeatClock = struct {
	window time.Duration
	now    func() time.Time
}{RepeatWindow, time.Now}

// repeats counts the lines of one logger by level and message, not
// attributes: a value (an origin, a host) is what a flood varies.
type repeats struct {
	mu   sync.Mutex
	seen map[repeatKey]*repeat
	// other counts the lines of messages that found the table full.
	other *repeat
}

type repeatKey struct {
	level slog.Level
	msg   string
}

// repeat is one message's window; n records were held back in it, and h
// is last's handler, for its attributes.
type repeat struct {
	start, end time.Time
	n          int
	last       slog.Record
	h          *handler
	timer      *time.Timer
}

// hold reports whether r is a repeat to count instead of writing. The
// first time it holds one back in a window it arms the window's summary.
func (rs *repeats) hold(h *handler, r slog.Record) bool {
	now := repeatClock.now()
	k := repeatKey{r.Level, r.Message}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	p := rs.seen[k]
	if p == nil || !now.Before(p.end) {
		if p == nil && len(rs.seen) >= maxRepeatKeys {
			rs.prune(now)
			if len(rs.seen) >= maxRepeatKeys {
				return rs.holdOther(h, r, now)
			}
		}
		rs.seen[k] = &repeat{start: now, end: now.Add(repeatClock.window)}
		return false
	}
	p.n++
	p.last, p.h = r.Clone(), h
	if p.timer == nil {
		p.timer = time.AfterFunc(p.end.Sub(now), func() { rs.summarise(k) })
	}
	return true
}

// holdOther is hold for a message that found the table full: all such
// messages are counted as one kind.
func (rs *repeats) holdOther(h *handler, r slog.Record, now time.Time) bool {
	p := rs.other
	if p == nil || !now.Before(p.end) {
		// An ended window's count, if any, is its timer's to write.
		rs.other = &repeat{start: now, end: now.Add(repeatClock.window)}
		return false
	}
	p.n++
	p.last, p.h = r.Clone(), h
	if p.timer == nil {
		p.timer = time.AfterFunc(p.end.Sub(now), func() { rs.summariseOther(p) })
	}
	return true
}

// summariseOther writes the count of p, a window of other kinds that has
// just ended, and opens the next one if p is still the current.
func (rs *repeats) summariseOther(p *repeat) {
	rs.mu.Lock()
	if p.n == 0 {
		rs.mu.Unlock()
		return
	}
	now := repeatClock.now()
	line, h := p.otherSummary(now), p.h
	p.n = 0 // written once, by this or by flush
	if rs.other == p {
		rs.other = &repeat{start: now, end: now.Add(repeatClock.window)}
	}
	rs.mu.Unlock()
	h.write(line)
}

func (p *repeat) otherSummary(now time.Time) slog.Record {
	lines := "lines"
	if p.n == 1 {
		lines = "line"
	}
	msg := thousands(p.n) + " more " + lines + " of other kinds in the last " + now.Sub(p.start).Round(100*time.Millisecond).String() +
		" (more than " + strconv.Itoa(maxRepeatKeys) + " kinds at once) were not written; the last: " + p.last.Message
	return slog.NewRecord(now, max(p.last.Level, slog.LevelWarn), msg, 0)
}

// prune drops the windows that have ended with nothing held back.
func (rs *repeats) prune(now time.Time) {
	for k, p := range rs.seen {
		if p.n == 0 && !now.Before(p.end) {
			delete(rs.seen, k)
		}
	}
}

// summarise writes the count of k's window that has just ended, and opens
// the next window: repeats that keep coming are counted on.
func (rs *repeats) summarise(k repeatKey) {
	rs.mu.Lock()
	p := rs.seen[k]
	if p == nil || p.n == 0 {
		rs.mu.Unlock()
		return
	}
	now := repeatClock.now()
	line, h := p.summary(now), p.h
	rs.seen[k] = &repeat{start: now, end: now.Add(repeatClock.window)}
	rs.mu.Unlock()
	h.write(line)
}

// flush writes the counts of every window still open, at exit.
func (rs *repeats) flush() {
	rs.mu.Lock()
	now := repeatClock.now()
	var lines []func()
	for k, p := range rs.seen {
		if p.timer != nil {
			p.timer.Stop()
		}
		if p.n > 0 {
			line, h := p.summary(now), p.h
			lines = append(lines, func() { h.write(line) })
		}
		delete(rs.seen, k)
	}
	if p := rs.other; p != nil {
		if p.timer != nil {
			p.timer.Stop()
		}
		if p.n > 0 {
			line, h := p.otherSummary(now), p.h
			lines = append(lines, func() { h.write(line) })
			p.n = 0
		}
		rs.other = nil
	}
	rs.mu.Unlock()
	for _, w := range lines {
		w()
	}
}

// summary carries the last repeat's attributes.
func (p *repeat) summary(now time.Time) slog.Record {
	times := "times"
	if p.n == 1 {
		times = "time"
	}
	msg := p.last.Message + " (" + thousands(p.n) + " more " + times + " in the last " + now.Sub(p.start).Round(100*time.Millisecond).String() + ")"
	r := slog.NewRecord(now, p.last.Level, msg, 0)
	p.last.Attrs(func(a slog.Attr) bool { r.AddAttrs(a); return true })
	return r
}

// Flush writes the counts of repeated lines l has held back; call it
// before the process exits.
func Flush(l *slog.Logger) {
	if h, ok := l.Handler().(*handler); ok {
		h.repeats.flush()
	}
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
