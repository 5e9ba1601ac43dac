package ui

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a log's writer that a test may read while the summary
// timer writes.
type lockedBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wrote != nil {
		select {
		case l.wrote <- struct{}{}:
		default:
		}
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSuffix(l.b.String(), "\n"), "\n")
}

// fakeClock sets the clock repeats read for the rest of the test.
func fakeClock(t *testing.T, window time.Duration) *time.Time {
	now := time.Date(2026, 12, 3, 21, 0, 0, 0, time.UTC)
	old := repeatClock
	repeatClock.window, repeatClock.now = window, func() time.Time { return now }
	t.Cleanup(func() { repeatClock = old })
	return &now
}

// The two floods seen in use (issues 27 and 29): 3,000 refused upgrades
// from a web origin and 506 connections whose owner could not be checked
// write one line each at once, and one line with the count of the rest.
func TestRepeatedWarningsAreCounted(t *testing.T) {
	for _, tt := range []struct {
		msg, key, value string
		n               int
		want            []string
	}{
		{"refused a connection (403): origin not allowed", "origin", "https://evil.example", 3000, []string{
			"stitchslop-bridge: warning: refused a connection (403): origin not allowed origin=https://evil.example",
			"stitchslop-bridge: warning: refused a connection (403): origin not allowed (2,999 more times in the last 3s) origin=https://evil.example",
		}},
		{"refused a connection whose owner could not be checked", "err", "no such socket", 506, []string{
			`stitchslop-bridge: warning: refused a connection whose owner could not be checked err="no such socket"`,
			`stitchslop-bridge: warning: refused a connection whose owner could not be checked (505 more times in the last 3s) err="no such socket"`,
		}},
	} {
		now := fakeClock(t, 10*time.Second)
		var b lockedBuffer
		log := NewLogger(&b)
		for range tt.n {
			log.Warn(tt.msg, tt.key, tt.value)
		}
		if got := b.lines(); len(got) != 1 || got[0] != tt.want[0] {
			t.Errorf("%d warnings %q: lines before the window ends =\n%s\nwant only\n%s", tt.n, tt.msg, strings.Join(got, "\n"), tt.want[0])
		}
		*now = now.Add(3 * time.Second)
		Flush(log)
		if got := b.lines(); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%d warnings %q: lines =\n%s\nwant\n%s", tt.n, tt.msg, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// At a window's end the count is written without waiting for an exit, and
// a flood that goes on is counted on in the next window; another message
// is written as it comes; an info line (a page's event: a tool list, a
// connection) and a hint are counted as a warning is.
func TestRepeatCountAtWindowEnd(t *testing.T) {
	old := repeatClock
	repeatClock.window = 50 * time.Millisecond
	t.Cleanup(func() { repeatClock = old })
	b := lockedBuffer{wrote: make(chan struct{}, 1)}
	log := NewLogger(&b)
	log.Warn("refused a connection (403): origin not allowed")
	log.Warn("refused a connection (403): origin not allowed")
	log.Warn("another warning")
	log.Info("an info line")
	log.Info("an info line")
	Hint(log, "a hint")
	Hint(log, "a hint")
	want := []string{
		"stitchslop-bridge: warning: refused a connection (403): origin not allowed",
		"stitchslop-bridge: warning: another warning",
		"stitchslop-bridge: an info line",
		"stitchslop-bridge: hint: a hint",
	}
	if got := b.lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	counts := []string{ // each window ends on its own timer, in any order
		"stitchslop-bridge: warning: refused a connection (403): origin not allowed (1 more time in the last ",
		"stitchslop-bridge: an info line (1 more time in the last ",
		"stitchslop-bridge: hint: a hint (1 more time in the last ",
	}
	for len(b.lines()) < len(want)+len(counts) {
		select {
		case <-b.wrote:
		case <-time.After(10 * time.Second):
			t.Fatalf("no count lines after the window; lines:\n%s", strings.Join(b.lines(), "\n"))
		}
	}
	got := b.lines()
	if len(got) != len(want)+len(counts) {
		t.Errorf("lines after the window =\n%s\nwant %d more, the counts of 1", strings.Join(got, "\n"), len(counts))
	}
	for _, c := range counts {
		if !slices.ContainsFunc(got[len(want):], func(l string) bool { return strings.HasPrefix(l, c) }) {
			t.Errorf("lines after the window =\n%s\nwant one starting %q", strings.Join(got, "\n"), c)
		}
	}
	// The next window is open: a repeat now is counted, not written.
	log.Warn("refused a connection (403): origin not allowed")
	if n := len(b.lines()); n != len(want)+len(counts) {
		t.Errorf("a repeat right after a count line was written (%d lines, want %d)", n, len(want)+len(counts))
	}
	Flush(log)
}

// A flood of lines that all differ (each naming a new value: a page can
// vary what a message quotes) fills the table of kinds; past it, every
// message counts as one kind more, "other kinds", so stderr gets at most
// maxRepeatKeys+1 lines and the counts, not a line each.
func TestDifferingLinesAreCountedPastTheTable(t *testing.T) {
	now := fakeClock(t, 10*time.Second)
	var b lockedBuffer
	log := NewLogger(&b)
	const n = 1000
	for i := range n {
		log.Warn("ignored a frame from the tab: bad byte at offset " + strconv.Itoa(i))
	}
	if got := len(b.lines()); got != maxRepeatKeys+1 {
		t.Errorf("%d differing warnings wrote %d lines before the window ended, want %d", n, got, maxRepeatKeys+1)
	}
	*now = now.Add(3 * time.Second)
	Flush(log)
	lines := b.lines()
	want := "stitchslop-bridge: warning: " + strconv.Itoa(n-maxRepeatKeys-1) + " more lines of other kinds in the last 3s (more than 256 kinds at once) were not written; the last: ignored a frame from the tab: bad byte at offset 999"
	if len(lines) != maxRepeatKeys+2 || lines[len(lines)-1] != want {
		t.Errorf("after the flush: %d lines, the last %q; want %d, the last %q", len(lines), lines[len(lines)-1], maxRepeatKeys+2, want)
	}
}
