package cli

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// No two commands may disagree on whether a flag takes a value: the parser
// has one table.
func TestFlagsAgree(t *testing.T) {
	takes := map[string]string{}
	for _, c := range commands {
		for _, f := range c.Flags {
			v := f.Value != ""
			if prev, ok := takes[f.Name]; ok && (prev != "") != v {
				t.Errorf("--%s takes a value in one command and not in %q", f.Name, c.Name)
			}
			takes[f.Name] = f.Value
		}
	}
}

// Every command and flag is documented, and every flag is in its synopsis.
func TestDefinitionsComplete(t *testing.T) {
	for _, c := range commands {
		if c.Summary == "" || c.Long == "" || len(c.Synopsis) == 0 || len(c.Exits) == 0 {
			t.Errorf("command %q: summary, long text, synopsis or exit codes missing", c.Name)
		}
		syn := strings.Join(c.Synopsis, " ")
		for _, f := range c.Flags {
			if strings.HasPrefix(f.Help, "the same as") {
				continue // another name, documented as such
			}
			if f.Help == "" {
				t.Errorf("%q --%s: no help", c.Name, f.Name)
			}
			if !strings.Contains(syn, "--"+f.Name+" ") && !strings.Contains(syn, "--"+f.Name+"]") {
				t.Errorf("%q: synopsis %q does not name --%s", c.Name, syn, f.Name)
			}
		}
	}
}

// lockedBuffer is a terminal stand-in that says when it is written to.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.b.Write(p)
	l.mu.Unlock()
	l.writes <- struct{}{}
	return n, err
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// fakeClock makes progress tick when the test says.
func fakeClock(t *testing.T) chan time.Time {
	ticks := make(chan time.Time)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := progressClock
	progressClock.now = func() time.Time { return start }
	progressClock.tick = func() (<-chan time.Time, func()) { return ticks, func() {} }
	t.Cleanup(func() { progressClock = old })
	return ticks
}

func TestProgressOnATerminal(t *testing.T) {
	old := isTerminal
	t.Cleanup(func() { isTerminal = old })
	isTerminal = func(w any) bool { return true }
	ticks := fakeClock(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := &lockedBuffer{writes: make(chan struct{}, 10)}
	stop := startProgress(w, "waiting for a tab to attach")
	ticks <- start.Add(time.Second)
	<-w.writes
	if got, want := w.String(), "\rstitchslop-bridge: waiting for a tab to attach… 1 s"; got != want {
		t.Errorf("after 1 s: %q, want %q", got, want)
	}
	ticks <- start.Add(12 * time.Second)
	<-w.writes
	stop()
	want := "\rstitchslop-bridge: waiting for a tab to attach… 1 s" +
		"\rstitchslop-bridge: waiting for a tab to attach… 12 s" +
		"\r" + strings.Repeat(" ", 52) + "\r"
	if got := w.String(); got != want {
		t.Errorf("progress wrote %q, want %q", got, want)
	}
	stop() // a second stop is harmless
}

func TestProgressNotOnAPipe(t *testing.T) {
	old := isTerminal
	t.Cleanup(func() { isTerminal = old })
	isTerminal = func(w any) bool { return false }
	fakeClock(t)
	var w bytes.Buffer
	stop := startProgress(&w, "waiting")
	stop()
	if w.Len() != 0 {
		t.Errorf("progress on a pipe wrote %q, want nothing", w.String())
	}
}

// call's help states the limits security/files enforces, with the numbers
// it enforces: a help that drifts from them fails here.
func TestCallHelpStatesTheFileLimits(t *testing.T) {
	help := strings.Join(strings.Fields(helpFor(lookup("call"))), " ")
	for _, want := range []string{
		fmt.Sprintf("--save writes at most %d files of one reply", files.MaxSaved),
		fmt.Sprintf("each file past the %d", files.MaxSaved), // "32nd"
		fmt.Sprintf("(at most %d)", files.MaxSaved),
		fmt.Sprintf("design files of at most %d MB", files.MaxIn>>20),
	} {
		if !strings.Contains(help, want) {
			t.Errorf("helpFor(call) does not say %q", want)
		}
	}
}
