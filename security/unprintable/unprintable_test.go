package unprintable

import (
	"testing"
	"unicode"
)

// The code points of issue 27 that one of the six earlier rules let pass,
// and the classes the rule names, each written from its code point.
var named = []rune{
	0x00, 0x09, 0x0A, 0x1B, 0x7F, 0x85, 0x9B, // controls, tab and newline too
	0xAD, 0x200B, 0x200D, 0x2060, 0x2064, 0xFEFF, // format characters
	0x061C, 0x200E, 0x202A, 0x202E, 0x2066, 0x2069, // bidi
	0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, // default ignorable
	0xFE00, 0xFE0F, 0xE0100, 0xE01EF, // variation selectors
	0xE0001, 0xE0068, 0xE007F, 0xE0080, // tags, and past them
	0x2028, 0x2029, // separators
	0xE000, 0xF8FF, 0xF0041, 0x10FFFD, // private use
	0x0378, 0xFFFE, 0xFFFF, 0x1FFFF, // unassigned and noncharacters
}

var shown = []rune{' ', 'a', '~', 0xA0, 0xE9, 0x3000, 0x65E5, 0x2713, 0x1F600, 0xFFFD, 0x0301}

func TestIs(t *testing.T) {
	for _, r := range named {
		if !Is(r) {
			t.Errorf("Is(%U) = false, want true", r)
		}
		if Describe(r) == "" {
			t.Errorf("Describe(%U) = \"\", want a reason", r)
		}
	}
	for _, r := range shown {
		if Is(r) {
			t.Errorf("Is(%U) = true, want false", r)
		}
		if d := Describe(r); d != "" {
			t.Errorf("Describe(%U) = %q, want \"\"", r, d)
		}
	}
}

// TestIsCoversDefaultIgnorable holds Is to Unicode's derived property
// Default_Ignorable_Code_Point (Other_DICP, Cf, variation selectors; Is
// names a superset) over every code point.
func TestIsCoversDefaultIgnorable(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector) && !Is(r) {
			t.Fatalf("Is(%U) = false for a default-ignorable code point", r)
		}
	}
}

func TestStrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"fill\u3164er \u17b4x\u115f \u2064y \ue000z \U000F0041w \U000E0080v", "filler x y z w v"},
		{"pkg\ufe0f.json", "pkg.json"},
		{"a\u2028b", "ab"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"café ✓ 日本", "café ✓ 日本"},
	} {
		if got := Strip(tc.in); got != tc.want {
			t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"esc\x1b[31m", `esc\x1b[31m`},
		{"line\nbreak", `line\nbreak`},
		{"evil\u202egnp", `evil\u202egnp`},
		{"fill\u3164er", `fill\u3164er`},
		{"tag\U000E0068", `tag\U000e0068`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"ok \uFFFD", "ok \uFFFD"},
		{"café", "café"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if Any(Escape(tc.in)) {
			t.Errorf("Escape(%q) = %q still holds a character Is names", tc.in, Escape(tc.in))
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("esc\x1b[31m\u202e\u3164\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if e := Escape(s); Any(e) {
			t.Fatalf("Escape(%q) = %q still holds a character Is names", s, e)
		}
		for _, r := range Strip(s) {
			if r != '\t' && r != '\n' && Is(r) {
				t.Fatalf("Strip(%q) kept %U", s, r)
			}
		}
	})
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{"fill\u3164er", `"fill\u3164er"`},
		{"pua\ue000 tag\U000E0068", `"pua\ue000 tag\U000e0068"`},
		{"esc\x1b\xff", `"esc\x1b\xff"`},
		{"café \"q\"", `"café \"q\""`},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
