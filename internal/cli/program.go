package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/envtoken"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// The module builds two programs from one command-line definition each:
// stitchslop-bridge (Bridge, this package) and stitchslop, the tools a
// person runs by hand (internal/toolbox), which is built on this package and
// never linked into the bridge. The names below are what toolbox uses.

type (
	Command = command
	Flag    = flagDef
	Exit    = exitDef
	Args    = args
)

// Runner runs command c of a program: everything but help and version,
// which Program.Main runs itself. dir is the config directory.
type Runner func(ctx context.Context, c *Command, a Args, dir string, stdin io.Reader, stdout io.Writer, log *slog.Logger) int

// Program is one command line: its name, its commands (Commands[0], named
// "", runs with no verb) and how it runs them.
type Program struct {
	Name     string
	NoVerb   string // how messages name the run with no verb
	Commands []*Command
	// Overview is what --help and help print.
	Overview func() string
	Run      Runner
	// Elsewhere names the verbs of the module's other program, and that
	// program: such a verb given here is refused with a pointer to it.
	Elsewhere     []string
	ElsewhereProg string

	flagSpec, repeatable map[string]bool
}

func NewProgram(p *Program) *Program {
	p.flagSpec, p.repeatable = map[string]bool{}, map[string]bool{}
	for _, f := range globalFlags {
		p.flagSpec[f.Name] = false
	}
	for _, c := range p.Commands {
		c.prog = p
		for _, f := range c.Flags {
			p.flagSpec[f.Name] = f.Value != ""
			if f.Repeat {
				p.repeatable[f.Name] = true
			}
		}
	}
	return p
}

func (p *Program) Main(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	log := ui.NewLogger(stderr)
	defer ui.Flush(log) // the counts of repeated warnings still held
	if rest, err := envtoken.CheckArgs(argv); err != nil {
		log.Error(err.Error())
		// The command as given, the token moved to the environment; rest
		// holds no token. A word no shell line can carry gets no line, the
		// hint in words instead.
		if line, ok := shellLine(append([]string{p.Name}, rest...)); ok {
			ui.Hint(log, "run it as: "+envtoken.Var+"=<token> "+line)
		} else {
			ui.Hint(log, "run the same command without the token flag and its value, with "+envtoken.Var+"=<token> before it")
		}
		return exitcode.Usage
	}
	a, err := p.parse(argv)
	if err != nil {
		if v := p.guessVerb(argv); p.elsewhere(v) != "" {
			return p.unknownVerb(log, stdout, v) // flags of the other program's verb
		}
		return mistake(log, stdout, p.orFirst(p.lookup(p.guessVerb(argv))), a, err.Error(), "")
	}
	if a.has("help") || a.has("h") {
		return p.runHelp(log, stdout, a.pos)
	}
	if a.has("version") {
		return runVersion(p.Commands[0], a, stdout, log)
	}
	c := p.Commands[0]
	if len(a.pos) > 0 {
		if c = p.lookup(a.pos[0]); c == nil || c.Name == "" {
			return p.unknownVerb(log, stdout, a.pos[0])
		}
	}
	if msg, hint, ok := checkFlags(c, a); !ok {
		return mistake(log, stdout, c, a, msg, hint)
	}
	dir, err := configDir(a)
	if err != nil {
		return mistake(log, stdout, c, a, err.Error(), "")
	}
	ctx = withStderr(ctx, stderr)
	switch c.Name {
	case "help":
		return p.helpTopic(log, stdout, a.pos[1:])
	case "version":
		return runVersion(c, a, stdout, log)
	}
	return p.Run(ctx, c, a, dir, stdin, stdout, log)
}

func (p *Program) orFirst(c *command) *command {
	if c == nil {
		return p.Commands[0]
	}
	return c
}

// lookup returns the command named name, or nil.
func (p *Program) lookup(name string) *command {
	for _, c := range p.Commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (p *Program) Lookup(name string) *Command { return p.lookup(name) }

// verbNames lists the verbs, the run with no verb left out.
func (p *Program) verbNames() []string {
	var names []string
	for _, c := range p.Commands[1:] {
		names = append(names, c.Name)
	}
	return names
}

func (p *Program) VerbNames() []string { return p.verbNames() }

// elsewhere is the pointer for a verb of the other program, or "".
func (p *Program) elsewhere(word string) string {
	for _, v := range p.Elsewhere {
		if v == word {
			return fmt.Sprintf("%s is a verb of %s, not of %s: run %s %s", v, p.ElsewhereProg, p.Name, p.ElsewhereProg, v)
		}
	}
	return ""
}

// shellLine joins words into a line that a POSIX shell, zsh and fish each
// read as the same words: each in single quotes unless it is plain, a
// quote in it closed, escaped and reopened; a word starting with = is
// quoted too (zsh expands =cmd to its path). It gives no line (false) when
// a word holds a backslash (fish reads a backslash before a quote inside
// quotes as an escape, so the quotes would pair up differently) or a
// character unprintable.Any names (the logger would print it escaped, and
// the pasted line would not be the one meant).
func shellLine(words []string) (string, bool) {
	var q []string
	for _, w := range words {
		if strings.ContainsRune(w, '\\') || unprintable.Any(w) {
			return "", false
		}
		plain := w != "" && w[0] != '='
		for _, r := range w {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
				plain = false
			}
		}
		if !plain {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		q = append(q, w)
	}
	return strings.Join(q, " "), true
}

// Forwarders for toolbox, each the lower-case function of this package
// the shell verbs use (verbs.go, cli.go, gate.go), so stitchslop's verbs
// behave as the bridge's do. Args.Pos holds the verb first; Args.Flag is
// a flag's last value.

func Mistake(log *slog.Logger, stdout io.Writer, c *Command, a Args, msg, hint string) int {
	return mistake(log, stdout, c, a, msg, hint)
}

func (a args) Pos() []string { return a.pos }

func (a args) Has(name string) bool { return a.has(name) }

func (a args) Flag(name string) (string, bool) { v, ok := a.flags[name]; return v, ok }

func PortsFlag(a Args) ([]int, error) { return portsFlag(a) }

func PortFlag(a Args) (int, error) { return portFlag(a) }

func StderrOf(ctx context.Context) io.Writer { return stderrOf(ctx) }

func EmitDoc(w io.Writer, doc []byte) { emitDoc(w, doc) }

type CallBody = callBody

const (
	QuickTimeout = quickTimeout
	AnswerMargin = answerMargin
)

func Fail(log *slog.Logger, stdout io.Writer, c *Command, a Args, err error) int {
	return fail(log, stdout, c, a, err)
}

func UsageErr(format string, v ...any) error { return usageErr(format, v...) }

func Quiet(log *slog.Logger, err error) *client.Error { return quiet(log, err) }

func Door(env []byte, err error) (envelope.Reply, error) { return door(env, err) }
