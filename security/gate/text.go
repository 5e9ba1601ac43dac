package gate

import (
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// MaxText bounds, in bytes, one text the model reads: a tool result's text
// block, a greeting, a status. It is more than a guarded envelope can grow
// to (MaxTotal, plus the notes and the bridge's own words around it), so
// it cuts only text that did not pass through a Guard.
const MaxText = 2*MaxTotal + 64<<10

// Clean returns s without the characters the one rule names
// (security/unprintable: controls but tab and newline, format and
// default-ignorable characters, separators, private use, unassigned code
// points), with invalid UTF-8 as U+FFFD; without a copy when nothing
// changes.
func Clean(s string) string { return unprintable.Strip(s) }

// Text is s as the model may read it: Clean, and at most MaxText bytes,
// cut at a character with a note saying how much was left out. Every tool
// result's text passes here (internal/mcp.resultHead), whatever built it.
func Text(s string) string { return TextN(s, MaxText) }

// TextN is Text with a bound of n bytes, for an exit that holds less than
// a tool result (a line of stderr).
func TextN(s string, n int) string {
	s = Clean(s)
	if len(s) <= n {
		return s
	}
	head := cutAt(s, n)
	return head + "\n[bridge: " + thousands(len(s)-len(head)) + " more bytes of this text were left out]"
}

// cutAt returns the longest start of s, at most n < len(s) bytes, that
// ends between two characters.
func cutAt(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Quote renders a name that came from a page or a file (a file name, an
// origin, a command) for a model or a terminal: quoted once, in Go syntax,
// with every character that is not printable, and every invisible one,
// escaped (a U+202E shows as \u202e), and at most MaxName bytes of it.
func Quote(s string) string {
	more := ""
	if len(s) > MaxName {
		s, more = cutAt(s, MaxName), "..."
	}
	return unprintable.Quote(s) + more
}

// MaxName bounds, in bytes, a name that Quote shows.
const MaxName = 200
