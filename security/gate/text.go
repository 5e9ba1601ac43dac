package gate

import (
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// MaxText bounds, in bytes, one text the model reads: a reply's say line
// (maxSay) and its guarded envelope (MaxGuarded) after it, so it cuts
// only text no Guard bounded, never a reply's envelope mid-JSON.
const MaxText = maxSay + len("\n\n") + MaxGuarded

// maxSay bounds a say line in bytes: at most MaxString characters (a
// longer say is a note, Guard.Note), decoded, so no escape, each at most
// 4 bytes of UTF-8. Unmark's \u005b for a line's "[" grows a line of at
// least 7 characters by 5 bytes, within that.
const maxSay = 4 * MaxString

// Clean applies the one rule (security/unprintable).
func Clean(s string) string { return unprintable.Strip(s) }

// Text is s as the model may read it. Every tool result's text passes here
// (internal/mcp.textBlock), whatever built it.
func Text(s string) string { return TextN(s, MaxText) }

// TextN is Text for an exit that holds less (a line of stderr).
func TextN(s string, n int) string {
	s = Clean(s)
	if len(s) <= n {
		return s
	}
	head := cutAt(s, n)
	return head + "\n[bridge: " + thousands(len(s)-len(head)) + " more bytes of this text were left out]"
}

func cutAt(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Quote renders a name from a page or a file for a model or a terminal:
// quoted once, every invisible character escaped (U+202E as \u202e).
func Quote(s string) string { return quoteN(s, MaxName) }

// QuotePath is Quote for a path of the file system, which may be longer
// than a name: where a file was saved is no use cut.
func QuotePath(s string) string { return quoteN(s, MaxPath) }

func quoteN(s string, n int) string {
	more := ""
	if len(s) > n {
		s, more = cutAt(s, n), "..."
	}
	return unprintable.Quote(s) + more
}

const MaxName = 200

// MaxPath bounds, in bytes, a path that QuotePath shows: Linux's PATH_MAX.
const MaxPath = 4096
