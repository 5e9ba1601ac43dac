// Package cli parses the command line and runs either the bridge or one of
// the shell verbs that drive a running bridge (protocol.md §1, §4.4).
//
// It is the only package that decides exit codes; nothing below it exits.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/bridge"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/paths"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/envtoken"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

// Defaults.
const (
	DefaultOrigin           = "https://www.stitchslop.com"
	OriginEnv               = "STITCHSLOP_ORIGIN"
	DefaultAgentIdleMinutes = 120
	DefaultIdleMinutes      = 30 // protocol.md §2.7
)

type args struct {
	flags map[string]string // the last value of each flag given
	list  []flagValue       // every value of the repeatable flags, in order
	order []string          // the flags given, in order, each once
	pos   []string
}

// flagValue is one occurrence of a repeatable flag.
type flagValue struct{ name, val string }

func (p *Program) parse(argv []string) (args, error) {
	a := args{flags: map[string]string{}}
	for i := 0; i < len(argv); i++ {
		s := argv[i]
		if s == "--" {
			a.pos = append(a.pos, argv[i+1:]...)
			break
		}
		if !strings.HasPrefix(s, "-") || s == "-" || isNumber(s) {
			a.pos = append(a.pos, s)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(s, "-"), "=")
		takes, known := p.flagSpec[name]
		if !known {
			return a, fmt.Errorf("unknown flag %s", strings.SplitN(s, "=", 2)[0])
		}
		if _, dup := a.flags[name]; dup && !p.repeatable[name] {
			return a, fmt.Errorf("flag --%s given twice", name)
		}
		switch {
		case takes && !hasVal:
			if i+1 >= len(argv) {
				return a, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			val = argv[i]
		case !takes && hasVal:
			return a, fmt.Errorf("flag --%s takes no value", name)
		}
		if _, seen := a.flags[name]; !seen {
			a.order = append(a.order, name)
		}
		a.flags[name] = val
		if p.repeatable[name] {
			a.list = append(a.list, flagValue{name, val})
		}
	}
	return a, nil
}

// isNumber lets a negative number through as a positional (wait -1 is then
// refused by the verb with a clear message, not as an unknown flag).
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func (a args) has(name string) bool { _, ok := a.flags[name]; return ok }

// runBridgeCommand runs the bridge (no verb) or one of its verbs.
func runBridgeCommand(ctx context.Context, c *command, a args, dir string, stdin io.Reader, stdout io.Writer, log *slog.Logger) int {
	if c.Name == "" {
		return runBridge(ctx, a, dir, stdin, stdout, log)
	}
	return runVerb(ctx, c, a, dir, stdin, stdout, log)
}

// runVersion is version and --version.
func runVersion(c *command, a args, stdout io.Writer, log *slog.Logger) int {
	name := c.prog.Name
	if len(a.pos) > 1 {
		return mistake(log, stdout, c, a, "version takes no arguments", "")
	}
	if a.has("json") {
		// No bound worth the name: the hash is all this command does.
		b, _ := gate.Marshal(version.SelfOf(name, time.Minute))
		stdout.Write(append(b, '\n'))
		return 0
	}
	fmt.Fprintln(stdout, version.LineOf(name))
	return 0
}

// usageError reports a mistake on the bridge's command line.
func usageError(log *slog.Logger, msg string) int {
	return mistake(log, io.Discard, Bridge.Commands[0], args{}, msg, "")
}

// mistake reports a usage error: the error and its hints on stderr, and,
// for a verb that always prints a JSON document (or was asked to with
// --json), a usage envelope on stdout.
func mistake(log *slog.Logger, stdout io.Writer, c *command, a args, msg, hint string) int {
	log.Error(msg)
	if hint != "" {
		ui.Hint(log, hint)
	}
	ui.Hint(log, "see "+c.helpRef())
	if c.JSON || (c.JSONFlag && a.has("json")) {
		stdout.Write(append(envelope.Bridge("usage", msg), '\n'))
	}
	return exitcode.Usage
}

// guessVerb is the verb a command line that does not parse names, if any:
// its first word that is not a flag or a flag's value.
func (p *Program) guessVerb(argv []string) string {
	for i := 0; i < len(argv); i++ {
		s := argv[i]
		if s == "--" || s == "-" {
			return ""
		}
		if !strings.HasPrefix(s, "-") {
			return s
		}
		name, _, hasVal := strings.Cut(strings.TrimLeft(s, "-"), "=")
		if p.flagSpec[name] && !hasVal {
			i++
		}
	}
	return ""
}

// unknownVerb refuses a first word that names no verb. A word that looks
// like a token is not repeated: the command line is no place for it.
func (p *Program) unknownVerb(log *slog.Logger, stdout io.Writer, word string) int {
	msg := fmt.Sprintf("unknown verb %q", origin.Clip(word))
	hint := ""
	if _, ok := sites.CleanToken(word); ok || strings.HasPrefix(word, "tok_") {
		msg = "unknown verb: that looks like a token, and a token never goes on the command line, which every process can read through ps"
		hint = "put it in " + envtoken.Var + ", or pipe it to `stitchslop-bridge pair -`"
	} else if e := p.elsewhere(word); e != "" {
		// One line that says where the verb went.
		log.Error(e)
		stdout.Write(append(envelope.Bridge("usage", e), '\n'))
		return exitcode.Usage
	} else if s := p.suggest(word); s != "" {
		hint = "did you mean " + s + "?"
	}
	log.Error(msg)
	if hint != "" {
		ui.Hint(log, hint)
	}
	ui.Hint(log, "the verbs are "+joinAnd(p.verbNames())+"; see "+p.Name+" help")
	// A verb's caller expects one JSON document, whichever verb it meant.
	stdout.Write(append(envelope.Bridge("usage", msg), '\n'))
	return exitcode.Usage
}

// suggest is the verb word was most likely meant to be: one it begins, or
// one within two edits of it.
func (p *Program) suggest(word string) string {
	if word == "" {
		return ""
	}
	best, bestD := "", 3
	for _, v := range p.verbNames() {
		if strings.HasPrefix(v, word) {
			return v
		}
		if d := editDistance(word, v); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, bytes counted.
func editDistance(a, b string) int {
	if len(a) > 64 {
		return len(a) // no verb is near a long word; and it bounds the work
	}
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// runHelp is --help and -h: the help of the verb pos names (help VERB
// --help is VERB's too), or the overview.
func (p *Program) runHelp(log *slog.Logger, stdout io.Writer, pos []string) int {
	switch {
	case len(pos) == 0:
		return p.helpTopic(log, stdout, nil)
	case pos[0] == "help" && len(pos) > 1:
		return p.helpTopic(log, stdout, pos[1:])
	}
	// VERB [ARGS] --help: the verb's help, whatever the arguments.
	return p.helpTopic(log, stdout, pos[:1])
}

// helpTopic is `help [VERB]`; `help all` prints every verb's help.
func (p *Program) helpTopic(log *slog.Logger, stdout io.Writer, topic []string) int {
	switch {
	case len(topic) == 0:
		io.WriteString(stdout, p.Overview())
		return 0
	case len(topic) > 1:
		return mistake(log, stdout, p.lookup("help"), args{}, "help takes one VERB", "")
	case topic[0] == "all":
		io.WriteString(stdout, p.reference())
		return 0
	}
	c := p.lookup(topic[0])
	if c == nil || c.Name == "" {
		return p.unknownVerb(log, io.Discard, topic[0])
	}
	io.WriteString(stdout, helpFor(c))
	return 0
}

func configDir(a args) (string, error) {
	dir, ok := a.flags["config-dir"]
	if !ok {
		return paths.DefaultConfigDir()
	}
	if dir == "" {
		return "", errors.New("--config-dir is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--config-dir %q: %v", dir, err)
	}
	return abs, nil
}

// maxPorts bounds a --port list: the tab only ever tries four.
const maxPorts = 16

// portsFlag reads --port for the bridge: one port, or a comma-separated
// list tried in order. nil means the default scan.
func portsFlag(a args) ([]int, error) {
	s, ok := a.flags["port"]
	if !ok {
		return nil, nil
	}
	var ports []int
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("--port %q: %q is not a port number (1-65535)", s, f)
		}
		if slices.Contains(ports, p) {
			return nil, fmt.Errorf("--port %q names %d twice", s, p)
		}
		ports = append(ports, p)
	}
	if len(ports) > maxPorts {
		return nil, fmt.Errorf("--port %q names %d ports; at most %d", s, len(ports), maxPorts)
	}
	return ports, nil
}

// portFlag reads --port for a shell verb: the one bridge to drive.
func portFlag(a args) (int, error) {
	ports, err := portsFlag(a)
	switch {
	case err != nil:
		return 0, err
	case len(ports) > 1:
		return 0, fmt.Errorf("--port %q: a shell verb drives one bridge; give one port", a.flags["port"])
	case len(ports) == 1:
		return ports[0], nil
	}
	return 0, nil
}

// minutesFlag reads a number of minutes (fractions allowed, 0 or more).
func minutesFlag(a args, name string, def float64) (time.Duration, error) {
	m := def
	if s, ok := a.flags[name]; ok {
		var err error
		m, err = strconv.ParseFloat(s, 64)
		if err != nil || m < 0 || math.IsNaN(m) || math.IsInf(m, 0) || m > 1e6 {
			return 0, fmt.Errorf("--%s %q is not a number of minutes", name, s)
		}
	}
	return time.Duration(m * float64(time.Minute)), nil
}

func runBridge(ctx context.Context, a args, dir string, stdin io.Reader, stdout io.Writer, log *slog.Logger) int {
	version.StartHash() // the hello's identity, ready before a tab attaches
	ports, err := portsFlag(a)
	if err != nil {
		return usageError(log, err.Error())
	}
	o, ok := a.flags["origin"]
	if !ok {
		o = os.Getenv(OriginEnv)
	}
	if o == "" {
		o = DefaultOrigin
	}
	o, err = origin.Parse(o)
	if err != nil {
		return usageError(log, "--origin: "+err.Error())
	}
	agentIdleFlag := "agent-idle-minutes"
	if a.has("exit-when-unused") {
		if a.has(agentIdleFlag) {
			return usageError(log, "--exit-when-unused is another name for --agent-idle-minutes; give one")
		}
		agentIdleFlag = "exit-when-unused"
	}
	agentIdle, err := minutesFlag(a, agentIdleFlag, DefaultAgentIdleMinutes)
	if err != nil {
		return usageError(log, err.Error())
	}
	idle, err := minutesFlag(a, "idle-minutes", DefaultIdleMinutes)
	if err != nil {
		return usageError(log, err.Error())
	}
	pairingDir := ""
	if d, ok := a.flags["pairing-dir"]; ok {
		if d == "" {
			return usageError(log, "--pairing-dir is empty")
		}
		if pairingDir, err = filepath.Abs(d); err != nil {
			return usageError(log, fmt.Sprintf("--pairing-dir %q: %v", d, err))
		}
	}
	return bridgeExit(log, bridge.Run(ctx, bridge.Config{
		Origin:     o,
		Ports:      ports,
		ConfigDir:  dir,
		Idle:       idle,
		AgentIdle:  agentIdle,
		Takeover:   a.has("takeover"),
		Lazy:       a.has("lazy"),
		Voice:      a.has("voice-channel"),
		Demo:       a.has("demo"),
		PairingDir: pairingDir,
		Token:      envtoken.Take(),
		Stdin:      stdin,
		Stdout:     stdout,
		Log:        log,
	}))
}

// bridgeExit reports how a bridge ended and returns its exit code.
func bridgeExit(log *slog.Logger, err error) int {
	var ee *bridge.ExitError
	switch {
	case err == nil:
		return exitcode.OK
	case errors.As(err, &ee):
		log.Error(ee.Error())
		if ee.Hint != "" {
			ui.Hint(log, ee.Hint)
		}
		return ee.Code
	default:
		log.Error(err.Error())
		return 1
	}
}
