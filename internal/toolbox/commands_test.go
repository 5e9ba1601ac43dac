package toolbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/cli"
)

// The shell completions and manual pages of both programs, which
// stitchslop makes.

func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	file := filepath.Join(t.TempDir(), "c.bash")
	if err := os.WriteFile(file, []byte(bashCompletion(cli.Bridge)+bashCompletion(Program)), 0o600); err != nil {
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
		{"stitchslop-bridge help unp", "unpair"},
		{"stitchslop-bridge --la", "--lazy"},
		{"stitchslop-bridge status --ti", ""},
		{"stitchslop completion fi", "fish"},
		{"stitchslop setup claude-d", "claude-desktop"},
		{"stitchslop setup --shell pow", "powershell"},
		{"stitchslop man stitchslop-b", "stitchslop-bridge"},
		{"stitchslop de", "demo"},
		{"stitchslop help lis", "listen"},
	}
	for _, tt := range tests {
		words := strings.Fields(tt.words)
		script := "source " + file + "\nCOMP_WORDS=(" + strings.Join(words, " ") + ")\nCOMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "\n_" + strings.ReplaceAll(words[0], "-", "_") + "\necho \"${COMPREPLY[*]}\"\n"
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
		p             *cli.Program
		flags         []string
	}{
		{"zsh", zshCompletion(cli.Bridge), []string{"zsh", "-n"}, cli.Bridge, []string{"timeout", "config-dir"}},
		{"fish", fishCompletion(cli.Bridge), []string{"fish", "-n"}, cli.Bridge, []string{"timeout", "config-dir"}},
		{"powershell", powershellCompletion(cli.Bridge), []string{"pwsh", "-NoProfile", "-Command", "$null = [scriptblock]::Create((Get-Content -Raw $args[0]))"}, cli.Bridge, []string{"timeout", "config-dir"}},
		{"zsh", zshCompletion(Program), []string{"zsh", "-n"}, Program, []string{"owner", "config-dir", "shell"}},
		{"fish", fishCompletion(Program), []string{"fish", "-n"}, Program, []string{"owner", "config-dir", "shell"}},
		{"powershell", powershellCompletion(Program), []string{"pwsh", "-NoProfile", "-Command", "$null = [scriptblock]::Create((Get-Content -Raw $args[0]))"}, Program, []string{"owner", "config-dir", "shell"}},
	} {
		t.Run(tt.shell+" "+tt.p.Name, func(t *testing.T) {
			for _, c := range tt.p.Commands[1:] {
				if !strings.Contains(tt.script, c.Name) {
					t.Errorf("%s completion does not name %q", tt.shell, c.Name)
				}
			}
			for _, f := range tt.flags {
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
	os.WriteFile(file, []byte(fishCompletion(cli.Bridge)), 0o600)
	out, err := exec.Command("fish", "--no-config", "-c", "source "+file+"; complete -C 'stitchslop-bridge ca'").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "call\t") {
		t.Errorf("fish: complete -C 'stitchslop-bridge ca' = %q (%v), want call first", out, err)
	}
}

func TestManPage(t *testing.T) {
	for _, tt := range []struct {
		p    *cli.Program
		want []string
	}{
		{cli.Bridge, []string{"EXIT STATUS", "ENVIRONMENT", "STITCHSLOP_TOKEN", "STITCHSLOP_ORIGIN", "FILES", "~/.stitchslop", "--takeover"}},
		{Program, []string{"EXIT STATUS", "FILES", "~/.stitchslop", "--owner", "stitchslop-bridge(1)"}},
	} {
		t.Run(tt.p.Name, func(t *testing.T) { testManPage(t, tt.p, tt.want) })
	}
}

func testManPage(t *testing.T, p *cli.Program, want []string) {
	page := manPage(p)
	if page != manPage(p) {
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
	for _, want := range want {
		if !strings.Contains(text, want) {
			t.Errorf("rendered man page does not contain %q", want)
		}
	}
	// Every verb has its own subsection: a heading line of its name.
	headings := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		headings[strings.TrimSpace(l)] = true
	}
	for _, c := range p.Commands[1:] {
		if !headings[c.Name] || !strings.Contains(flat, p.Name+" "+c.Synopsis[0]) {
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
