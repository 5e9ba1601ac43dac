package setup

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/sites"
)

// Written from the brief, not from the package's constants.
const (
	wantPlaceholder = "<paste the token here>"
	wantTokenVar    = "STITCHSLOP_TOKEN"
)

func build(t *testing.T, o Options) []Plan {
	t.Helper()
	plans, err := Build(o)
	if err != nil {
		t.Fatalf("Build(%+v) = %v", o, err)
	}
	return plans
}

func TestBuildAnswersEveryClientInOrder(t *testing.T) {
	for _, names := range [][]string{nil, {}, {"all"}, {"claude", "all"}} {
		plans := build(t, Options{Binary: "/usr/bin/stitchslop-bridge", GOOS: "linux", Clients: names})
		var got []string
		for _, p := range plans {
			got = append(got, p.Client)
		}
		want := []string{"claude", "codex", "cursor", "vscode", "claude-desktop"}
		if !slices.Equal(got, want) {
			t.Errorf("Build(Clients: %q) answered %q, want %q", names, got, want)
		}
	}
	plans := build(t, Options{Binary: "/usr/bin/stitchslop-bridge", GOOS: "linux", Clients: []string{"cursor", "cursor", "claude"}})
	if len(plans) != 2 || plans[0].Client != "cursor" || plans[1].Client != "claude" {
		t.Errorf("Build(cursor, cursor, claude) = %+v, want cursor then claude", plans)
	}
}

func TestBuildRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string // in the error
	}{
		{"unknown client", Options{Binary: "/b", GOOS: "linux", Clients: []string{"emacs"}}, `unknown client "emacs"; known: claude, codex, cursor, vscode, claude-desktop, all`},
		{"unknown shell", Options{Binary: "/b", GOOS: "linux", Shells: []Shell{"fish"}}, `unknown shell "fish"`},
		{"relative binary", Options{Binary: "stitchslop-bridge", GOOS: "linux"}, "not absolute"},
		{"posix path on windows", Options{Binary: "/usr/bin/b", GOOS: "windows"}, "not absolute"},
		{"empty binary", Options{GOOS: "linux"}, "not absolute"},
		{"newline in binary", Options{Binary: "/tmp/a\nb", GOOS: "linux"}, "control character"},
		{"bad origin", Options{Binary: "/b", GOOS: "linux", Origin: "https://x.test/path"}, "origin"},
		{"cmd cannot carry the path", Options{Binary: `C:\100%\b.exe`, GOOS: "windows", Shells: []Shell{Cmd}, Clients: []string{"claude"}}, `no way to register with Claude Code: no cmd.exe line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plans, err := Build(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Build(%+v) = %d plans, %v, want an error containing %q", tt.o, len(plans), err, tt.want)
			}
		})
	}
}

func TestDefaultShells(t *testing.T) {
	tests := []struct {
		goos string
		want []Shell
	}{
		{"linux", []Shell{"posix"}},
		{"darwin", []Shell{"posix"}},
		{"freebsd", []Shell{"posix"}},
		{"windows", []Shell{"powershell", "cmd"}},
	}
	for _, tt := range tests {
		if got := DefaultShells(tt.goos); !slices.Equal(got, tt.want) {
			t.Errorf("DefaultShells(%q) = %q, want %q", tt.goos, got, tt.want)
		}
	}
}

// TestTokenNeverInTheRecommendedForm: the recommended form is there for
// every client, names no token and no variable, and runs --lazy; the
// environment form carries the placeholder and nothing else.
func TestTokenNeverInTheRecommendedForm(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		bin := "/opt/stitch slop/stitchslop-bridge"
		if goos == "windows" {
			bin = `C:\Program Files\Stitch Slop\stitchslop-bridge.exe`
		}
		for _, p := range build(t, Options{Binary: bin, GOOS: goos}) {
			if p.Unsupported != "" {
				continue // TestClaudeDesktopNotOnLinux
			}
			if len(p.Recommended) == 0 || len(p.EnvForm) == 0 {
				t.Fatalf("%s/%s: %d recommended, %d env snippets, want both", goos, p.Client, len(p.Recommended), len(p.EnvForm))
			}
			for _, s := range p.Recommended {
				if strings.Contains(s.Text, wantTokenVar) || strings.Contains(s.Text, "tok_") || strings.Contains(s.Text, wantPlaceholder) {
					t.Errorf("%s/%s recommended %q names a token", goos, p.Client, s.Text)
				}
				if !strings.Contains(s.Text, "--lazy") {
					t.Errorf("%s/%s recommended %q lacks --lazy", goos, p.Client, s.Text)
				}
			}
			for _, s := range p.EnvForm {
				if !strings.Contains(s.Text, wantTokenVar) || !strings.Contains(s.Text, wantPlaceholder) {
					t.Errorf("%s/%s env form %q lacks %s and the placeholder", goos, p.Client, s.Text, wantTokenVar)
				}
				if strings.Contains(s.Text, "--lazy") || strings.Contains(s.Text, "tok_") {
					t.Errorf("%s/%s env form %q holds --lazy or a token", goos, p.Client, s.Text)
				}
			}
			if !strings.Contains(p.EnvWarning, "writes the token into") {
				t.Errorf("%s/%s EnvWarning = %q, want it to say the token goes into a file", goos, p.Client, p.EnvWarning)
			}
			if !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "new session") }) {
				t.Errorf("%s/%s notes %q do not say a new session is needed", goos, p.Client, p.Notes)
			}
			if len(p.ShellVerbs) == 0 || !strings.HasSuffix(p.ShellVerbs[0].Text, " status") {
				t.Errorf("%s/%s ShellVerbs = %+v, want a status line", goos, p.Client, p.ShellVerbs)
			}
		}
	}
}

func TestPlaceholderIsRefusedByTheBridge(t *testing.T) {
	if TokenPlaceholder != wantPlaceholder {
		t.Errorf("TokenPlaceholder = %q, want %q", TokenPlaceholder, wantPlaceholder)
	}
	if tok, ok := sites.CleanToken(TokenPlaceholder); ok {
		t.Errorf("sites.CleanToken(%q) = %q, true; the bridge would take the placeholder for a token", TokenPlaceholder, tok)
	}
	if !strings.ContainsAny(TokenPlaceholder, "<> ") {
		t.Errorf("TokenPlaceholder %q holds none of <, > and space, which the bridge names as a placeholder", TokenPlaceholder)
	}
}

// TestPosixLinesParseAndSplitAsMeant runs every posix line for every
// client, for nasty binary paths, through bash -n and sh -n, then lets
// bash split it and compares the words with the ones meant.
func TestPosixLinesParseAndSplitAsMeant(t *testing.T) {
	for _, p := range nastyPaths {
		if !strings.HasPrefix(p, "/") {
			continue
		}
		for _, origin := range []string{"", "http://localhost:5173"} {
			plans := build(t, Options{Binary: p, GOOS: "linux", Origin: origin})
			extra := []string{}
			if origin != "" {
				extra = []string{"--origin", origin}
			}
			lazy := append([]string{"--lazy"}, extra...)
			for _, pl := range plans {
				for _, s := range allSnippets(pl) {
					if s.Kind != "command" {
						continue
					}
					t.Run(pl.Client+"/"+s.Text, func(t *testing.T) {
						syntaxOK(t, "bash", s.Text)
						syntaxOK(t, "sh", s.Text)
						got := shellWords(t, "bash", s.Text)
						want := wantWords(pl.Client, p, lazy, extra, got)
						if !slices.Equal(got, want) {
							t.Errorf("bash split %q into %q, want %q", s.Text, got, want)
						}
						if got2 := shellWords(t, "sh", s.Text); !slices.Equal(got2, got) {
							t.Errorf("sh split %q into %q, bash into %q", s.Text, got2, got)
						}
					})
				}
			}
		}
	}
}

func allSnippets(p Plan) []Snippet {
	return slices.Concat(p.Recommended, p.EnvForm, p.ShellVerbs)
}

// wantWords is the argv a line for client is meant to give, chosen by
// the shape of got (which form it is); for code --add-mcp it checks the
// JSON argument by decoding it.
func wantWords(client, bin string, lazy, extra, got []string) []string {
	env := slices.ContainsFunc(got, func(w string) bool { return strings.Contains(w, wantPlaceholder) })
	args := lazy
	if env {
		args = extra
	}
	switch {
	case len(got) == 2 && got[1] == "status":
		return []string{bin, "status"}
	case client == "claude" && env:
		return slices.Concat([]string{"claude", "mcp", "add", "stitchslop", "-e", wantTokenVar + "=" + wantPlaceholder, "--", bin}, args)
	case client == "claude":
		return slices.Concat([]string{"claude", "mcp", "add", "stitchslop", "--", bin}, args)
	case client == "codex" && env:
		return slices.Concat([]string{"codex", "mcp", "add", "stitchslop", "--env", wantTokenVar + "=" + wantPlaceholder, "--", bin}, args)
	case client == "codex":
		return slices.Concat([]string{"codex", "mcp", "add", "stitchslop", "--", bin}, args)
	case client == "vscode" && len(got) == 3:
		var s struct {
			Name    string            `json:"name"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		}
		if json.Unmarshal([]byte(got[2]), &s) != nil || s.Name != "stitchslop" || s.Command != bin || !slices.Equal(s.Args, args) {
			return []string{"code", "--add-mcp", "<JSON naming stitchslop, the binary and its args>"}
		}
		if env != (s.Env[wantTokenVar] == wantPlaceholder) {
			return nil
		}
		return []string{"code", "--add-mcp", got[2]}
	}
	return nil
}

// TestConfigSnippetsDecodeToTheServer decodes every JSON snippet (and
// every TOML one, with Python's tomllib when python3 is here) and checks
// the command, args and env.
func TestConfigSnippetsDecodeToTheServer(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, bin := range []string{`/Users/o'brien/a "b"/$x/ü&<>/stitchslop-bridge`, `C:\Users\O'Brien\a "b"\%x%\stitchslop-bridge.exe`} {
			if !isAbs(goos, bin) {
				continue
			}
			plans := build(t, Options{Binary: bin, GOOS: goos, Origin: "https://stitchslop.test:8443"})
			for _, p := range plans {
				for i, s := range slices.Concat(p.Recommended, p.EnvForm) {
					env := i >= len(p.Recommended)
					wantArgs := []string{"--lazy", "--origin", "https://stitchslop.test:8443"}
					if env {
						wantArgs = wantArgs[1:]
					}
					var got server
					switch s.Kind {
					case "json":
						got = decodeJSONServer(t, p.Client, s.Text)
					case "toml":
						got = decodeTOMLServer(t, s.Text)
						if got.Command == "" {
							continue // no python3
						}
					default:
						continue
					}
					if s.Where == "" {
						t.Errorf("%s %s snippet has no Where", p.Client, s.Kind)
					}
					if got.Command != bin || !slices.Equal(got.Args, wantArgs) {
						t.Errorf("%s/%s %s snippet decodes to %q %q, want %q %q\n%s", goos, p.Client, s.Kind, got.Command, got.Args, bin, wantArgs, s.Text)
					}
					if env != (got.Env[wantTokenVar] == wantPlaceholder) || len(got.Env) > 1 {
						t.Errorf("%s/%s %s snippet env = %q (env form: %v)", goos, p.Client, s.Kind, got.Env, env)
					}
				}
			}
		}
	}
}

func decodeJSONServer(t *testing.T, client, text string) server {
	t.Helper()
	var doc map[string]map[string]struct {
		server
		Type string `json:"type"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s snippet is not the JSON wanted: %v\n%s", client, err, text)
	}
	key := "mcpServers"
	if client == "vscode" {
		key = "servers"
	}
	if len(doc) != 1 || len(doc[key]) != 1 {
		t.Fatalf("%s snippet has %d top keys, want one %q with one server\n%s", client, len(doc), key, text)
	}
	s, ok := doc[key]["stitchslop"]
	if !ok {
		t.Fatalf("%s snippet has no %s.stitchslop\n%s", client, key, text)
	}
	if client == "vscode" && s.Type != "stdio" {
		t.Errorf("vscode snippet type = %q, want stdio", s.Type)
	}
	return s.server
}

func decodeTOMLServer(t *testing.T, text string) server {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not installed; TOML checked by the tomlString table only")
		return server{}
	}
	cmd := exec.Command(py, "-c", `import json,sys,tomllib; json.dump(tomllib.loads(sys.stdin.read()), sys.stdout)`)
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tomllib refused the snippet: %v\n%s", err, text)
	}
	var doc struct {
		MCPServers map[string]server `json:"mcp_servers"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.MCPServers["stitchslop"]
}

func TestTOMLString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`C:\Program Files\s.exe`, `"C:\\Program Files\\s.exe"`},
		{`say "hi"`, `"say \"hi\""`},
		{"tab\there\nnl", `"tab\there\nnl"`},
		{"del\x7f esc\x1b", `"del\u007F esc\u001B"`},
		{"ünï ✓", `"ünï ✓"`},
		{"", `""`},
	}
	py, _ := exec.LookPath("python3")
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := tomlString(tt.in)
			if got != tt.want {
				t.Errorf("tomlString(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if py == "" {
				return
			}
			cmd := exec.Command(py, "-c", `import json,sys,tomllib; json.dump(tomllib.loads(sys.stdin.read())["k"], sys.stdout)`)
			cmd.Stdin = strings.NewReader("k = " + got)
			out, err := cmd.Output()
			var back string
			if err != nil || json.Unmarshal(out, &back) != nil || back != tt.in {
				t.Errorf("tomllib read tomlString(%q) = %s back as %q (%v)", tt.in, got, back, err)
			}
		})
	}
}

func TestWindowsLines(t *testing.T) {
	bin := `C:\Program Files\Stitch Slop\stitchslop-bridge.exe`
	plans := build(t, Options{Binary: bin, GOOS: "windows", Clients: []string{"claude", "vscode"}})
	want := map[string][]string{
		"claude": {
			`claude mcp add stitchslop '--' 'C:\Program Files\Stitch Slop\stitchslop-bridge.exe' --lazy`,
			`claude mcp add stitchslop -- "C:\Program Files\Stitch Slop\stitchslop-bridge.exe" --lazy`,
		},
		"vscode": {
			`code --% --add-mcp "{\"name\":\"stitchslop\",\"command\":\"C:\\Program Files\\Stitch Slop\\stitchslop-bridge.exe\",\"args\":[\"--lazy\"]}"`,
			`code --add-mcp "{\"name\":\"stitchslop\",\"command\":\"C:\\Program Files\\Stitch Slop\\stitchslop-bridge.exe\",\"args\":[\"--lazy\"]}"`,
		},
	}
	for _, p := range plans {
		var got []string
		for _, s := range p.Recommended {
			if s.Kind == "command" {
				got = append(got, s.Text)
			}
		}
		if !slices.Equal(got, want[p.Client]) {
			t.Errorf("%s recommended lines = %q, want %q", p.Client, got, want[p.Client])
		}
		if p.Client == "vscode" {
			// The JSON argument, as code.exe splits it, is the document.
			w := splitMSVCRT(strings.TrimPrefix(got[1], "code "))
			var s server
			if len(w) != 2 || json.Unmarshal([]byte(w[1]), &s) != nil || s.Command != bin {
				t.Errorf("splitMSVCRT(%q) = %q, want --add-mcp and JSON naming %q", got[1], w, bin)
			}
			// The env form's placeholder holds < and >: no Windows line.
			for _, e := range p.EnvForm {
				if e.Kind == "command" {
					t.Errorf("vscode env form has Windows line %q; cmd.exe would redirect at its < and >", e.Text)
				}
			}
			if !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "no cmd.exe line for code --add-mcp") }) {
				t.Errorf("vscode notes %q do not say why the env form has no cmd.exe line", p.Notes)
			}
		}
		if st := p.ShellVerbs[0].Text; st != `& 'C:\Program Files\Stitch Slop\stitchslop-bridge.exe' status` {
			t.Errorf("%s PowerShell status line = %q", p.Client, st)
		}
	}
}

func TestCmdLineLeftOutWithReason(t *testing.T) {
	plans := build(t, Options{Binary: `C:\Users\100%\stitchslop-bridge.exe`, GOOS: "windows", Clients: []string{"claude"}})
	p := plans[0]
	for _, s := range allSnippets(p) {
		if s.Shell == string(Cmd) {
			t.Errorf("cmd.exe line %q printed for a path holding %%", s.Text)
		}
	}
	if len(p.Recommended) != 1 || p.Recommended[0].Shell != string(PowerShell) {
		t.Errorf("recommended = %+v, want the PowerShell line alone", p.Recommended)
	}
	if !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "no cmd.exe line") && strings.Contains(n, `'%'`) }) {
		t.Errorf("notes %q do not say the cmd.exe line was left out for the %%", p.Notes)
	}
}

func TestClaudeDesktopConfigPath(t *testing.T) {
	tests := map[string]string{
		"darwin":  "~/Library/Application Support/Claude/claude_desktop_config.json",
		"windows": `%APPDATA%\Claude\claude_desktop_config.json`,
	}
	for goos, want := range tests {
		bin := "/b"
		if goos == "windows" {
			bin = `C:\b.exe`
		}
		p := build(t, Options{Binary: bin, GOOS: goos, Clients: []string{"claude-desktop"}})[0]
		if got := p.Recommended[0].Where; got != want {
			t.Errorf("claude-desktop Where on %s = %q, want %q", goos, got, want)
		}
	}
}

func TestWriteTextRecommendedFirst(t *testing.T) {
	plans := build(t, Options{Binary: "/usr/local/bin/stitchslop-bridge", GOOS: "linux"})
	var buf bytes.Buffer
	if err := WriteText(&buf, plans); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, p := range plans {
		if p.Unsupported != "" {
			continue
		}
		rec := strings.Index(out, indented(p.Recommended[0].Text))
		env := strings.Index(out, indented(p.EnvForm[0].Text))
		if rec < 0 || env < 0 || rec > env {
			t.Errorf("WriteText: %s recommended at %d, env form at %d; want both, recommended first", p.Client, rec, env)
		}
	}
	want := "    bash/zsh:\n      claude mcp add stitchslop -- /usr/local/bin/stitchslop-bridge --lazy\n"
	if !strings.Contains(out, want) {
		t.Errorf("WriteText output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "<paste the\n") {
		t.Errorf("WriteText broke the placeholder over two lines:\n%s", out)
	}
}

func TestWriteJSONIsOneDocument(t *testing.T) {
	plans := build(t, Options{Binary: "/a&b/<c>/stitchslop-bridge", GOOS: "linux"})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, plans); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&buf)
	var doc struct {
		Clients []Plan `json:"clients"`
	}
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("WriteJSON output does not decode: %v", err)
	}
	if dec.More() {
		t.Error("WriteJSON wrote more than one document")
	}
	if len(doc.Clients) != len(Clients) || doc.Clients[0].Recommended[0].Kind != "command" || doc.Clients[0].Recommended[0].Shell != "posix" {
		t.Errorf("WriteJSON decoded to %+v", doc.Clients)
	}
	if strings.Contains(buf.String(), `\u0026`) {
		t.Error("WriteJSON escaped & as \\u0026; snippets must read as they are")
	}
}

// indented is text as WriteText lays a snippet out.
func indented(text string) string {
	return "      " + strings.ReplaceAll(text, "\n", "\n      ") + "\n"
}

// TestClaudeDesktopBundleFirst: setup claude-desktop offers the release's
// bundle for this OS and arch (its download URL, the stitchslop-verify
// line) before the config file; a build that is not from a release points
// at the latest release; other clients and freebsd get no bundle.
func TestClaudeDesktopBundleFirst(t *testing.T) {
	tests := []struct {
		goos, goarch, version, bin string
		file, url, verify          string
	}{
		{"darwin", "arm64", "1.2.3", "/b", "stitchslop-bridge_1.2.3_darwin_arm64.mcpb",
			"https://github.com/stitchslop/stitchslop-bridge/releases/download/v1.2.3/stitchslop-bridge_1.2.3_darwin_arm64.mcpb",
			"gh attestation verify stitchslop-bridge_1.2.3_darwin_arm64.mcpb --repo stitchslop/stitchslop-bridge"},
		{"windows", "amd64", "2.0.0-rc.1", `C:\b.exe`, "stitchslop-bridge_2.0.0-rc.1_windows_amd64.mcpb",
			"https://github.com/stitchslop/stitchslop-bridge/releases/download/v2.0.0-rc.1/stitchslop-bridge_2.0.0-rc.1_windows_amd64.mcpb",
			"gh attestation verify stitchslop-bridge_2.0.0-rc.1_windows_amd64.mcpb --repo stitchslop/stitchslop-bridge"},
		{"darwin", "amd64", "(devel)", "/b", "stitchslop-bridge_VERSION_darwin_amd64.mcpb",
			"https://github.com/stitchslop/stitchslop-bridge/releases/latest",
			"gh attestation verify stitchslop-bridge_VERSION_darwin_amd64.mcpb --repo stitchslop/stitchslop-bridge"},
	}
	for _, tt := range tests {
		plans := build(t, Options{Binary: tt.bin, GOOS: tt.goos, GOARCH: tt.goarch, Version: tt.version})
		for _, p := range plans {
			if p.Client != "claude-desktop" {
				if p.Bundle != nil {
					t.Errorf("%s on %s: a bundle offer, want none (Claude Desktop only)", p.Client, tt.goos)
				}
				continue
			}
			b := p.Bundle
			if b == nil {
				t.Fatalf("claude-desktop on %s/%s %s: no bundle offer", tt.goos, tt.goarch, tt.version)
			}
			if b.File != tt.file || b.URL != tt.url {
				t.Errorf("bundle on %s/%s %s = %s at %s, want %s at %s", tt.goos, tt.goarch, tt.version, b.File, b.URL, tt.file, tt.url)
			}
			if len(b.Verify) == 0 || len(b.Verify[0].Commands) == 0 || b.Verify[0].Commands[0].Text != tt.verify {
				t.Errorf("bundle verify on %s = %+v, want %q first", tt.goos, b.Verify, tt.verify)
			}
			var buf bytes.Buffer
			if err := WriteText(&buf, []Plan{p}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			iURL, iVerify, iClick := strings.Index(out, "      "+tt.url+"\n"), strings.Index(out, "      "+tt.verify+"\n"), strings.Index(out, "Double-click "+tt.file)
			iFile := strings.Index(out, indented(p.Recommended[0].Text))
			if iURL < 0 || iVerify < iURL || iClick < iVerify || iFile < iClick {
				t.Errorf("WriteText on %s: URL at %d, verify at %d, double-click at %d, config file at %d; want them all, in that order:\n%s",
					tt.goos, iURL, iVerify, iClick, iFile, out)
			}
		}
	}

	site := build(t, Options{Binary: "/b", GOOS: "darwin", GOARCH: "arm64", Version: "1.2.3", Origin: "https://beta.stitchslop.com", Clients: []string{"claude-desktop"}})[0]
	if !strings.Contains(strings.Join(site.Bundle.Steps, " "), "enter https://beta.stitchslop.com") {
		t.Errorf("bundle steps with --origin %q do not say to enter the site: %q", "https://beta.stitchslop.com", site.Bundle.Steps)
	}
}

// TestGoRunBinaryReplaced: when the binary is one go run built (in its
// work directory or in the build cache), every plan gives the build first
// and names the binary it writes, never the go run one; an installed
// binary gets no build and no note. The plans are for the system running
// the test, as setup's are: the binary go install writes is in this
// system's GOBIN, a path only this system's rules call absolute.
func TestGoRunBinaryReplaced(t *testing.T) {
	t.Setenv("GOCACHE", "")
	gobin := filepath.Join(t.TempDir(), "gobin")
	t.Setenv("GOBIN", gobin)
	installed, _ := json.Marshal(filepath.Join(gobin, "stitchslop-bridge"))
	for _, tmp := range []string{"/tmp/go-build4279710946/b001/exe/stitchslop-bridge", "/home/u/.cache/go-build/ab/abcdef-d/stitchslop-bridge"} {
		for _, p := range build(t, Options{Binary: tmp, GOOS: runtime.GOOS, Dir: t.TempDir()}) {
			if p.Unsupported != "" {
				continue // no lines to paste on this system
			}
			// PowerShell's line quotes the module path; the others do not.
			if len(p.Build) == 0 || !strings.HasPrefix(p.Build[0].Text, "go install ") || !strings.Contains(p.Build[0].Text, "github.com/stitchslop/stitchslop-bridge/cmd/stitchslop-bridge@latest") {
				t.Errorf("%s: build %q, want go install first", p.Client, p.Build)
			}
			doc, _ := json.Marshal(p)
			if strings.Contains(string(doc), "go-build") {
				t.Errorf("%s: the plan names the go run binary: %s", p.Client, doc)
			}
			if p.Client != "claude-desktop" && !strings.Contains(string(doc), strings.Trim(string(installed), `"`)) {
				t.Errorf("%s: the plan does not name the binary go install writes: %s", p.Client, doc)
			}
		}
	}
	for _, p := range build(t, Options{Binary: "/usr/local/bin/stitchslop-bridge", GOOS: "linux"}) {
		if len(p.Build) > 0 || slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "go run") }) {
			t.Errorf("%s: an installed binary's plan has a build %q or notes of go run: %q", p.Client, p.Build, p.Notes)
		}
	}
}

// TestClaudeDesktopNotOnLinux: Claude Desktop has no Linux or FreeBSD
// build, so there setup gives no bundle, no config path and no line, but a
// sentence saying so that names the clients to use instead; the written
// text says the same and nothing else for it.
func TestClaudeDesktopNotOnLinux(t *testing.T) {
	for _, goos := range []string{"linux", "freebsd"} {
		p := build(t, Options{Binary: "/usr/local/bin/stitchslop-bridge", GOOS: goos, GOARCH: "amd64", Version: "1.2.3", Clients: []string{"claude-desktop"}})[0]
		if p.Bundle != nil || len(p.Recommended) != 0 || len(p.EnvForm) != 0 {
			t.Errorf("claude-desktop on %s: bundle %+v, %d recommended, %d env snippets; want none", goos, p.Bundle, len(p.Recommended), len(p.EnvForm))
		}
		for _, want := range []string{"macOS and Windows only", "setup claude"} {
			if !strings.Contains(p.Unsupported, want) {
				t.Errorf("claude-desktop on %s: Unsupported = %q, want it to say %q", goos, p.Unsupported, want)
			}
		}
		var buf bytes.Buffer
		if err := WriteText(&buf, []Plan{p}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, "macOS and Windows only") || strings.Contains(out, "claude_desktop_config.json") || strings.Contains(out, ".mcpb") {
			t.Errorf("WriteText for claude-desktop on %s:\n%s\nwant the sentence and no config file or bundle", goos, out)
		}
	}
}

// TestBundleVerifyNeedsNothingOfOursFirst: the ways to check a bundle
// lead with the GitHub CLI and cosign (nothing of this project's to
// install), cosign with the release identity exactly, and end with
// stitchslop-verify built from a clone of the release's tag, never with
// go install, which fails until the module is published.
func TestBundleVerifyNeedsNothingOfOursFirst(t *testing.T) {
	const (
		wantRegexp = `^https://github\.com/stitchslop/stitchslop-bridge/\.github/workflows/release\.yml@refs/tags/v[0-9].*$`
		wantIssuer = "https://token.actions.githubusercontent.com"
	)
	for _, goos := range []string{"darwin", "windows"} {
		bin := "/b"
		if goos == "windows" {
			bin = `C:\b.exe`
		}
		p := build(t, Options{Binary: bin, GOOS: goos, GOARCH: "arm64", Version: "1.2.3", Clients: []string{"claude-desktop"}})[0]
		var tools []string
		for _, w := range p.Bundle.Verify {
			tools = append(tools, w.Tool)
			if len(w.Commands) != len(DefaultShells(goos)) {
				t.Errorf("%s: %s has %d command snippets, want one per shell", goos, w.Tool, len(w.Commands))
			}
		}
		if want := []string{"gh", "cosign", "stitchslop-verify"}; !slices.Equal(tools, want) {
			t.Fatalf("%s: verify ways %q, want %q", goos, tools, want)
		}
		cosign := p.Bundle.Verify[1].Commands[0].Text
		if !strings.Contains(cosign, wantRegexp) || !strings.Contains(cosign, wantIssuer) {
			t.Errorf("%s: cosign line %q lacks the release identity or issuer", goos, cosign)
		}
		own := p.Bundle.Verify[2]
		if !strings.Contains(own.Commands[0].Text, "--branch v1.2.3 https://github.com/stitchslop/stitchslop-bridge") {
			t.Errorf("%s: stitchslop-verify lines %q do not clone the release's tag", goos, own.Commands[0].Text)
		}
		var buf bytes.Buffer
		if err := WriteText(&buf, []Plan{p}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, "go install") && !strings.Contains(out, "not yet") {
			t.Errorf("%s: WriteText offers go install without saying it fails today:\n%s", goos, out)
		}
		if strings.Contains(out, "stitchslop-verify@") {
			t.Errorf("%s: WriteText gives a go install line:\n%s", goos, out)
		}
	}
}

// Claude Code alone gets the voice channel's second way to register: the
// bridge with --voice-channel, and the launch flag that loads the
// server's channel, on every shell's lines.
func TestVoiceChannelFormForClaudeCodeOnly(t *testing.T) {
	for _, p := range build(t, Options{Binary: "/usr/bin/stitchslop-bridge", GOOS: "linux"}) {
		var lines []string
		for _, s := range p.VoiceChannel {
			lines = append(lines, s.Text)
		}
		if p.Client != "claude" {
			if len(lines) != 0 {
				t.Errorf("%s: voice channel lines %q, want none", p.Client, lines)
			}
			continue
		}
		want := []string{"claude mcp add stitchslop -- /usr/bin/stitchslop-bridge --lazy --voice-channel",
			"claude --dangerously-load-development-channels server:stitchslop"}
		if !slices.Equal(lines, want) {
			t.Errorf("claude: voice channel lines %q, want %q", lines, want)
		}
	}
}
