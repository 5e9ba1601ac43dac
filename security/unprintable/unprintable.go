// Package unprintable is the bridge's one rule for characters that must not
// be shown as themselves to a person or a model (THREAT_MODEL.md T8, T13,
// T16). A page or a file can put any character into a string; the ones
// Is names either display as nothing, display as something other than what
// a reader takes them for, or move the text around them. Is is the rule;
// the rest apply it: Strip for text a model reads, Escape and Quote for a
// terminal, Describe to word a refusal.
//
// What it does not cover: characters that are printable but look like
// others (confusables such as Cyrillic а for Latin a), and combining marks
// stacked on a printable base. Those display as something; the reader sees
// what is there, if not what it resembles.
package unprintable

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Is reports whether r is not to be shown as itself. That is:
//
//   - every control character (Unicode Cc: C0, DEL and C1), tab and
//     newline included (Strip keeps those two in running text);
//   - every format character (Cf): zero-width spaces and joiners, bidi
//     overrides and isolates such as U+202E, the soft hyphen, U+FEFF,
//     invisible operators such as U+2064;
//   - every Default_Ignorable_Code_Point: Unicode's own list of what a
//     renderer may show as nothing, which adds to Cf the variation
//     selectors, the combining grapheme joiner, the Hangul fillers
//     (U+115F, U+1160, U+3164, U+FFA0), U+17B4 and U+17B5, and reserved
//     blocks such as the rest of the tag block;
//   - the line and paragraph separators U+2028 and U+2029, which break a
//     line where none is seen in the source;
//   - private use (Co): macOS and Cygwin use it to stand for characters
//     Windows names may not hold (":" as U+F022), and a font may draw it as
//     anything;
//   - code points unassigned in the Unicode version of Go's tables
//     (unicode.Version), noncharacters among them: what they will be is not
//     known.
//
// invalid UTF-8 decodes to utf8.RuneError (U+FFFD), which is printable: the
// callers that see bytes say what they do with it.
func Is(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7F
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
		!assigned(r)
}

// assigned reports whether r has a general category other than Cn. (Go's
// unicode.C holds Cn too, so the other categories of C are named.)
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
// newline (the layout of running text), with invalid UTF-8 as U+FFFD. Text
// with nothing to change comes back as it is, without a copy.
func Strip(s string) string {
	if PlainText(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r != '\t' && r != '\n' && Is(r) {
			return -1
		}
		return r // an invalid byte is already utf8.RuneError here
	}, s)
}

// Escape returns s with each character Is names written as a Go escape
// (\x1b, \u202e, \U000e0068) and each invalid byte as \xNN, the rest as it
// is: for a terminal, where such bytes could move the cursor, recolour the
// screen or hide text. It does not quote; a caller that shows a value from
// outside quotes it once (strconv.Quote escapes the same characters and
// more).
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

// Quote returns s quoted once in Go syntax, with every character that
// strconv.Quote takes for unprintable escaped as it does, and every other
// character Is names escaped too (strconv.Quote prints a Hangul filler or a
// private-use character as it is); an invalid byte as \xNN.
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

// Describe words why Is names r, for a refusal: the character by its code
// point, never as itself. It returns "" for a character Is does not name.
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

// bidi reports whether r is one of Unicode's bidirectional formatting
// characters (UAX #9): ALM, LRM, RLM, the embeddings and overrides, and
// the isolates.
func bidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// PlainText reports whether s is printable ASCII, tab and newline only:
// text that Strip returns as it is. It is the fast path of every caller
// that copies text from a page, which is most often plain ASCII.
func PlainText[T string | []byte](s T) bool { return ascii(s, true) }

// ascii reports whether every byte of s is printable ASCII, or with layout
// also a tab or a newline.
func ascii[T string | []byte](s T, layout bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7F || (c < 0x20 && !(layout && (c == '\t' || c == '\n'))) {
			return false
		}
	}
	return true
}
