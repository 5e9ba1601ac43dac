package toolbox

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/cli"
)

// The names the moved verbs were written with, from the command-line
// package both programs are built on.
type (
	args    = cli.Args
	command = cli.Command
)

var (
	mistake = cli.Mistake
	emitDoc = cli.EmitDoc
)

// Main runs stitchslop and returns its exit code.
func Main(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Program.Main(ctx, argv, stdin, stdout, stderr)
}

// dispatch runs one of stitchslop's verbs; Program.Main has parsed the command
// line and checked its flags, and runs help and version itself.
func dispatch(ctx context.Context, c *command, a args, dir string, stdin io.Reader, stdout io.Writer, log *slog.Logger) int {
	switch c.Name {
	case "demo":
		return runDemo(ctx, c, a, dir, stdout, log)
	case "setup":
		return runSetup(ctx, a, stdout, log)
	case "doctor":
		return runDoctor(ctx, a, dir, stdout, log)
	case "listen":
		return runListen(ctx, c, a, dir, stdout, log)
	case "completion":
		return runCompletion(log, stdout, c, a)
	case "man":
		return runMan(log, stdout, c, a)
	}
	// No verb: what the program holds.
	io.WriteString(stdout, overview())
	return 0
}

var (
	portsFlag = cli.PortsFlag
	portFlag  = cli.PortFlag
	stderrOf  = cli.StderrOf
)

// lookup is stitchslop's command named name.
func lookup(name string) *command { return Program.Lookup(name) }

// The voice listener drives a bridge as the shell verbs do.
type callBody = cli.CallBody

var (
	fail     = cli.Fail
	usageErr = cli.UsageErr
	quiet    = cli.Quiet
	door     = cli.Door
)

// timeouts are the shell verbs' request timeouts.
var timeouts = struct{ quick, margin time.Duration }{cli.QuickTimeout, cli.AnswerMargin}
