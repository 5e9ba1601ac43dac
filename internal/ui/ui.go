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
//
// stderr is an exit like stdout, and a page's words reach it: every line is
// escaped by the one character rule (security/unprintable), bounded, and a
// line repeated within RepeatWindow is counted, not written (repeat.go).
package ui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

const Prefix = "stitchslop-bridge: "

// LevelHint marks a line that says how to fix what the line before reported.
const LevelHint = slog.Level(2)

// NewLogger returns a slog.Logger that writes lines in the house format to
// w; Flush writes the repeat counts still held.
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
	r = render(r)
	if h.repeats.hold(h, r) {
		return nil
	}
	return h.write(r)
}

// render returns r as a line shows it. It runs before a record is counted,
// so a record held back holds no more than a line shows.
func render(r slog.Record) slog.Record {
	// One record, one line: a wrapped error that carries newlines must not
	// produce lines without the prefix.
	msg := escape(strings.ReplaceAll(strings.TrimRight(r.Message, "\n"), "\n", "; "))
	out := slog.NewRecord(r.Time, r.Level, bound(msg), r.PC)
	r.Attrs(func(a slog.Attr) bool { out.AddAttrs(renderAttr(a)); return true })
	return out
}

func renderAttr(a slog.Attr) slog.Attr {
	return slog.String(a.Key, bound(quote(a.Value.String())))
}

// MaxPiece bounds, in bytes, a message or a value on a line of stderr, so
// a page's huge message costs no more than a few lines' worth.
const MaxPiece = 4 << 10

func bound(s string) string {
	if len(s) <= MaxPiece {
		return s
	}
	return strings.ReplaceAll(gate.TextN(s, MaxPiece), "\n", " ")
}

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
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%s", a.Key, a.Value.String())
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
	n.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range as {
		n.attrs = append(n.attrs, renderAttr(a))
	}
	return &n
}

func (h *handler) WithGroup(string) slog.Handler { return h }

// quote renders an attribute value, quoted by the one rule unless plain.
func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \"=\\") || unprintable.Any(s) {
		return unprintable.Quote(s)
	}
	return s
}

// escape writes what the one rule names, and invalid bytes, as Go escapes,
// so bytes from a page cannot drive the terminal or hide text.
func escape(s string) string { return unprintable.Escape(s) }

func Hint(l *slog.Logger, msg string) {
	l.Log(context.Background(), LevelHint, msg)
}
