package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
)

// The one definition of the command line. The parser's flag table, the
// check of which flag goes with which verb, --help, `help VERB`, the man
// page and the shell completions are all made from commands; a flag or a
// verb added here is parsed, checked, documented and completed.

// flagDef is one flag of one command.
type flagDef struct {
	Name   string // without the dashes
	Value  string // the value's name in help, e.g. "N[,N...]"; "" for a switch
	Help   string
	Repeat bool     // may be given more than once
	Files  string   // what a shell completes its value with: "dir", "file" or ""
	Values []string // or the fixed words it takes
}

// exitDef is one exit status of a command.
type exitDef struct {
	Code    int
	Meaning string
}

// command is one form of the command line: the bridge (Name ""), or a verb.
type command struct {
	Name     string
	Synopsis []string // each after the program's name
	Summary  string   // one line, lowercase, no period
	Long     string   // paragraphs, wrapped at 76 columns
	Flags    []flagDef
	Args     []string // fixed words a shell completes the arguments with
	ArgHelp  string   // what the arguments are, for completions: "VERB", "SHELL"
	Exits    []exitDef
	// JSON says the verb always prints one JSON document on stdout, a
	// usage error included; JSONFlag that it does when --json is given.
	JSON, JSONFlag bool
	// FlagHints add a hint when a flag is refused with this command.
	FlagHints map[string]string

	prog *Program // the program the command is of (NewProgram sets it)
}

// Flags shared by several commands, of both programs; a command may reword
// the help.
var (
	FPort = flagDef{Name: "port", Value: "N",
		Help: "the one bridge to drive, when several run (default: the only one)"}
	FConfigDir = flagDef{Name: "config-dir", Value: "DIR", Files: "dir",
		Help: "where pairings and session files live (default ~/.stitchslop)"}
	FJSON = flagDef{Name: "json", Help: "print the result as one JSON document on stdout"}
	// fJSONAlways is --json for a verb that prints one JSON document
	// anyway: a script that asks for JSON of every verb is not refused.
	fJSONAlways = flagDef{Name: "json", Help: "accepted, and changes nothing: the output is one JSON document anyway"}
)

// Exit statuses shared by several commands.
var (
	ExitsVerb = []exitDef{
		{exitcode.OK, "the reply says ok:true (and call's --out and --save wrote all of it)"},
		{exitcode.Failed, "a refusal, a failed command, a bridge that did not answer in time, or an ok:true reply that --out or --save did not write whole (each part not written has an error member saying why)"},
		{exitcode.NoBridge, "no bridge is running, its session file is stale, or several run and --port does not say which"},
		{exitcode.Usage, "a usage error"},
		{exitcode.Interrupted, "interrupted (Ctrl-C) before the bridge answered; a call may still run in the tab"},
	}
	ExitsLocal = []exitDef{{0, "success"}, {exitcode.Usage, "a usage error"}}
)

// Bridge is the bridge's command line, stitchslop-bridge.
var Bridge = NewProgram(&Program{
	Name:          "stitchslop-bridge",
	NoVerb:        "starting the bridge",
	Commands:      commands,
	Overview:      overview,
	Elsewhere:     []string{"demo", "setup", "doctor", "listen", "completion", "man"},
	ElsewhereProg: "stitchslop",
})

// Run refers to Bridge through the verbs' messages, so it is set once
// Bridge is.
func init() { Bridge.Run = runBridgeCommand }

// commands are the bridge's, in the order help lists them.
var commands = []*command{
	{
		Name: "",
		Synopsis: []string{
			"[--origin URL] [--port N[,N...]] [--config-dir DIR] [--idle-minutes M] [--agent-idle-minutes M] [--takeover] [--lazy] [--voice-channel] [--demo] [--pairing-dir DIR]",
		},
		Summary: "run the bridge: the tab dials it, an MCP client drives it on stdin/stdout",
		Long: `With no verb, stitchslop-bridge runs the bridge: the Stitch Slop tab at
--origin dials it on 127.0.0.1 (the first free of 8787-8790, or --port),
and an MCP client may drive it on stdin/stdout. The one-time token comes
from the STITCHSLOP_TOKEN environment variable, never from a flag; once
the site is paired, none is needed.`,
		Flags: []flagDef{
			{Name: "origin", Value: "URL", Help: "the site to serve (default $STITCHSLOP_ORIGIN, then https://www.stitchslop.com); another allowed site (a Stitch Slop site, or localhost on any port) is admitted only once it is paired or given a token"},
			{Name: "port", Value: "N[,N...]", Help: "the ports to try, in order, instead of 8787-8790"},
			FConfigDir,
			{Name: "idle-minutes", Value: "M", Help: "exit after M minutes if no tab ever attached and no MCP client owns the bridge (default 30; fractions allowed; 0 never)"},
			{Name: "agent-idle-minutes", Value: "M", Help: "run standalone: exit after M minutes with no agent (default 120; fractions allowed; 0 never)"},
			{Name: "exit-when-unused", Value: "M", Help: "the same as --agent-idle-minutes"},
			{Name: "takeover", Help: "a new tab displaces the attached one (which is told so) instead of being refused as busy"},
			{Name: "lazy", Help: "listen on nothing, and need no token or pairing, until an MCP client calls wait_for_connection or pair"},
			{Name: "voice-channel", Help: "hear the tab's voice for the MCP session: declare Claude Code's claude/channel and send each utterance as a channel event (Claude Code started with --dangerously-load-development-channels server:<name>)"},
			{Name: "demo", Help: "run as the bridge of stitchslop demo, which starts it so: its pairings are a demo's, which no other bridge admits, and it stops when its stdin (the demo's pipe) ends"},
			{Name: "pairing-dir", Value: "DIR", Files: "dir", Help: "keep pairing.json, its lock and the spent-token ledger in DIR instead of the config dir (stitchslop demo gives its bridge a throwaway one)"},
		},
		Exits: []exitDef{
			{0, "the bridge stopped: its MCP client left, it was idle, or a signal"},
			{1, "it could not start: no token and no pairing for the site, an unusable config dir, or another error"},
			{exitcode.CannotBind, "none of its ports is free: each is held by another program (named when it is a bridge of yours), or another user listens there"},
			{exitcode.Usage, "a usage error, or a STITCHSLOP_TOKEN that cannot be a token"},
		},
	},
	{
		Name:     "status",
		Synopsis: []string{"status [--json] [--port N] [--config-dir DIR]"},
		Summary:  "say whether a bridge runs and a tab is attached",
		Long: `status asks the running bridge what it serves and whether a tab is
attached, and prints its answer as one JSON document. The bridge must
answer within 15 s.`,
		Flags: []flagDef{fJSONAlways, FPort, FConfigDir},
		Exits: ExitsVerb,
		JSON:  true,
	},
	{
		Name:     "tools",
		Synopsis: []string{"tools [--json] [--port N] [--config-dir DIR]"},
		Summary:  "list the commands the attached tab offers",
		Long: `tools prints the commands the attached tab offers, with their argument
schemas, as one JSON document. The bridge must answer within 15 s.`,
		Flags: []flagDef{fJSONAlways, FPort, FConfigDir},
		Exits: ExitsVerb,
		JSON:  true,
	},
	{
		Name:     "wait",
		Synopsis: []string{"wait [SECONDS] [--json] [--port N] [--config-dir DIR]"},
		Summary:  "wait until a tab is attached",
		Long: `wait returns as soon as a tab is attached, or after SECONDS (default 120;
the bridge waits at most 600), with ok:false and error "timeout". The
bridge gets SECONDS plus 10 s to answer. On a terminal, stderr counts
the seconds.`,
		Flags: []flagDef{fJSONAlways, FPort, FConfigDir},
		Exits: ExitsVerb,
		JSON:  true,
	},
	{
		Name: "call",
		Synopsis: []string{
			"call COMMAND [JSON-ARGS] [--file KEY=PATH]... [--file-text KEY=PATH]... [--out FILE] [--save DIR [--text-file NAME]] [--overwrite] [--timeout SECONDS] [--raw] [--json] [--port N] [--config-dir DIR]",
		},
		Summary: "run one of the tab's commands and print its reply",
		Long: `call runs COMMAND in the attached tab with JSON-ARGS, a JSON object
(default {}), and prints the tab's reply as one JSON document. The bridge
gets the command's own time (--timeout, default 60 s) plus 10 s to
answer. On a terminal, stderr counts the seconds.

call moves files by path, so their bytes never pass through the caller.
--file and --file-text put a file into the command's arguments: only
images (known by their bytes) and design files of at most 14 MB, never a
hidden one; if one is refused, nothing is sent.

--out FILE writes the reply's image (its dataUrl) to FILE, an image name
(.png .jpg .jpeg .gif .webp) in an existing folder; the bytes must be that
image, so a design goes through --save. --save DIR writes the files of the
reply (its files list, each {name, dataUrl}) into DIR, a folder that may be
neither hidden nor inside a hidden folder (such as ~/.config or .git), its
symlinks resolved; if DIR is missing it is created, as mkdir -p would,
before the call. --text-file NAME writes the reply's text there too. Both
folders must be yours, and are checked before the call: if one will not
do, nothing is sent. --save writes at most 32 files of one reply, each
under a name the bridge builds: a short stem of the name given,
.stitchslop, and the extension of its kind (rose.dst is saved as
rose.stitchslop.dst), never a path, a hidden name or a script; each file
past the 32nd, or refused, gets an error member in the printed reply, and
call exits 1.

Neither --out nor --save replaces a file that exists unless --overwrite is
given, and then only a regular file. Without it, an --out FILE that
exists is refused before the call, and a file that appears while the call
runs is left as it was and not written.`,
		Flags: []flagDef{
			{Name: "file", Value: "KEY=PATH", Repeat: true, Files: "file", Help: "put the file at PATH, as a data URL, into the argument KEY (a.b.c for a nested one)"},
			{Name: "file-text", Value: "KEY=PATH", Repeat: true, Files: "file", Help: "put the file's UTF-8 text (.svg .dxf .stitchslop .json) into KEY; up to 4 files in all"},
			{Name: "out", Value: "FILE", Files: "file", Help: "write the reply's image to FILE, an image name (.png .jpg .gif .webp) in an existing folder"},
			{Name: "save", Value: "DIR", Files: "dir", Help: "write each of the reply's files (at most 32) into DIR, a folder that is not hidden (created if missing), under a name the bridge builds from its name and kind (rose.dst is saved as rose.stitchslop.dst)"},
			{Name: "text-file", Value: "NAME", Help: "with --save: write the reply's text there too, under a name built from NAME (notes.md as notes.stitchslop.md)"},
			{Name: "overwrite", Help: "with --out or --save: replace a file that exists"},
			{Name: "timeout", Value: "SECONDS", Help: "how long the tab may take to answer (default 60; 1 to 600; fractions allowed)"},
			{Name: "raw", Help: "print the reply whole; without it, a string over 100,000 characters or a data URL over 2,048 is replaced by a note saying what was there"},
			fJSONAlways, FPort, FConfigDir,
		},
		Exits: ExitsVerb,
		JSON:  true,
	},
	{
		Name:     "pair",
		Synopsis: []string{"pair [-] [--origin URL] [--json] [--port N] [--config-dir DIR]"},
		Summary:  "give a running bridge a one-time token from the agent panel",
		Long: `pair gives a running bridge a one-time token from the Stitch Slop agent
panel, for the tab of the site --origin names (default: the one the bridge
was started for; a Stitch Slop site or one on localhost). The token comes
from STITCHSLOP_TOKEN, or from the first line of stdin with "-" or without
the variable; never from the command line. The tab, which keeps dialling,
pairs with it within seconds; a tab that is paired already does not need
it, and it stays unspent.`,
		Flags: []flagDef{
			{Name: "origin", Value: "URL", Help: "the site of the tab the token is for (default: the bridge's own)"},
			fJSONAlways, FPort, FConfigDir,
		},
		Exits: ExitsVerb,
		JSON:  true,
	},
	{
		Name:     "unpair",
		Synopsis: []string{"unpair ORIGIN [--config-dir DIR]", "unpair --all [--config-dir DIR]"},
		Summary:  "remove the stored pairings of a site, or of every site",
		Long: `unpair revokes: it removes the stored pairing secrets of ORIGIN, or of
every site with --all, from pairing.json, and keeps every spent token
spent. It needs no running bridge. A bridge already serving that site
keeps its tab until the tab disconnects; the tab's next handshake with
the removed secret is refused. It prints one JSON document.`,
		Flags: []flagDef{
			{Name: "all", Help: "remove the pairings of every site"},
			FConfigDir,
		},
		Exits: []exitDef{
			{0, "done, or nothing to remove"},
			{1, "pairing.json could not be read or written; nothing was removed"},
			{exitcode.Usage, "a usage error"},
		},
		JSON:      true,
		FlagHints: map[string]string{"origin": "give the site as its argument: unpair https://www.stitchslop.com"},
	},
	{
		Name:     "help",
		Synopsis: []string{"help [VERB]"},
		Summary:  "print the help of stitchslop-bridge, or of one verb",
		Long:     `help prints the overview, or with VERB that verb's help, on stdout. VERB --help does the same.`,
		ArgHelp:  "VERB",
		Exits:    ExitsLocal,
	},
	{
		Name:     "version",
		Synopsis: []string{"version [--json]", "--version"},
		Summary:  "print the version and wire protocol",
		Long: `version prints one line: the version, the wire protocol, the Go version, the platform and, when known, the commit.
With --json, one JSON document on stdout instead: name, version, commit, os, arch and the SHA-256 of
this executable file (sha256, or sha256Error saying why it is unknown), to hold against a release's
checksums.txt (stitchslop-verify --installed does that).`,
		Flags:    []flagDef{FJSON},
		Exits:    ExitsLocal,
		JSONFlag: true,
	},
}

// globalFlags go with every command: they print something and exit.
var globalFlags = []flagDef{
	{Name: "help", Help: "print this help and exit"},
	{Name: "h", Help: "the same as --help"},
	{Name: "version", Help: "print the version and exit"},
}

// flag returns c's flag named name.
func (c *command) flag(name string) (flagDef, bool) {
	for _, f := range c.Flags {
		if f.Name == name {
			return f, true
		}
	}
	return flagDef{}, false
}

// title is how messages name c.
func (c *command) title() string {
	if c.Name == "" {
		return c.prog.NoVerb
	}
	return c.Name
}

// helpRef is the command that prints c's help.
func (c *command) helpRef() string {
	if c.Name == "" {
		return c.prog.Name + " --help"
	}
	return c.prog.Name + " " + c.Name + " --help"
}

// owners lists the commands that take flag name.
func (p *Program) owners(name string) []*command {
	var cs []*command
	for _, c := range p.Commands {
		if _, ok := c.flag(name); ok {
			cs = append(cs, c)
		}
	}
	return cs
}

// refuseFlag says why flag name does not go with c, and what to do instead.
// The wording names where the flag does go: "--out goes with call, not with
// status"; "--all goes with the unpair verb" when starting the bridge.
func refuseFlag(c *command, name string) (msg, hint string) {
	own := c.prog.owners(name)
	var names []string
	for _, o := range own {
		if c.Name == "" {
			names = append(names, o.Name)
		} else {
			names = append(names, o.title())
		}
	}
	hint = c.FlagHints[name]
	switch {
	case c.Name == "" && len(names) == 1:
		return fmt.Sprintf("--%s goes with the %s verb", name, names[0]), hint
	case c.Name == "" && len(names) <= 3:
		return fmt.Sprintf("--%s goes with the %s verbs", name, joinAnd(names)), hint
	case len(names) >= 1 && len(names) <= 3:
		return fmt.Sprintf("--%s goes with %s, not with %s", name, joinAnd(names), c.title()), hint
	}
	return fmt.Sprintf("--%s does not go with %s; %s", name, c.title(), c.takes()), hint
}

// takes says which flags c takes: "it takes --port and --config-dir".
func (c *command) takes() string {
	if len(c.Flags) == 0 {
		return "it takes no flags"
	}
	var fs []string
	for _, f := range c.Flags {
		fs = append(fs, "--"+f.Name)
	}
	return "it takes " + joinAnd(fs)
}

// joinAnd joins words as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// checkFlags refuses the first flag given (in command-line order) that c
// does not take.
func checkFlags(c *command, a args) (msg, hint string, ok bool) {
	for _, name := range a.order {
		if slices.ContainsFunc(globalFlags, func(f flagDef) bool { return f.Name == name }) {
			continue
		}
		if _, takes := c.flag(name); !takes {
			msg, hint = refuseFlag(c, name)
			return msg, hint, false
		}
	}
	return "", "", true
}
