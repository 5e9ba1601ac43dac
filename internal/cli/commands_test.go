package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// No two commands may disagree on whether a flag takes a value: the parser
// has one table.
func TestFlagsAgree(t *testing.T) {
	takes := map[string]string{}
	for _, c := range commands {
		for _, f := range c.Flags {
			v := f.Value != ""
			if prev, ok := takes[f.Name]; ok && (prev != "") != v {
				t.Errorf("--%s takes a value in one command and not in %q", f.Name, c.Name)
			}
			takes[f.Name] = f.Value
		}
	}
}

// Every command and flag is documented, and every flag is in its synopsis.
func TestDefinitionsComplete(t *testing.T) {
	for _, c := range commands {
		if c.Summary == "" || c.Long == "" || len(c.Synopsis) == 0 || len(c.Exits) == 0 {
			t.Errorf("command %q: summary, long text, synopsis or exit codes missing", c.Name)
		}
		syn := strings.Join(c.Synopsis, " ")
		for _, f := range c.Flags {
			if strings.HasPrefix(f.Help, "the same as") {
				continue // another name, documented as such
			}
			if f.Help == "" {
				t.Errorf("%q --%s: no help", c.Name, f.Name)
			}
			if !strings.Contains(syn, "--"+f.Name+" ") && !strings.Contains(syn, "--"+f.Name+"]") {
				t.Errorf("%q: synopsis %q does not name --%s", c.Name, syn, f.Name)
			}
		}
	}
}

func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	file := filepath.Join(t.TempDir(), "c.bash")
	if err := os.WriteFile(file, []byte(bashCompletion()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", file).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	tests := []struct {
		words string // the last one is completed
		want  string
	}{
		{"stitchslop-bridge ca", "call"},
		{"stitchslop-bridge --config-dir x st", "status"},
		{"stitchslop-bridge call --ti", "--timeout"},
		{"stitchslop-bridge --port 8787 call --ra", "--raw"},
		{"stitchslop-bridge completion fi", "fish"},
		{"stitchslop-bridge setup claude-d", "claude-desktop"},
		{"stitchslop-bridge setup --shell pow", "powershell"},
		{"stitchslop-bridge help unp", "unpair"},
		{"stitchslop-bridge --la", "--lazy"},
		{"stitchslop-bridge status --ti", ""},
	}
	for _, tt := range tests {
		words := strings.Fields(tt.words)
		script := "source " + file + "\nCOMP_WORDS=(" + strings.Join(words, " ") + ")\nCOMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "\n_stitchslop_bridge\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command("bash", "-c", script).CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != tt.want {
			t.Errorf("complete %q = %q (%v), want %q", tt.words, got, err, tt.want)
		}
	}
}

// zsh and fish check their script's syntax when installed; without them,
// the scripts are held to the commands they must name.
func TestZshFishPowerShellCompletion(t *testing.T) {
	for _, tt := range []struct {
		shell, script string
		check         []string
	}{
		{"zsh", zshCompletion(), []string{"zsh", "-n"}},
		{"fish", fishCompletion(), []string{"fish", "-n"}},
		{"powershell", powershellCompletion(), []string{"pwsh", "-NoProfile", "-Command", "$null = [scriptblock]::Create((Get-Content -Raw $args[0]))"}},
	} {
		t.Run(tt.shell, func(t *testing.T) {
			for _, c := range commands[1:] {
				if !strings.Contains(tt.script, c.Name) {
					t.Errorf("%s completion does not name %q", tt.shell, c.Name)
				}
			}
			for _, f := range []string{"timeout", "config-dir", "shell"} {
				if !strings.Contains(tt.script, f) {
					t.Errorf("%s completion does not name --%s", tt.shell, f)
				}
			}
			if _, err := exec.LookPath(tt.check[0]); err != nil {
				t.Logf("%s is not installed: its syntax is not checked", tt.check[0])
				return
			}
			file := filepath.Join(t.TempDir(), "c")
			os.WriteFile(file, []byte(tt.script), 0o600)
			if out, err := exec.Command(tt.check[0], append(tt.check[1:], file)...).CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", strings.Join(tt.check, " "), err, out)
			}
		})
	}
}

func TestFishCompletes(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish is not installed")
	}
	file := filepath.Join(t.TempDir(), "c.fish")
	os.WriteFile(file, []byte(fishCompletion()), 0o600)
	out, err := exec.Command("fish", "--no-config", "-c", "source "+file+"; complete -C 'stitchslop-bridge ca'").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "call\t") {
		t.Errorf("fish: complete -C 'stitchslop-bridge ca' = %q (%v), want call first", out, err)
	}
}

func TestManPage(t *testing.T) {
	page := manPage()
	if page != manPage() {
		t.Fatal("manPage() differs between two calls")
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed (apt-get install groff-base): the page is not rendered")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww")
	cmd.Stdin = strings.NewReader(page)
	var out, warn bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &warn
	if err := cmd.Run(); err != nil || warn.Len() > 0 {
		t.Fatalf("groff -man: %v\n%s", err, warn.String())
	}
	text := stripOverstrike(out.String())
	flat := strings.Join(strings.Fields(text), " ")
	for _, want := range []string{"EXIT STATUS", "ENVIRONMENT", "STITCHSLOP_TOKEN", "STITCHSLOP_ORIGIN", "FILES", "~/.stitchslop", "--takeover"} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered man page does not contain %q", want)
		}
	}
	// Every verb has its own subsection: a heading line of its name.
	headings := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		headings[strings.TrimSpace(l)] = true
	}
	for _, c := range commands[1:] {
		if !headings[c.Name] || !strings.Contains(flat, "stitchslop-bridge "+c.Synopsis[0]) {
			t.Errorf("rendered man page has no section for %q", c.Name)
		}
	}
}

// stripOverstrike removes the backspace bold and underline of grotty and
// turns its typographic hyphens back into ASCII.
func stripOverstrike(s string) string {
	var b []rune
	for _, r := range s {
		if r == '\b' {
			if len(b) > 0 {
				b = b[:len(b)-1]
			}
			continue
		}
		b = append(b, r)
	}
	return strings.NewReplacer("\u2010", "-", "\u2212", "-", "\x1b[1m", "", "\x1b[0m", "", "\x1b[4m", "", "\x1b[24m", "", "\x1b[22m", "").Replace(string(b))
}

// lockedBuffer is a terminal stand-in that says when it is written to.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.b.Write(p)
	l.mu.Unlock()
	l.writes <- struct{}{}
	return n, err
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// fakeClock makes progress tick when the test says.
func fakeClock(t *testing.T) chan time.Time {
	ticks := make(chan time.Time)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := progressClock
	progressClock.now = func() time.Time { return start }
	progressClock.tick = func() (<-chan time.Time, func()) { return ticks, func() {} }
	t.Cleanup(func() { progressClock = old })
	return ticks
}

func TestProgressOnATerminal(t *testing.T) {
	old := isTerminal
	t.Cleanup(func() { isTerminal = old })
	isTerminal = func(w any) bool { return true }
	ticks := fakeClock(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := &lockedBuffer{writes: make(chan struct{}, 10)}
	stop := startProgress(w, "waiting for a tab to attach")
	ticks <- start.Add(time.Second)
	<-w.writes
	if got, want := w.String(), "\rstitchslop-bridge: waiting for a tab to attach… 1 s"; got != want {
		t.Errorf("after 1 s: %q, want %q", got, want)
	}
	ticks <- start.Add(12 * time.Second)
	<-w.writes
	stop()
	want := "\rstitchslop-bridge: waiting for a tab to attach… 1 s" +
		"\rstitchslop-bridge: waiting for a tab to attach… 12 s" +
		"\r" + strings.Repeat(" ", 52) + "\r"
	if got := w.String(); got != want {
		t.Errorf("progress wrote %q, want %q", got, want)
	}
	stop() // a second stop is harmless
}

func TestProgressNotOnAPipe(t *testing.T) {
	old := isTerminal
	t.Cleanup(func() { isTerminal = old })
	isTerminal = func(w any) bool { return false }
	fakeClock(t)
	var w bytes.Buffer
	stop := startProgress(&w, "waiting")
	stop()
	if w.Len() != 0 {
		t.Errorf("progress on a pipe wrote %q, want nothing", w.String())
	}
}

// call's help states the limits security/files enforces, with the numbers
// it enforces: a help that drifts from them fails here.
func TestCallHelpStatesTheFileLimits(t *testing.T) {
	help := strings.Join(strings.Fields(helpFor(lookup("call"))), " ")
	for _, want := range []string{
		fmt.Sprintf("--save writes at most %d files of one reply", files.MaxSaved),
		fmt.Sprintf("each file past the %d", files.MaxSaved), // "32nd"
		fmt.Sprintf("(at most %d)", files.MaxSaved),
		fmt.Sprintf("design files of at most %d MB", files.MaxIn>>20),
	} {
		if !strings.Contains(help, want) {
			t.Errorf("helpFor(call) does not say %q", want)
		}
	}
}
