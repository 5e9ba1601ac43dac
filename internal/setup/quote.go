package setup

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// This file turns argument words into one line for a shell to split back
// into the same words. Each quoter is tested against its shell's rules in
// quote_test.go (posix ones by running bash and sh).

// posixSafe holds the bytes a POSIX shell leaves alone in an unquoted word.
// Anything else (space, quotes, $, `, \, glob and control characters,
// non-ASCII) makes QuotePosix quote the word.
func posixSafe(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
		strings.ContainsRune("_@%+=:,./-", r)
}

// QuotePosix quotes s for sh, bash and zsh: unchanged when every character is
// safe bare, else inside single quotes, where nothing is special; each
// embedded ' closes them, is written backslash-escaped, and reopens them.
func QuotePosix(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !posixSafe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// psSingleQuotes are the characters PowerShell takes as a single quote: the
// ASCII one and the typographic ones (about_Quoting_Rules). Inside a
// single-quoted string each is escaped by doubling it.
const psSingleQuotes = "'\u2018\u2019\u201a\u201b"

// psSafe holds the characters PowerShell leaves alone in a bare argument.
func psSafe(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
		strings.ContainsRune(`_./\:=-`, r)
}

// QuotePowerShell quotes s as one PowerShell argument: unchanged when every
// character is safe bare, else inside single quotes (no expansion happens
// there) with every kind of single quote doubled. "--" and words starting
// with "--%" are always quoted: PowerShell 5.1 swallows a bare "--" and
// "--%" stops its parsing.
func QuotePowerShell(s string) string {
	if s != "" && s != "--" && !strings.HasPrefix(s, "--%") &&
		strings.IndexFunc(s, func(r rune) bool { return !psSafe(r) }) < 0 {
		return s
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if strings.ContainsRune(psSingleQuotes, r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}

// cmdUnsafe are the characters cmd.exe cannot carry inside double quotes: "
// ends the quoted part, % expands variables even inside quotes, and !
// expands them when delayed expansion is on (cmd /V, or a registry default).
const cmdUnsafe = `"%!`

// cmdSpecial are the characters that make QuoteCmd quote a word.
const cmdSpecial = " \t&|<>^(),;=\u00a0"

// ErrCmdUnsafe is wrapped by QuoteCmd's error for a word holding a
// character cmd.exe cannot carry.
var ErrCmdUnsafe = errors.New("cmd.exe cannot carry it safely")

// QuoteCmd quotes s as one cmd.exe argument for a program that splits its
// command line the Microsoft C runtime way (node, Go, most Windows CLIs):
// unchanged when nothing in it is special, else inside double quotes, with
// backslashes before the closing quote doubled. A word holding ", % or !
// is refused with an error naming the character, never printed wrong.
func QuoteCmd(s string) (string, error) {
	if i := strings.IndexAny(s, cmdUnsafe); i >= 0 {
		return "", fmt.Errorf("%q holds %q, which %w inside double quotes", s, s[i], ErrCmdUnsafe)
	}
	if s != "" && !strings.ContainsAny(s, cmdSpecial) {
		return s, nil
	}
	trail := len(s) - len(strings.TrimRight(s, `\`))
	return `"` + s + strings.Repeat(`\`, trail) + `"`, nil
}

// msvcrtQuote quotes s as one argument the way the Microsoft C runtime (and
// node, and Go's os/exec) splits a Windows command line: inside double
// quotes, a " is written \", and backslashes that end up before a " are
// doubled.
func msvcrtQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for _, r := range s {
		switch r {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteRune(r)
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}

// cmdMeta are the characters cmd.exe acts on outside double quotes. A JSON
// argument is full of " so cmd's idea of what is quoted flips through it;
// with any of these in it, no quoting is safe.
const cmdMeta = `&|<>^%!()`

// quoteWindowsJSON quotes a JSON document as one argument for a Windows
// program started through a .cmd shim (code.cmd), from cmd.exe or from
// PowerShell (which passes arguments to a batch file the legacy way,
// verbatim, in 5.1 and 7.x alike). The shim hands the line to cmd.exe
// once more, so a document holding a cmd.exe metacharacter is refused.
func quoteWindowsJSON(doc string) (string, error) {
	if i := strings.IndexAny(doc, cmdMeta); i >= 0 {
		return "", fmt.Errorf("the JSON holds %q, which cmd.exe (behind code.cmd) would act on", doc[i])
	}
	return msvcrtQuote(doc), nil
}

// Line joins words into one command line for sh. The first word is the
// command; words are quoted with QuotePosix, QuotePowerShell or QuoteCmd.
// In PowerShell a quoted command needs the call operator &, or the line
// would be a string expression that runs nothing.
func Line(sh Shell, words ...string) (string, error) {
	if len(words) == 0 {
		return "", errors.New("setup: empty command line")
	}
	for _, w := range words {
		if err := printable(w); err != nil {
			return "", err
		}
	}
	q := make([]string, len(words))
	for i, w := range words {
		switch sh {
		case Posix:
			q[i] = QuotePosix(w)
		case PowerShell:
			q[i] = QuotePowerShell(w)
		case Cmd:
			s, err := QuoteCmd(w)
			if err != nil {
				return "", err
			}
			q[i] = s
		default:
			return "", fmt.Errorf("unknown shell %q; known: %s, %s, %s", sh, Posix, PowerShell, Cmd)
		}
	}
	line := strings.Join(q, " ")
	if sh == PowerShell && q[0] != words[0] {
		line = "& " + line
	}
	return line, nil
}

// printable refuses what no line can show: invalid UTF-8 (JSON would turn
// it into U+FFFD, another path) and every character of the one rule
// (security/unprintable: a newline would split the line, a control would
// reach the terminal raw, a bidi or zero-width character would show the
// line as something it is not).
func printable(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", unprintable.Quote(s))
	}
	for _, r := range s {
		if why := unprintable.Describe(r); why != "" {
			return fmt.Errorf("%s holds %s", unprintable.Quote(s), why)
		}
	}
	return nil
}
