package ui

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestEveryLineHasThePrefix(t *testing.T) {
	var b bytes.Buffer
	log := NewLogger(&b)
	log.Info("listening", "port", 8787)
	log.Warn("loose mode", "path", "/a b")
	log.Error(fmt.Errorf("binding: %w", errors.Join(errors.New("first"), errors.New("second"))).Error())
	Hint(log, "try again")
	want := []string{
		"stitchslop-bridge: listening port=8787",
		`stitchslop-bridge: warning: loose mode path="/a b"`,
		"stitchslop-bridge: error: binding: first; second",
		"stitchslop-bridge: hint: try again",
	}
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log lines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Bytes from a page or a file never drive the terminal: every control and
// format character is escaped, in the message and in values, and each value
// is quoted once.
func TestUntrustedBytesEscaped(t *testing.T) {
	var b bytes.Buffer
	log := NewLogger(&b)
	hostile := "\x1b]0;owned\x07\x1b[2J\u202eevil\u0085\x7f\xff"
	log.Warn("the tab said: "+hostile, "origin", "https://evil.example", "reason", hostile, "empty", "")
	line := b.String()
	for _, c := range []string{"\x1b", "\x07", "\u202e", "\u0085", "\x7f", "\xff"} {
		if strings.Contains(line, c) {
			t.Errorf("log line %q carries %q raw", line, c)
		}
	}
	want := `stitchslop-bridge: warning: the tab said: \x1b]0;owned\a\x1b[2J\u202eevil\u0085\x7f\xff origin=https://evil.example reason="\x1b]0;owned\a\x1b[2J\u202eevil\u0085\x7f\xff" empty=""` + "\n"
	if line != want {
		t.Errorf("log line\n%s\nwant\n%s", line, want)
	}
}

// The characters issue 27 found printed raw: the one rule
// (security/unprintable) escapes each, in the message and in values.
func TestOneRuleEscaped(t *testing.T) {
	var b bytes.Buffer
	log := NewLogger(&b)
	hostile := "a\u3164b\u17b4c\u115fd\u2064e\ue000f\U000F0041g\U000E0080h\ufe0fi"
	log.Warn("name "+hostile, "name", hostile)
	want := `stitchslop-bridge: warning: name a\u3164b\u17b4c\u115fd\u2064e\ue000f\U000f0041g\U000e0080h\ufe0fi name="a\u3164b\u17b4c\u115fd\u2064e\ue000f\U000f0041g\U000e0080h\ufe0fi"` + "\n"
	if b.String() != want {
		t.Errorf("log line\n%s\nwant\n%s", b.String(), want)
	}
}

// stderr is bounded as stdout is (issue 34): a page's message of 5 MB, in
// the message or in a value, is cut at the gate's bound with a note of how
// much was left out, on the one line, and the characters the one rule
// names stay escaped up to the cut.
func TestLongTextCutAtTheGatesBound(t *testing.T) {
	huge := strings.Repeat("<\u202e", 5<<20/4)
	for _, tt := range []struct {
		name string
		log  func(*slog.Logger)
	}{
		{"message", func(l *slog.Logger) { l.Warn("the tab said: " + huge) }},
		{"value", func(l *slog.Logger) { l.Error("the tab refused voice.listen", "error", "busy", "message", huge) }},
		{"attrs", func(l *slog.Logger) { l.With("message", huge).Info("a page's event") }},
	} {
		var b bytes.Buffer
		tt.log(NewLogger(&b))
		line := b.String()
		if n := strings.Count(line, "\n"); n != 1 {
			t.Errorf("%s: %d lines, want 1", tt.name, n)
		}
		if len(line) > MaxPiece+1024 {
			t.Errorf("%s: a line of %d bytes, want at most MaxPiece (%d) and a note", tt.name, len(line), MaxPiece)
		}
		if !strings.Contains(line, " more bytes of this text were left out]") {
			t.Errorf("%s: no note of what was left out at the end of %q", tt.name, line[max(0, len(line)-200):])
		}
		if strings.Contains(line, "\u202e") {
			t.Errorf("%s: U+202E written raw", tt.name)
		}
	}
}
