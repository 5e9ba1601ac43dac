package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The command line as its user sees it: each testdata/script/*.txtar runs
// stitchslop-bridge (this test binary, re-run as Main) and asserts its
// stdout, stderr and exit status.
//
// The scripts are written in testscript's language (github.com/rogpeppe/
// go-internal/testscript), the subset run below: exec, ! exec, exits N,
// stdout, stderr, ! stdout, ! stderr, cmp, cp, and txtar file sections.
// testscript itself needs golang.org/x/tools in go.mod, which this module
// does not yet require; once it does, TestScript can hand the same files
// to testscript.Run.

// scriptMainEnv, set in a child's environment, makes this test binary run
// Main instead of the tests.
const scriptMainEnv = "STITCHSLOP_CLI_SCRIPT_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(scriptMainEnv) == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestScript(t *testing.T) {
	files, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata/script (%v)", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s := &script{t: t, self: self, work: t.TempDir()}
			s.run(string(data))
		})
	}
}

// script is one run of a script.
type script struct {
	t              *testing.T
	self, work     string
	stdout, stderr string
	line           int
}

func (s *script) fatalf(format string, v ...any) {
	s.t.Helper()
	s.t.Fatalf("line %d: "+format, append([]any{s.line}, v...)...)
}

func (s *script) run(data string) {
	s.t.Helper()
	lines := strings.Split(data, "\n")
	// The txtar files: "-- name --" and what follows, up to the next.
	body := len(lines)
	for i, l := range lines {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") {
			if body == len(lines) {
				body = i
			}
		}
	}
	var name string
	var content []string
	flush := func() {
		if name != "" {
			p := filepath.Join(s.work, name)
			os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, []byte(strings.Join(content, "\n")), 0o600); err != nil {
				s.t.Fatal(err)
			}
		}
	}
	for _, l := range lines[body:] {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") {
			flush()
			name, content = strings.TrimSuffix(strings.TrimPrefix(l, "-- "), " --"), nil
			continue
		}
		content = append(content, l)
	}
	flush()
	for i, l := range lines[:body] {
		s.line = i + 1
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		s.do(s.words(l))
	}
}

// words splits a script line as testscript does: on spaces, with '...'
// quoting (” is a quote inside) and $WORK expanded outside quotes.
func (s *script) words(l string) []string {
	var ws []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quoted && c == '\'' && i+1 < len(l) && l[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case c == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (c == ' ' || c == '\t'):
			if inWord {
				ws = append(ws, cur.String())
				cur.Reset()
				inWord = false
			}
		case !quoted && strings.HasPrefix(l[i:], "$WORK"):
			cur.WriteString(s.work)
			i += len("$WORK") - 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		s.fatalf("unterminated quote")
	}
	if inWord {
		ws = append(ws, cur.String())
	}
	return ws
}

func (s *script) do(w []string) {
	s.t.Helper()
	neg := w[0] == "!"
	if neg {
		w = w[1:]
	}
	switch {
	case w[0] == "exec" && len(w) > 1:
		code := s.exec(w[1], w[2:])
		if neg != (code != 0) {
			s.fatalf("%s exited %d; stderr:\n%s", strings.Join(w[1:], " "), code, s.stderr)
		}
	case w[0] == "exits" && !neg && len(w) > 2:
		want, err := strconv.Atoi(w[1])
		if err != nil {
			s.fatalf("exits: %q is not a status", w[1])
		}
		if code := s.exec(w[2], w[3:]); code != want {
			s.fatalf("%s exited %d, want %d; stdout:\n%s\nstderr:\n%s", strings.Join(w[2:], " "), code, want, s.stdout, s.stderr)
		}
	case (w[0] == "stdout" || w[0] == "stderr") && len(w) == 2:
		got := s.stdout
		if w[0] == "stderr" {
			got = s.stderr
		}
		re, err := regexp.Compile("(?m)" + w[1])
		if err != nil {
			s.fatalf("%v", err)
		}
		if re.MatchString(got) == neg {
			s.fatalf("%s %s: got %s:\n%s", map[bool]string{true: "!", false: ""}[neg], w[1], w[0], got)
		}
	case (w[0] == "cmp" || w[0] == "cp") && !neg && len(w) == 3 && (w[1] == "stdout" || w[1] == "stderr"):
		got := s.stdout
		if w[1] == "stderr" {
			got = s.stderr
		}
		p := filepath.Join(s.work, w[2])
		if w[0] == "cp" {
			if err := os.WriteFile(p, []byte(got), 0o600); err != nil {
				s.fatalf("%v", err)
			}
			return
		}
		want, err := os.ReadFile(p)
		if err != nil {
			s.fatalf("%v", err)
		}
		if got != string(want) {
			s.fatalf("%s differs from %s:\n%s\nwant:\n%s", w[1], w[2], got, want)
		}
	default:
		s.fatalf("unknown command %q", strings.Join(w, " "))
	}
}

// exec runs prog in the script's directory and returns its exit status.
func (s *script) exec(prog string, args []string) int {
	s.t.Helper()
	if prog == "stitchslop-bridge" {
		prog = s.self
	}
	cmd := exec.Command(prog, args...)
	cmd.Dir = s.work
	cmd.Env = []string{scriptMainEnv + "=1", "HOME=" + filepath.Join(s.work, "home"), "PATH=" + os.Getenv("PATH"), "WORK=" + s.work}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	s.stdout, s.stderr = so.String(), se.String()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	s.fatalf("%s: %v", prog, err)
	return -1
}
