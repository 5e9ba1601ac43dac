// Package unprintable is the one rule for characters not to be shown as
// themselves to a person or a model (THREAT_MODEL.md T8, T13, T16): those
// that display as nothing, as something a reader would not take them for,
// or move the text around them. Is is the rule; the other functions apply
// it. Not covered: printable look-alikes (Cyrillic а for Latin a) and
// stacked combining marks, which display as something.
package unprintable

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Is reports whether r is not to be shown as itself: control characters
// (tab and newline included), format characters such as bidi overrides,
// what Unicode lets a renderer show as nothing (variation selectors,
// Hangul fillers), the line and paragraph separators, private use (which a
// font may draw as anything) and unassigned code points. U+FFFD, what
// invalid UTF-8 decodes to, is printable.
func Is(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7F
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
		!assigned(r)
}

func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z,
		unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// Any reports whether s holds a character Is names, or invalid UTF-8.
func Any(s string) bool {
	if ascii(s, false) {
		return false
	}
	for i, r := range s {
		if Is(r) || (r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD")) {
			return true
		}
	}
	return false
}

// Strip returns text without the characters Is names, keeping tab and
// newline, with invalid UTF-8 as U+FFFD.
func Strip(s string) string {
	if PlainText(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r != '\t' && r != '\n' && Is(r) {
			return -1
		}
		return r
	}, s)
}

// Escape returns s with each character Is names, and each invalid byte,
// written as a Go escape, for a terminal, where such bytes could move the
// cursor or hide text. It does not quote.
func Escape(s string) string {
	if !Any(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case Is(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Quote is strconv.Quote that also escapes every character Is names
// (strconv.Quote prints a Hangul filler or private use as it is).
func Quote(s string) string {
	q := strconv.Quote(s)
	if !Any(q) {
		return q
	}
	var b strings.Builder
	for _, r := range q {
		if Is(r) {
			e := strconv.QuoteRuneToASCII(r)
			b.WriteString(e[1 : len(e)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Describe words why Is names r, by its code point, never as itself; ""
// when Is does not name it.
func Describe(r rune) string {
	u := fmt.Sprintf("%U", r)
	switch {
	case !Is(r):
		return ""
	case unicode.Is(unicode.Cc, r):
		return "the control character " + u
	case bidi(r):
		return u + ", a bidirectional control, which changes the order its text is shown in"
	case unicode.Is(unicode.Cf, r):
		return u + ", an invisible formatting character"
	case unicode.In(r, unicode.Zl, unicode.Zp):
		return u + ", a line or paragraph separator"
	case unicode.Is(unicode.Co, r):
		return u + ", a private-use character, which some systems show as a character names may not hold"
	case !assigned(r):
		return u + ", a code point not assigned in Unicode " + unicode.Version
	}
	return u + ", a character that displays as nothing"
}

// bidi: UAX #9's bidirectional formatting characters.
func bidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// PlainText reports whether s is printable ASCII, tab and newline only:
// text Strip returns as it is, the common fast path.
func PlainText[T string | []byte](s T) bool { return ascii(s, true) }

func ascii[T string | []byte](s T, layout bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7F || (c < 0x20 && !(layout && (c == '\t' || c == '\n'))) {
			return false
		}
	}
	return true
}
