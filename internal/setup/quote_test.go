package setup

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// nastyPaths are binary locations a quoter must carry through unchanged.
var nastyPaths = []string{
	"/usr/local/bin/stitchslop-bridge",
	"/Users/Jo Smith/bin/stitchslop-bridge",
	"/home/o'brien/bin/stitchslop-bridge",
	`/tmp/say "hi"/stitchslop-bridge`,
	"/tmp/$HOME/${x}/stitchslop-bridge",
	"/tmp/`id`/$(id)/stitchslop-bridge",
	"/tmp/back\\slash/stitchslop-bridge",
	"/tmp/glob*?[a]/~x/stitchslop-bridge",
	"/tmp/semi;amp&pipe|lt<gt>/stitchslop-bridge",
	"/tmp/ünïcødé ✓ 日本/stitchslop-bridge",
	"/tmp/'; rm -rf ~; '/stitchslop-bridge",
	"/tmp/!bang #hash %pct/stitchslop-bridge",
	"/tmp/\u2018curly\u2019/stitchslop-bridge",
	"",
	"-",
	"'",
	"''",
}

func TestQuotePosix(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/local/bin/stitchslop-bridge", "/usr/local/bin/stitchslop-bridge"},
		{"--lazy", "--lazy"},
		{"https://www.stitchslop.com", "https://www.stitchslop.com"},
		{"", "''"},
		{"/a b/c", "'/a b/c'"},
		{"/o'brien", `'/o'\''brien'`},
		{"$HOME", "'$HOME'"},
		{"`id`", "'`id`'"},
		{`a"b`, `'a"b'`},
		{"ü", "'ü'"},
		{"STITCHSLOP_TOKEN=<paste the token here>", "'STITCHSLOP_TOKEN=<paste the token here>'"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := QuotePosix(tt.in); got != tt.want {
				t.Errorf("QuotePosix(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// shellWords runs printf '%s\0' followed by line in shell, and returns the
// words printf received: what the shell made of line.
func shellWords(t *testing.T, shell, line string) []string {
	t.Helper()
	path := needShell(t, shell)
	cmd := exec.Command(path, "-c", `printf '%s\0' `+line)
	cmd.Env = append(os.Environ(), "HOME=/should-not-expand", "x=should-not-expand")
	cmd.Dir = t.TempDir() // globs, if unquoted, would match nothing here anyway
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -c %q: %v: %s", shell, line, err, stderr.String())
	}
	words := strings.Split(string(out), "\x00")
	return words[:len(words)-1]
}

// needShell is shell's path. The POSIX shells are needed everywhere
// (ci.yml's Windows job has Git's bash); only a Wine prefix, which has
// none, skips, saying so.
func needShell(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil && underWine() {
		t.Skipf("%s is not in this Wine prefix (Wine runs no POSIX shell for Windows): %v", shell, err)
	}
	if err != nil {
		t.Fatalf("%s is needed to check posix quoting: %v", shell, err)
	}
	return path
}

// syntaxOK runs shell -n -c line: the line parses.
func syntaxOK(t *testing.T, shell, line string) {
	t.Helper()
	out, err := exec.Command(needShell(t, shell), "-n", "-c", "--", line).CombinedOutput()
	if err != nil {
		t.Errorf("%s -n -c %q: %v: %s", shell, line, err, out)
	}
}

func TestQuotePosixRoundTripsThroughShells(t *testing.T) {
	for _, shell := range []string{"bash", "sh"} {
		for _, p := range nastyPaths {
			t.Run(shell+"/"+p, func(t *testing.T) {
				q := QuotePosix(p)
				syntaxOK(t, shell, q)
				got := shellWords(t, shell, q)
				if len(got) != 1 || got[0] != p {
					t.Errorf("%s made %q of QuotePosix(%q) = %q, want [%q]", shell, got, p, q, p)
				}
			})
		}
	}
}

func TestQuotePowerShell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"claude", "claude"},
		{"--lazy", "--lazy"},
		{"--", "'--'"},
		{"--%", "'--%'"},
		{"", "''"},
		{`C:\Program Files\Stitch Slop\stitchslop-bridge.exe`, `'C:\Program Files\Stitch Slop\stitchslop-bridge.exe'`},
		{`C:\tools\stitchslop-bridge.exe`, `C:\tools\stitchslop-bridge.exe`},
		{`C:\Users\O'Brien\bin\s.exe`, `'C:\Users\O''Brien\bin\s.exe'`},
		{"C:\\x\u2019y\\s.exe", "'C:\\x\u2019\u2019y\\s.exe'"},
		{`C:\say "hi"\s.exe`, `'C:\say "hi"\s.exe'`},
		{`C:\$env:x\s.exe`, `'C:\$env:x\s.exe'`},
		{"C:\\`n\\s.exe", "'C:\\`n\\s.exe'"},
		{"STITCHSLOP_TOKEN=<paste the token here>", "'STITCHSLOP_TOKEN=<paste the token here>'"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := QuotePowerShell(tt.in); got != tt.want {
				t.Errorf("QuotePowerShell(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestQuoteCmd(t *testing.T) {
	tests := []struct {
		in, want string
		bad      byte // the character the error must name, 0 for none
	}{
		{in: "claude", want: "claude"},
		{in: "--", want: "--"},
		{in: "", want: `""`},
		{in: `C:\Program Files\Stitch Slop\stitchslop-bridge.exe`, want: `"C:\Program Files\Stitch Slop\stitchslop-bridge.exe"`},
		{in: `C:\tools\stitchslop-bridge.exe`, want: `C:\tools\stitchslop-bridge.exe`},
		{in: `C:\Users\O'Brien\s.exe`, want: `C:\Users\O'Brien\s.exe`},
		{in: `C:\a&b\s.exe`, want: `"C:\a&b\s.exe"`},
		{in: `C:\Program Files (x86)\s.exe`, want: `"C:\Program Files (x86)\s.exe"`},
		{in: `C:\dir with space\`, want: `"C:\dir with space\\"`},
		{in: "STITCHSLOP_TOKEN=<paste the token here>", want: `"STITCHSLOP_TOKEN=<paste the token here>"`},
		{in: `C:\say "hi"\s.exe`, bad: '"'},
		{in: `C:\100%\s.exe`, bad: '%'},
		{in: `C:\%PATH%\s.exe`, bad: '%'},
		{in: `C:\wow!\s.exe`, bad: '!'},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := QuoteCmd(tt.in)
			if tt.bad != 0 {
				if err == nil || !errors.Is(err, ErrCmdUnsafe) || !strings.Contains(err.Error(), string(tt.bad)) {
					t.Errorf("QuoteCmd(%q) = %q, %v, want an error naming %q", tt.in, got, err, tt.bad)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("QuoteCmd(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
			if w := splitMSVCRT(got); len(w) != 1 || w[0] != tt.in {
				t.Errorf("splitMSVCRT(QuoteCmd(%q)) = %q, want [%q]", tt.in, w, tt.in)
			}
		})
	}
}

func TestMSVCRTQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"b"}`, `"{\"a\":\"b\"}"`},
		{`a\b`, `"a\b"`},
		{`a\"b`, `"a\\\"b"`},
		{`a\`, `"a\\"`},
		{``, `""`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := msvcrtQuote(tt.in); got != tt.want {
				t.Errorf("msvcrtQuote(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if w := splitMSVCRT(tt.want); len(w) != 1 || w[0] != tt.in {
				t.Errorf("splitMSVCRT(%q) = %q, want [%q]", tt.want, w, tt.in)
			}
		})
	}
}

func TestLinePowerShellCallOperator(t *testing.T) {
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{`C:\Program Files\s.exe`, "status"}, `& 'C:\Program Files\s.exe' status`},
		{[]string{`C:\tools\s.exe`, "status"}, `C:\tools\s.exe status`},
		{[]string{"claude", "mcp", "add", "stitchslop", "--", `C:\a b\s.exe`, "--lazy"}, `claude mcp add stitchslop '--' 'C:\a b\s.exe' --lazy`},
	}
	for _, tt := range tests {
		got, err := Line(PowerShell, tt.words...)
		if err != nil || got != tt.want {
			t.Errorf("Line(PowerShell, %q) = %q, %v, want %q", tt.words, got, err, tt.want)
		}
	}
}

func TestLineRefusesWhatNoLineCanShow(t *testing.T) {
	for _, w := range []string{"/tmp/a\nb", "/tmp/a\x1b[31m", "/tmp/\xff", "/tmp/\u0085"} {
		for _, sh := range []Shell{Posix, PowerShell, Cmd} {
			if got, err := Line(sh, w, "status"); err == nil {
				t.Errorf("Line(%s, %q) = %q, want an error", sh, w, got)
			}
		}
	}
	if got, err := Line("fish", "x"); err == nil {
		t.Errorf("Line(fish, x) = %q, want an error", got)
	}
}

// TestPowerShellRunsQuotedWords runs the quoted words through pwsh when it
// is installed (it is not on most Linux machines; the table tests above
// hold the rules either way).
func TestPowerShellRunsQuotedWords(t *testing.T) {
	pwsh, err := exec.LookPath("pwsh")
	if err != nil {
		t.Skip("pwsh not installed")
	}
	for _, p := range nastyPaths {
		script := `& { foreach ($a in $args) { [Console]::Out.Write($a + [char]0) } } ` + QuotePowerShell(p)
		out, err := exec.Command(pwsh, "-NoProfile", "-NonInteractive", "-Command", script).Output()
		if err != nil {
			t.Fatalf("pwsh %q: %v", script, err)
		}
		if got := strings.TrimSuffix(string(out), "\x00"); got != p {
			t.Errorf("pwsh made %q of QuotePowerShell(%q), want %q", got, p, p)
		}
	}
}

// splitPosixWord is a reference reader for one POSIX shell word made only
// of bare safe characters, single-quoted strings and \' escapes: what
// QuotePosix writes. ok is false for anything else (an unquoted special
// character, an unterminated quote).
func splitPosixWord(s string) (word string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !posixSafe(r) {
				return "", false
			}
			b.WriteRune(r)
			i += n
		}
	}
	return b.String(), s != ""
}

// splitPowerShellWord is a reference reader for one PowerShell argument
// that is bare safe characters or one single-quoted string.
func splitPowerShellWord(s string) (word string, ok bool) {
	if s == "" {
		return "", false
	}
	if !strings.ContainsRune(psSingleQuotes, []rune(s)[0]) {
		return s, strings.IndexFunc(s, func(r rune) bool { return !psSafe(r) }) < 0
	}
	rs := []rune(s)
	if len(rs) < 2 || !strings.ContainsRune(psSingleQuotes, rs[len(rs)-1]) {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(rs)-1; i++ {
		if strings.ContainsRune(psSingleQuotes, rs[i]) {
			if i+1 >= len(rs)-1 || rs[i+1] != rs[i] {
				return "", false // a lone quote would end the string early
			}
			i++
		}
		b.WriteRune(rs[i])
	}
	return b.String(), true
}

// splitMSVCRT is a reference splitter for a Windows command line tail, by
// the Microsoft C runtime rules (2008 and later): 2n backslashes before a "
// are n backslashes and a quote toggle, 2n+1 are n backslashes and a
// literal "; "" inside quotes is a literal ".
func splitMSVCRT(s string) []string {
	var words []string
	var b strings.Builder
	in, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				b.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					b.WriteByte('"')
				} else {
					in = !in
				}
			} else {
				b.WriteString(strings.Repeat(`\`, n))
				i--
			}
			have = true
		case c == '"':
			if in && i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
			} else {
				in = !in
			}
			have = true
		case (c == ' ' || c == '\t') && !in:
			if have {
				words = append(words, b.String())
				b.Reset()
				have = false
			}
		default:
			b.WriteByte(c)
			have = true
		}
	}
	if have {
		words = append(words, b.String())
	}
	return words
}

func FuzzQuote(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzQuote", "*"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed corpus in testdata/fuzz/FuzzQuote (%v): the fuzz target would start blind", err)
	}
	for _, p := range nastyPaths {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		if q := QuotePosix(s); s != "" {
			if got, ok := splitPosixWord(q); !ok || got != s {
				t.Errorf("splitPosixWord(QuotePosix(%q) = %q) = %q, %v, want %q", s, q, got, ok, s)
			}
		}
		if q := QuotePowerShell(s); s != "" {
			if got, ok := splitPowerShellWord(q); !ok || got != s {
				t.Errorf("splitPowerShellWord(QuotePowerShell(%q) = %q) = %q, %v, want %q", s, q, got, ok, s)
			}
		}
		if q, err := QuoteCmd(s); err == nil {
			if strings.ContainsAny(q[1:max(1, len(q)-1)], cmdUnsafe) {
				t.Errorf("QuoteCmd(%q) = %q, holding a character cmd.exe cannot carry", s, q)
			}
			if got := splitMSVCRT(q); len(got) != 1 || got[0] != s {
				t.Errorf("splitMSVCRT(QuoteCmd(%q) = %q) = %q, want [%q]", s, q, got, s)
			}
		} else if !strings.ContainsAny(s, cmdUnsafe) {
			t.Errorf("QuoteCmd(%q) = %v, want no error: it holds none of %q", s, err, cmdUnsafe)
		}
		q := msvcrtQuote(s)
		if got := splitMSVCRT(q); len(got) != 1 || got[0] != s {
			t.Errorf("splitMSVCRT(msvcrtQuote(%q) = %q) = %q, want [%q]", s, q, got, s)
		}
		if tq := tomlString(s); !strings.HasPrefix(tq, `"`) || strings.ContainsAny(tq[1:len(tq)-1], "\n\r") {
			t.Errorf("tomlString(%q) = %q, not one basic string on one line", s, tq)
		}
	})
}

// TestGoRunBinary: the binaries `go run` builds in its work directory or
// runs from the build cache are recognised; installed ones are not.
func TestGoRunBinary(t *testing.T) {
	t.Setenv("GOCACHE", "/home/u/cache/gocache")
	for exe, want := range map[string]bool{
		"/tmp/go-build4279710946/b001/exe/stitchslop-bridge":                      true,
		"/var/folders/x/T/go-build123/b001/exe/stitchslop-bridge":                 true,
		`C:\Users\u\AppData\Local\Temp\go-build99\b001\exe\stitchslop-bridge.exe`: true,
		"/home/u/.cache/go-build/ab/abcdef0123-d/stitchslop-bridge":               true,
		`C:\Users\u\AppData\Local\go-build\ab\abcdef-d\stitchslop-bridge.exe`:     true,
		"/home/u/cache/gocache/12/34/stitchslop-bridge":                           true,
		"/usr/local/bin/stitchslop-bridge":                                        false,
		"/home/u/go/bin/stitchslop-bridge":                                        false,
		"/home/u/src/stitchslop-bridge/stitchslop-bridge":                         false,
		`C:\Users\u\scoop\apps\stitchslop-bridge\current\stitchslop-bridge.exe`:   false,
		"/opt/homebrew/Caskroom/stitchslop-bridge/1.2.3/stitchslop-bridge":        false,
		"/tmp/go-build-notes/stitchslop-bridge-is-not-in-exe":                     false,
		"/home/u/cache/gocache-other/stitchslop-bridge":                           false,
	} {
		if got := GoRunBinary(exe); got != want {
			t.Errorf("GoRunBinary(%q) = %v, want %v", exe, got, want)
		}
	}
}

// TestLastingBinary: a go run binary is replaced by one built into the
// repository around the working directory (or installed), with the
// command that builds it; a lasting binary is not replaced.
func TestLastingBinary(t *testing.T) {
	t.Setenv("GOCACHE", "")
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module github.com/stitchslop/stitchslop-bridge\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "internal", "demo")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := "/tmp/go-build4279710946/b001/exe/stitchslop-bridge"
	l, ok := LastingBinary(tmp, sub)
	bin := filepath.Join(repo, "stitchslop-bridge")
	if want := []string{"go", "-C", repo, "build", "-o", bin, "./cmd/stitchslop-bridge"}; !ok || l.Path != bin || !slices.Equal(l.Build, want) {
		t.Errorf("LastingBinary(go run binary, in the repository) = %q, %v; want %s built by %q", l, ok, bin, want)
	}
	t.Setenv("GOBIN", "/home/u/gobin")
	l, ok = LastingBinary(tmp, t.TempDir())
	if !ok || l.Path != filepath.Join("/home/u/gobin", "stitchslop-bridge") || l.Build[1] != "install" {
		t.Errorf("LastingBinary(go run binary, outside the repository) = %q, %v; want the binary go install writes to GOBIN", l, ok)
	}
	t.Setenv("GOBIN", "")
	t.Setenv("GOPATH", "/home/u/gp")
	if l, _ = LastingBinary(tmp, t.TempDir()); l.Path != filepath.Join("/home/u/gp", "bin", "stitchslop-bridge") {
		t.Errorf("LastingBinary outside the repository with GOPATH=/home/u/gp = %q, want $GOPATH/bin", l.Path)
	}
	if l, ok = LastingBinary("/usr/local/bin/stitchslop-bridge", sub); ok {
		t.Errorf("LastingBinary(installed binary) = %q, true; want it kept", l)
	}
}
