package toolbox

import (
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/cli"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
)

// Program is stitchslop's command line: what a person runs by hand and a
// running bridge never needs. It talks to a bridge the way any shell does,
// through the session files and the control plane, or starts the bridge
// binary (the demo); none of it is linked into stitchslop-bridge.
var Program = cli.NewProgram(&cli.Program{
	Name:          "stitchslop",
	NoVerb:        "stitchslop",
	Commands:      commands,
	Overview:      overview,
	Elsewhere:     cli.Bridge.VerbNames(),
	ElsewhereProg: "stitchslop-bridge",
})

// Run refers to Program through the verbs' messages, so it is set once
// Program is.
func init() { Program.Run = dispatch }

// shells are the words completion takes.
var shells = []string{"bash", "zsh", "fish", "powershell"}

// programs are the words completion and man take after the shell: the
// program the script or page is for.
var programs = []string{"stitchslop", "stitchslop-bridge"}

var commands = []*cli.Command{
	{
		Name:     "",
		Synopsis: []string{"VERB [ARGS] [flags]"},
		Summary:  "the tools a person runs by hand, beside the bridge",
		Exits:    cli.ExitsLocal,
	},
	{
		Name:     "demo",
		Synopsis: []string{"demo [--port N[,N...]] [--config-dir DIR]"},
		Summary:  "run a bridge and a stand-in tab to try it without a Stitch Slop account",
		Long: `demo starts a bridge, the stitchslop-bridge binary beside this program
(or on PATH, or built from this module's source under go run), and serves
a stand-in Stitch Slop tab for it on http://127.0.0.1 at a port the system
picks, new each run, so the page's address, and the agent line the demo
prints, hold for that run only (a page another program left in your
browser for an address cannot be at the next run's). Open the page in any
browser while the demo runs: it attaches to the bridge and pairs by
itself, each load with a one-time token of its own that the demo makes
and serves to the page's own script, never in a URL or on a command line,
so the shell verbs and an agent can be tried without a Stitch Slop
account. The bridge takes the first free of 8787-8790, or of --port; the
shell verbs find it there by its session file in the config directory. On
stderr the demo says what to open, which commands to try, and how to add
it to an agent.

The tab draws a small design on a canvas, and its commands work on it:
scene.describe, scene.render (a PNG image), shape.add, shape.move,
shape.recolor, shape.delete, and design.export (SVG, PNG or JSON files,
for call --save).

Ctrl-C stops both, the bridge and the page. The demo's bridge keeps its
pairings in a folder of their own inside the config directory
(demo-<pid>-<random>), removed when the demo stops, and never touches the
config directory's pairing.json, even if the demo is killed; the next
demo removes the folder a killed one left. A config directory the demo
created is removed when it is empty again.`,
		Flags: []cli.Flag{
			{Name: "port", Value: "N[,N...]", Help: "the ports the bridge tries, in order, instead of 8787-8790"},
			cli.FConfigDir,
		},
		Exits: []cli.Exit{{Code: 0, Meaning: "stopped by a signal"}, {Code: 1, Meaning: "it could not start"}, {Code: exitcode.CannotBind, Meaning: "none of the bridge's ports is free"}, {Code: exitcode.Usage, Meaning: "a usage error"}},
	},
	{
		Name:     "listen",
		Synopsis: []string{"listen [--owner PID] [--port N] [--config-dir DIR]"},
		Summary:  "print what the tab transcribes of the user's speech, a JSON line each",
		Long: `listen prints what the tab transcribes of the user's speech, a JSON line per
utterance ({"heard","atMs","selection"}, the selection a list of {id, name}),
and events: {"event":"connected"} and "disconnected" when that changes (none
at start); "voice-on" and "voice-off" when the app's voice switch changes
(on the first answer only when on, or off in a browser without voice, then
with "voiceSupport" and "message"); "unavailable" with a "message" before it
ends. Nothing else goes to stdout. It asks the tab's voice.listen
{"timeoutSeconds":25} again and again, each request marked as a listener's,
so the bridge lists it in /status and --exit-when-unused still applies;
it waits on /wait while no tab is attached, and finds the bridge again
through the session files if another takes its port over. It ends with
exit 0 when the process --owner names (default: the bridge) is gone, when
no bridge has answered for 10 minutes, or on SIGINT or SIGTERM (then
quietly); with exit 1 when the tab refuses, or after three other failures
in a row.`,
		Flags: []cli.Flag{
			{Name: "owner", Value: "PID", Help: "stop when this process is gone, looked for every 2 s (default: the bridge)"},
			cli.FPort, cli.FConfigDir,
		},
		Exits: []cli.Exit{
			{Code: 0, Meaning: "the owner is gone, no bridge answered for 10 minutes, or a signal"},
			{Code: 1, Meaning: "the tab refused to listen, or three failures in a row"},
			{Code: exitcode.NoBridge, Meaning: "no bridge is running at start, or several run and --port does not say which; nothing is printed on stdout"},
			{Code: exitcode.Usage, Meaning: "a usage error"},
		},
		JSON: true,
	},
	{
		Name:     "setup",
		Synopsis: []string{"setup [claude|codex|cursor|vscode|claude-desktop|all]... [--shell posix|powershell|cmd] [--origin URL] [--json]"},
		Summary:  "print how to add the bridge to an agent's MCP configuration",
		Long: `setup prints, for each agent named (default: all), the command or the
configuration that makes it start stitchslop-bridge as an MCP server, with
the path of that binary (the one beside this program, or on PATH), and
where the voice listener, this program's listen, is. It changes nothing
itself. The text goes to stderr;
with --json, one JSON document goes to stdout instead.`,
		Flags: []cli.Flag{
			{Name: "shell", Value: "SHELL", Values: []string{"posix", "powershell", "cmd"}, Help: "the shell the printed commands are for (default: this system's)"},
			{Name: "origin", Value: "URL", Help: "the site the configured bridge serves (default https://www.stitchslop.com)"},
			cli.FJSON,
		},
		Args:     setupArgs(),
		ArgHelp:  "CLIENT",
		Exits:    []cli.Exit{{Code: 0, Meaning: "success"}, {Code: 1, Meaning: "it could not answer: this program's path is unusable, or the answer could not be written"}, {Code: exitcode.Usage, Meaning: "a usage error"}},
		JSONFlag: true,
	},
	{
		Name:     "doctor",
		Synopsis: []string{"doctor [--port N[,N...]] [--config-dir DIR] [--json]"},
		Summary:  "check the config directory, the session files and the ports",
		Long: `doctor checks what the bridge needs: the config directory and its
permissions, pairing.json, the session files of running bridges and
whether they answer, and the ports the tab dials. It prints a finding a
line on stderr; with --json, one JSON document on stdout instead.`,
		Flags: []cli.Flag{
			{Name: "port", Value: "N[,N...]", Help: "the ports to check, instead of 8787-8790"},
			cli.FConfigDir, cli.FJSON,
		},
		Exits:    []cli.Exit{{Code: 0, Meaning: "healthy"}, {Code: 1, Meaning: "something needs fixing"}, {Code: exitcode.Usage, Meaning: "a usage error"}},
		JSONFlag: true,
	},
	{
		Name:     "completion",
		Synopsis: []string{"completion bash|zsh|fish|powershell [stitchslop|stitchslop-bridge]"},
		Summary:  "print a shell completion script",
		Long: `completion prints the completion script of a shell on stdout, for
stitchslop, or for stitchslop-bridge when named. For bash: source <(stitchslop
completion bash); for zsh, write it as _stitchslop into a directory of
$fpath; for fish, into ~/.config/fish/completions/stitchslop.fish; for
PowerShell, add stitchslop completion powershell | Out-String |
Invoke-Expression to $PROFILE. The same with stitchslop-bridge after the
shell, and that name in the file's, completes the bridge.`,
		Args:    shells,
		ArgHelp: "SHELL",
		Exits:   cli.ExitsLocal,
	},
	{
		Name:     "man",
		Synopsis: []string{"man [stitchslop|stitchslop-bridge]"},
		Summary:  "print a manual page (roff) on stdout",
		Long:     `man prints the manual page, section 1, of stitchslop, or of stitchslop-bridge when named, in roff: stitchslop man | man -l -`,
		Args:     programs,
		ArgHelp:  "PROGRAM",
		Exits:    cli.ExitsLocal,
	},
	{
		Name:     "help",
		Synopsis: []string{"help [VERB]"},
		Summary:  "print the help of stitchslop, or of one verb",
		Long:     `help prints the overview, or with VERB that verb's help, on stdout. VERB --help does the same.`,
		ArgHelp:  "VERB",
		Exits:    cli.ExitsLocal,
	},
	{
		Name:     "version",
		Synopsis: []string{"version [--json]", "--version"},
		Summary:  "print the version",
		Long: `version prints one line: the version, the wire protocol, the Go version, the platform and, when known, the commit.
With --json, one JSON document on stdout instead: name, version, commit, os, arch and the SHA-256 of
this executable file (sha256, or sha256Error saying why it is unknown), to hold against a release's
checksums.txt (stitchslop-verify --installed does that).`,
		Flags:    []cli.Flag{cli.FJSON},
		Exits:    cli.ExitsLocal,
		JSONFlag: true,
	},
}

// overview is what --help and help print.
func overview() string {
	var b strings.Builder
	b.WriteString(`stitchslop holds the tools a person runs by hand beside stitchslop-bridge,
the bridge an agent runs: a demo to try the bridge without a Stitch Slop
account, how to add the bridge to an agent, a check of this machine, the
voice listener, shell completions and the manual. It drives a bridge only
as any shell does, through its session files and control plane, or, for
the demo, by starting the stitchslop-bridge binary installed beside it.

usage:
  stitchslop VERB [ARGS] [flags]

Verbs:
`)
	for _, c := range commands[1:] {
		b.WriteString("  " + pad(c.Name, 12) + c.Summary + "\n")
	}
	b.WriteString(`
Exit status: 0 on success, 64 for a usage error; each verb's help lists
its own.

Run 'stitchslop help VERB' or 'stitchslop VERB --help' for a verb's
arguments and flags, and 'stitchslop-bridge help' for the bridge and its
shell verbs (status, tools, wait, call, pair, unpair).
`)
	return b.String()
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s + " "
	}
	return s + strings.Repeat(" ", n-len(s))
}
