package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// Progress: while wait or call waits on the bridge, a person at a terminal
// sees that it is waiting, and for how long:
//
//	stitchslop-bridge: waiting for a tab to attach… 5 s
//
// on stderr, rewritten in place every second and cleared when the wait
// ends. Never on stdout, which holds the JSON document, and never when
// stderr is not a terminal: a pipe or a file gets no carriage returns.

// progressEvery is how often the line is rewritten; it counts seconds.
const progressEvery = time.Second

// Test hooks, swapped in t.Cleanup.
var (
	// isTerminal reports whether w is a terminal.
	isTerminal = func(w any) bool {
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(int(f.Fd()))
	}
	// progressClock is the time now and a ticker of progressEvery.
	progressClock = struct {
		now  func() time.Time
		tick func() (<-chan time.Time, func())
	}{
		now: time.Now,
		tick: func() (<-chan time.Time, func()) {
			t := time.NewTicker(progressEvery)
			return t.C, t.Stop
		},
	}
)

type stderrKey struct{}

// withStderr keeps stderr in ctx, for the progress line.
func withStderr(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, stderrKey{}, w)
}

// stderrOf is the stderr withStderr kept in ctx, or io.Discard.
func stderrOf(ctx context.Context) io.Writer {
	if w, ok := ctx.Value(stderrKey{}).(io.Writer); ok {
		return w
	}
	return io.Discard
}

// showProgress starts the progress line of the verb a names, if it waits
// (wait, call) and ctx's stderr is a terminal, and returns what stops it.
// It is called around the request to the bridge.
func showProgress(ctx context.Context, a args) (stop func()) {
	w, _ := ctx.Value(stderrKey{}).(io.Writer)
	if w == nil || len(a.pos) == 0 {
		return func() {}
	}
	switch a.pos[0] {
	case "wait":
		return startProgress(w, "waiting for a tab to attach")
	case "call":
		return startProgress(w, "waiting for the tab to answer")
	}
	return func() {}
}

// startProgress writes "what… N s" to w every progressEvery, in place, until
// stop is called; stop clears the line and returns once nothing more will
// be written. It does nothing unless w is a terminal.
func startProgress(w io.Writer, what string) (stop func()) {
	if !isTerminal(w) {
		return func() {}
	}
	start := progressClock.now()
	ticks, stopTicks := progressClock.tick()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		width := 0 // of the line on screen
		for {
			select {
			case t := <-ticks:
				line := fmt.Sprintf("stitchslop-bridge: %s… %d s", what, int(t.Sub(start).Round(time.Second)/time.Second))
				n := utf8.RuneCountInString(line)
				fmt.Fprintf(w, "\r%s%s", line, strings.Repeat(" ", max(width-n, 0)))
				width = max(width, n)
			case <-done:
				if width > 0 {
					fmt.Fprintf(w, "\r%s\r", strings.Repeat(" ", width))
				}
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			stopTicks()
			close(done)
			<-finished
		})
	}
}
