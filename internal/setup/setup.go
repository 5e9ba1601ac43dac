// Package setup says how to register this bridge as an MCP server with each
// agent client: command lines quoted for the shell that runs them, and
// config snippets. It prints; it never edits a client's files. The
// recommended form, "<binary> --lazy" and the MCP pair tool, keeps the
// token out of every file and argv; the STITCHSLOP_TOKEN form comes second,
// with a placeholder the bridge refuses and a warning that it puts the
// token in a file.
package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

// Clients are the agent clients Build knows, in the order it answers;
// "all" on the command line means every one.
var Clients = []string{"claude", "codex", "cursor", "vscode", "claude-desktop"}

// clientTitles name the clients for people.
var clientTitles = map[string]string{
	"claude":         "Claude Code",
	"codex":          "Codex CLI",
	"cursor":         "Cursor",
	"vscode":         "VS Code",
	"claude-desktop": "Claude Desktop",
}

// Shell is a command interpreter a line is quoted for.
type Shell string

const (
	Posix      Shell = "posix"      // sh, bash, zsh
	PowerShell Shell = "powershell" // Windows PowerShell 5.1 and PowerShell 7
	Cmd        Shell = "cmd"        // cmd.exe
)

// shellTitles name the shells for people.
var shellTitles = map[Shell]string{Posix: "bash/zsh", PowerShell: "PowerShell", Cmd: "cmd.exe"}

// DefaultShells are the shells a user of goos most likely types into.
func DefaultShells(goos string) []Shell {
	if goos == "windows" {
		return []Shell{PowerShell, Cmd}
	}
	return []Shell{Posix}
}

// ServerName is the name the bridge is registered under in every client.
const ServerName = "stitchslop"

// TokenEnv is the variable the bridge reads its one-time token from.
const TokenEnv = "STITCHSLOP_TOKEN"

// TokenPlaceholder stands for the token in the environment-variable form.
// The bridge refuses a STITCHSLOP_TOKEN not of a token's form
// (sites.TokenPattern), so a snippet pasted unchanged fails loudly.
const TokenPlaceholder = "<paste the token here>"

// LazyFlag makes the bridge wait for the agent's pair call.
const LazyFlag = "--lazy"

// VoiceFlag makes the bridge pass the tab's voice to the session as
// Claude Code channel events.
const VoiceFlag = "--voice-channel"

// Options says what to build.
type Options struct {
	Binary  string   // this binary's absolute path (os.Executable), quoted by this package
	Clients []string // nil or empty: all; an unknown name is an error listing the known ones
	Shells  []Shell  // nil: DefaultShells(GOOS)
	GOOS    string   // runtime.GOOS when empty; config file locations depend on it
	GOARCH  string   // runtime.GOARCH when empty; names the Claude Desktop bundle
	Version string   // version.Short() when empty; names the release the bundle is in
	Origin  string   // "" = the default site https://www.stitchslop.com; else passed as --origin
	Dir     string   // the working directory (os.Getwd when empty): where a go run binary's lasting build goes
}

// Snippet is one thing to run or paste.
type Snippet struct {
	Client string `json:"client"`
	// Kind is "command" (a one-line command for Shell), "json" or "toml"
	// (a config file's content, to merge into the file at Where).
	Kind  string `json:"kind"`
	Shell string `json:"shell,omitempty"`
	Where string `json:"where,omitempty"`
	Text  string `json:"text"`
}

// Plan is everything said about one client.
type Plan struct {
	Client string `json:"client"`
	Title  string `json:"title"`
	// Build, when setup runs from a binary go run built, is the command to
	// run first: it builds the binary every other line names.
	Build []Snippet `json:"build,omitempty"`
	// Recommended registers "<binary> --lazy": no token in any file.
	Recommended []Snippet `json:"recommended"`
	// EnvForm puts the token in the client's config; EnvWarning says so.
	EnvForm    []Snippet `json:"env_form"`
	EnvWarning string    `json:"env_warning"`
	Notes      []string  `json:"notes"`
	// VoiceChannel, for Claude Code, is the second way to register: the
	// bridge with --voice-channel, so the user's voice reaches the session
	// by itself, and the launch flag Claude Code needs for a channel that
	// is not on its allowlist (docs/protocol.md §7.19).
	VoiceChannel []Snippet `json:"voice_channel,omitempty"`
	// ShellVerbs are "<binary> status" for each shell: the shell verbs
	// work at once, without registering anything or a new session.
	ShellVerbs []Snippet `json:"shell_verbs"`
	// Bundle, for Claude Desktop, is the one-click install, offered
	// before the config file; nil for other clients and where Claude
	// Desktop does not run.
	Bundle *BundleOffer `json:"bundle,omitempty"`
	// Unsupported, when set, says why this client cannot be registered on
	// this system and what to use instead; the plan then has no snippets.
	Unsupported string `json:"unsupported,omitempty"`
}

// Build says, for each client asked for, how to register the bridge.
func Build(o Options) ([]Plan, error) {
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.GOARCH == "" {
		o.GOARCH = runtime.GOARCH
	}
	if o.Version == "" {
		o.Version = version.Short()
	}
	// A binary go run built is no path to give a client: every line names
	// the one the plan's Build writes instead.
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	lasting, goRun := LastingBinary(o.Binary, dir)
	if goRun {
		o.Binary = lasting.Path
	}
	if err := printable(o.Binary); err != nil {
		return nil, fmt.Errorf("setup: binary path: %w", err)
	}
	if !isAbs(o.GOOS, o.Binary) {
		return nil, fmt.Errorf("setup: binary path %q is not absolute", o.Binary)
	}
	clients, err := pickClients(o.Clients)
	if err != nil {
		return nil, err
	}
	shells := o.Shells
	if shells == nil {
		shells = DefaultShells(o.GOOS)
	}
	for _, sh := range shells {
		if _, ok := shellTitles[sh]; !ok {
			return nil, fmt.Errorf("setup: unknown shell %q; known: %s, %s, %s", sh, Posix, PowerShell, Cmd)
		}
	}
	var extra []string
	var site string
	if o.Origin != "" {
		var err error
		site, err = origin.Parse(o.Origin)
		if err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
		extra = []string{"--origin", site}
	}
	b := builder{o: o, shells: shells, site: site, goRun: goRun, lasting: lasting,
		lazyArgs: append([]string{LazyFlag}, extra...),
		envArgs:  append([]string{}, extra...),
	}
	plans := make([]Plan, 0, len(clients))
	for _, c := range clients {
		p, err := b.plan(c)
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
	}
	return plans, nil
}

func pickClients(names []string) ([]string, error) {
	if len(names) == 0 {
		return Clients, nil
	}
	var out []string
	for _, n := range names {
		if n == "all" {
			return Clients, nil
		}
		if !slices.Contains(Clients, n) {
			return nil, fmt.Errorf("setup: unknown client %q; known: %s, all", n, strings.Join(Clients, ", "))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// isAbs reports whether p is absolute on goos (filepath.IsAbs answers for
// the machine running the tests, not for goos).
func isAbs(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// homePath is rel under the home directory, written the way goos's users
// write it.
func homePath(goos, rel string) string {
	if goos == "windows" {
		return `%USERPROFILE%\` + strings.ReplaceAll(rel, "/", `\`)
	}
	return "~/" + rel
}

// claudeDesktopConfig is where Claude Desktop keeps its MCP servers, on
// the systems of desktopGOOS.
func claudeDesktopConfig(goos string) string {
	if goos == "windows" {
		return `%APPDATA%\Claude\claude_desktop_config.json`
	}
	return "~/Library/Application Support/Claude/claude_desktop_config.json"
}

func goosTitle(goos string) string {
	switch goos {
	case "linux":
		return "Linux"
	case "freebsd":
		return "FreeBSD"
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return goos
}

type builder struct {
	o        Options
	shells   []Shell
	site     string   // the --origin asked for, parsed; "" for the default
	lazyArgs []string // the recommended form's arguments
	envArgs  []string // the environment form's arguments
	goRun    bool     // o.Binary replaces one go run built; lasting builds it
	lasting  Lasting
}

// server is a stdio MCP server entry as Cursor, Claude Desktop and VS Code
// spell it; the field order is the order written.
type server struct {
	Name    string            `json:"name,omitempty"` // code --add-mcp only
	Type    string            `json:"type,omitempty"` // VS Code only
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

func (b *builder) server(env bool) server {
	s := server{Command: b.o.Binary, Args: b.lazyArgs}
	if env {
		s.Args = b.envArgs
		s.Env = map[string]string{TokenEnv: TokenPlaceholder}
	}
	return s
}

// encodeJSON writes v with encoding/json, HTML characters left as they are
// (a path may hold & or <), indented unless compact.
func encodeJSON(v any, compact bool) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if !compact {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// form collects one form's snippets and the reasons any line was left out.
type form struct {
	client   string
	snippets []Snippet
	skipped  []string
}

// command adds words as a command line for each shell; a shell that
// cannot carry them gets a skip reason instead of a wrong line.
func (b *builder) command(f *form, words []string) {
	for _, sh := range b.shells {
		line, err := Line(sh, words...)
		if err != nil {
			f.skipped = append(f.skipped, fmt.Sprintf("no %s line for %q: %v", shellTitles[sh], words[0]+" "+words[1], err))
			continue
		}
		f.snippets = append(f.snippets, Snippet{Client: f.client, Kind: "command", Shell: string(sh), Text: line})
	}
}

// codeAddMCP adds "code --add-mcp JSON" for each shell. On Windows, code is
// code.cmd, and both shells hand it the argument through cmd.exe: the line
// is the C-runtime quoted JSON, after PowerShell's stop-parsing token --%
// so that PowerShell passes it on verbatim.
func (b *builder) codeAddMCP(f *form, doc string) {
	for _, sh := range b.shells {
		var line string
		var err error
		switch {
		case sh == Posix:
			line = "code --add-mcp " + QuotePosix(doc)
		case b.o.GOOS != "windows" && sh == PowerShell:
			line = "code --add-mcp " + QuotePowerShell(doc)
		default:
			var arg string
			arg, err = quoteWindowsJSON(doc)
			if sh == PowerShell {
				line = "code --% --add-mcp " + arg
			} else {
				line = "code --add-mcp " + arg
			}
		}
		if err != nil {
			f.skipped = append(f.skipped, fmt.Sprintf("no %s line for code --add-mcp: %v", shellTitles[sh], err))
			continue
		}
		f.snippets = append(f.snippets, Snippet{Client: f.client, Kind: "command", Shell: string(sh), Text: line})
	}
}

func (b *builder) file(f *form, kind, where string, v any) error {
	var text string
	if kind == "toml" {
		text = v.(string)
	} else {
		var err error
		if text, err = encodeJSON(v, false); err != nil {
			return err
		}
	}
	f.snippets = append(f.snippets, Snippet{Client: f.client, Kind: kind, Where: where, Text: text})
	return nil
}

// mcpServersFiles adds to rec and env the JSON file at where holding the
// server under mcpServers, as Cursor and Claude Desktop read it.
func (b *builder) mcpServersFiles(where string, rec, env *form) error {
	for _, f := range []*form{rec, env} {
		doc := map[string]map[string]server{"mcpServers": {ServerName: b.server(f == env)}}
		if err := b.file(f, "json", where, doc); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) plan(c string) (Plan, error) {
	goos := b.o.GOOS
	if c == "claude-desktop" && !desktopGOOS[goos] {
		// A config file at a path no program reads would be an
		// instruction that cannot work.
		return Plan{Client: c, Title: clientTitles[c],
			Recommended: []Snippet{}, EnvForm: []Snippet{}, Notes: []string{}, ShellVerbs: []Snippet{},
			Unsupported: "Claude Desktop is made for macOS and Windows only; there is no " + goosTitle(goos) +
				" build to register the bridge with. Use Claude Code here instead (stitchslop setup claude), or Codex, Cursor or VS Code (setup codex, setup cursor, setup vscode).",
		}, nil
	}
	rec, env := &form{client: c}, &form{client: c}
	bin := b.o.Binary
	assign := TokenEnv + "=" + TokenPlaceholder
	var tokenFile string
	var notes []string
	voice := &form{client: c}
	switch c {
	case "claude":
		b.command(rec, append([]string{"claude", "mcp", "add", ServerName, "--", bin}, b.lazyArgs...))
		b.command(voice, append(append([]string{"claude", "mcp", "add", ServerName, "--", bin}, b.lazyArgs...), VoiceFlag))
		b.command(voice, []string{"claude", "--dangerously-load-development-channels", "server:" + ServerName})
		b.command(env, append([]string{"claude", "mcp", "add", ServerName, "-e", assign, "--", bin}, b.envArgs...))
		tokenFile = homePath(goos, ".claude.json")
		notes = append(notes, "claude mcp add registers the server for the current project directory; add --scope user after add to have it in every project.")
	case "codex":
		where := homePath(goos, ".codex/config.toml")
		b.command(rec, append([]string{"codex", "mcp", "add", ServerName, "--", bin}, b.lazyArgs...))
		if err := b.file(rec, "toml", where, codexTOML(bin, b.lazyArgs, false)); err != nil {
			return Plan{}, err
		}
		b.command(env, append([]string{"codex", "mcp", "add", ServerName, "--env", assign, "--", bin}, b.envArgs...))
		if err := b.file(env, "toml", where, codexTOML(bin, b.envArgs, true)); err != nil {
			return Plan{}, err
		}
		tokenFile = where
		notes = append(notes, "codex mcp add writes the same entry into "+where+"; the TOML is for editing the file by hand (use one or the other).")
	case "cursor":
		where := homePath(goos, ".cursor/mcp.json")
		if err := b.mcpServersFiles(where, rec, env); err != nil {
			return Plan{}, err
		}
		tokenFile = where
		notes = append(notes, "Merge the entry into "+where+" under mcpServers if the file exists; a project's .cursor/mcp.json takes the same entry.")
	case "vscode":
		where := ".vscode/mcp.json"
		for _, f := range []*form{rec, env} {
			s := b.server(f == env)
			s.Name = ServerName
			doc, err := encodeJSON(s, true)
			if err != nil {
				return Plan{}, err
			}
			b.codeAddMCP(f, doc)
			s.Name, s.Type = "", "stdio"
			if err := b.file(f, "json", where, map[string]map[string]server{"servers": {ServerName: s}}); err != nil {
				return Plan{}, err
			}
		}
		tokenFile = "VS Code's user mcp.json (code --add-mcp) or " + where
		notes = append(notes, "code --add-mcp adds the server to your VS Code user profile; "+where+" registers it for one workspace (merge the entry under servers if the file exists).")
	case "claude-desktop":
		where := claudeDesktopConfig(goos)
		if err := b.mcpServersFiles(where, rec, env); err != nil {
			return Plan{}, err
		}
		tokenFile = where
		notes = append(notes, "Merge the entry into "+where+" under mcpServers if the file exists, then quit Claude Desktop completely and open it again.")
	}
	if len(rec.snippets) == 0 {
		return Plan{}, fmt.Errorf("setup: no way to register with %s: %s", clientTitles[c], strings.Join(rec.skipped, "; "))
	}
	var first []Snippet
	if b.goRun {
		f := &form{client: c}
		b.command(f, b.lasting.Build)
		first = f.snippets
		note := "This setup runs from a binary go run built in Go's build cache, which go clean -cache or the cache's own trimming empties, so no client is given its path: the lines name " +
			b.o.Binary + ", which the build command writes. Run it first."
		if b.lasting.Build[1] == "install" {
			note += " If go env GOBIN names another folder, name the binary there instead."
		}
		notes = append(notes, note)
	}
	notes = append([]string{
		"A client starts a newly registered server only in a new session: start a new one (or restart the app) before looking for the tools.",
		"In that session, ask the agent to call the MCP tool pair with the token you copy from the Stitch Slop agent panel.",
	}, notes...)
	verbs := &form{client: c}
	b.command(verbs, []string{b.o.Binary, "status"})
	notes = append(notes, rec.skipped...)
	notes = append(notes, env.skipped...)
	notes = append(notes, voice.skipped...)
	var bundle *BundleOffer
	if c == "claude-desktop" {
		bundle = b.bundleOffer(c)
	}
	return Plan{
		Client:      c,
		Title:       clientTitles[c],
		Build:       first,
		Recommended: rec.snippets,
		EnvForm:     env.snippets,
		EnvWarning: "This form writes the token into " + tokenFile + ". Replace " + TokenPlaceholder +
			" with the token from the Stitch Slop agent panel; the bridge refuses the placeholder as it stands. A token works once, so prefer the recommended form.",
		Notes:        notes,
		VoiceChannel: voice.snippets,
		ShellVerbs:   verbs.snippets,
		Bundle:       bundle,
	}, nil
}

// codexTOML is the [mcp_servers.stitchslop] table of ~/.codex/config.toml.
func codexTOML(bin string, args []string, env bool) string {
	var b strings.Builder
	b.WriteString("[mcp_servers." + ServerName + "]\n")
	b.WriteString("command = " + tomlString(bin) + "\n")
	b.WriteString("args = " + tomlArray(args))
	if env {
		b.WriteString("\nenv = { " + TokenEnv + " = " + tomlString(TokenPlaceholder) + " }")
	}
	return b.String()
}
