package cli

import (
	"strings"
	"testing"
)

// fishWords splits line as fish reads a command line of words, quotes and
// backslashes only (enough for what shellLine writes): inside '...' a
// backslash escapes a quote or a backslash; outside, any character; a ';'
// outside quotes ends the command (ended is true). It is the reading of
// fish, the shell of some of the users the line is printed for.
func fishWords(line string) (words []string, ended bool) {
	var w strings.Builder
	in, any := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case in && c == '\\' && i+1 < len(line) && (line[i+1] == '\'' || line[i+1] == '\\'):
			i++
			w.WriteByte(line[i])
		case c == '\'':
			in, any = !in, true
		case in:
			w.WriteByte(c)
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			any = true
		case c == ';':
			return words, true
		case c == ' ':
			if any || w.Len() > 0 {
				words = append(words, w.String())
			}
			w.Reset()
			any = false
		default:
			w.WriteByte(c)
			any = true
		}
	}
	if any || w.Len() > 0 {
		words = append(words, w.String())
	}
	return words, false
}

// TestSec_PairLineReadsTheSameInFish: the "run this instead" line of pair
// (and Main's "run it as") is pasted by people into their shell. A flag
// value ending in a backslash makes the POSIX quoting ('a\') read, in fish,
// as a quote escaped inside the string, so the quotes pair up differently
// and the next value's words run as commands: here `touch
// /tmp/pwned-by-pair-line`.
//
// Fails on main: shellLine (internal/cli/program.go) single-quotes for a
// POSIX shell only and lets a backslash through.
func TestSec_PairLineReadsTheSameInFish(t *testing.T) {
	a, err := parse([]string{"pair", "abc", "--origin", `x\`, "--port", "1; touch /tmp/pwned-by-pair-line #"})
	if err != nil {
		t.Fatal(err)
	}
	line := pairCommand(a)
	words, ended := fishWords(line)
	want := []string{"stitchslop-bridge", "pair", "--origin", `x\`, "--port", "1; touch /tmp/pwned-by-pair-line #"}
	if ended || strings.Join(words, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("pair's line %s reads in fish as %q (a command ends there: %v); want the words %q", line, words, ended, want)
	}
}
