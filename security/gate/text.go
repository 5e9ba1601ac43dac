package gate

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxText bounds, in bytes, one text the model reads: a tool result's text
// block, a greeting, a status. It is more than a guarded envelope can grow
// to (MaxTotal, plus the notes and the bridge's own words around it), so
// it cuts only text that did not pass through a Guard.
const MaxText = 2*MaxTotal + 64<<10

// Invisible reports whether r displays as nothing, or as something other
// than what a model reads: C0 and C1 controls except tab and newline, DEL,
// format characters (Unicode Cf: zero-width spaces and joiners, bidi
// overrides such as U+202E, the soft hyphen), the whole tag block
// U+E0000-U+E007F (tag characters spell ASCII that no screen shows),
// variation selectors, the combining grapheme joiner, and the Hangul
// fillers, which are letters that render blank.
func Invisible(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x80:
		return r < 0x20 || r == 0x7F
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	case 0xE0000 <= r && r <= 0xE007F:
		return true
	}
	switch r {
	case 0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0:
		return true
	}
	return false
}

// Clean returns s without its invisible characters (Invisible), and with
// invalid UTF-8 as U+FFFD. Text with nothing to change comes back as it
// is, without a copy (strings.Map copies only on a change).
func Clean(s string) string {
	if !needsLook(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if Invisible(r) {
			return -1
		}
		return r // an invalid byte is already utf8.RuneError here
	}, s)
}

// needsLook reports whether s has a byte that Clean may change: a control
// byte, DEL, or any byte of a multi-byte sequence.
func needsLook[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7F || (c < 0x20 && c != '\t' && c != '\n') {
			return true
		}
	}
	return false
}

// Text is s as the model may read it: Clean, and at most MaxText bytes,
// cut at a character with a note saying how much was left out. Every tool
// result's text passes here (internal/mcp.resultHead), whatever built it.
func Text(s string) string {
	s = Clean(s)
	if len(s) <= MaxText {
		return s
	}
	head := cutAt(s, MaxText)
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
	// strconv.Quote escapes what is not printable; what is printable but
	// invisible (a variation selector, a Hangul filler) is escaped here.
	var b strings.Builder
	for _, r := range strconv.Quote(strings.ToValidUTF8(s, "\uFFFD")) {
		if Invisible(r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String() + more
}

// MaxName bounds, in bytes, a name that Quote shows.
const MaxName = 200
