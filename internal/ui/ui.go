// Package ui owns everything the bridge says to the person watching stderr.
// Every line has the form
//
//	stitchslop-bridge: <message>
//	stitchslop-bridge: warning: <message>
//	stitchslop-bridge: error: <message>
//	stitchslop-bridge: hint: <message>
//
// Nothing here ever writes to stdout: in MCP mode stdout is the protocol,
// in CLI mode it carries one JSON document.
package ui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// Prefix starts every line.
const Prefix = "stitchslop-bridge: "

// LevelHint marks a line that says how to fix what the line before reported.
const LevelHint = slog.Level(2)

// NewLogger returns a slog.Logger that writes lines in the house format to w.
// Attributes follow the message as key=value, values quoted when needed. A
// warning or an error that repeats within RepeatWindow is counted, not
// written again (repeat.go); Flush writes the counts still held.
func NewLogger(w io.Writer) *slog.Logger {
	return slog.New(&handler{w: w, mu: new(sync.Mutex), repeats: &repeats{seen: map[repeatKey]*repeat{}}})
}

type handler struct {
	w       io.Writer
	mu      *sync.Mutex
	repeats *repeats // shared with the handlers WithAttrs makes
	attrs   []slog.Attr
}

func (h *handler) Enabled(context.Context, slog.Level) bool { return true }

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	if h.repeats.hold(h, r) {
		return nil
	}
	return h.write(r)
}

// write writes r as one line.
func (h *handler) write(r slog.Record) error {
	var b strings.Builder
	b.WriteString(Prefix)
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	case r.Level == LevelHint:
		b.WriteString("hint: ")
	}
	// One record, one line: a wrapped error that carries newlines must not
	// produce lines without the prefix.
	b.WriteString(escape(strings.ReplaceAll(strings.TrimRight(r.Message, "\n"), "\n", "; ")))
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%s", a.Key, quote(a.Value.String()))
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &n
}

func (h *handler) WithGroup(string) slog.Handler { return h }

// quote renders an attribute value: as it is when it is plain text with
// nothing to escape, otherwise quoted once by the one rule's Quote, which
// escapes every character that would not show as itself.
func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \"=\\") || unprintable.Any(s) {
		return unprintable.Quote(s)
	}
	return s
}

// escape writes a message's characters that would not show as themselves
// (the one rule, security/unprintable: ESC, BEL and the other controls,
// bidi overrides and other format characters, fillers, private use) and
// invalid bytes as Go escapes, so bytes from a page or a file cannot drive
// the terminal or hide text. Everything else, spaces included, is kept.
func escape(s string) string { return unprintable.Escape(s) }

// Hint logs a hint line.
func Hint(l *slog.Logger, msg string) {
	l.Log(context.Background(), LevelHint, msg)
}
