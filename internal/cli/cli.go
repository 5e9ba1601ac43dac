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
	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/paths"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/envtoken"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

// Defaults.
const (
	DefaultOrigin           = "https://www.stitchslop.com"
	OriginEnv               = "STITCHSLOP_ORIGIN"
	DefaultAgentIdleMinutes = 120
	DefaultIdleMinutes      = 30 // protocol.md §2.7
)

const usage = `usage:
  stitchslop-bridge --origin URL [--port N[,N...]] [--config-dir DIR] [--idle-minutes M] [--agent-idle-minutes M] [--takeover] [--lazy]
  stitchslop-bridge [--port N] [--config-dir DIR] status | tools | wait [SECONDS] | call COMMAND [JSON-ARGS] [--file KEY=PATH]... [--file-text KEY=PATH]...
                    [--out FILE] [--save DIR [--text-file NAME]] [--overwrite] [--timeout SECONDS] [--raw]
  stitchslop-bridge [--port N] [--config-dir DIR] pair [-] [--origin URL]
  stitchslop-bridge [--port N] [--config-dir DIR] listen [--owner PID]
  stitchslop-bridge [--config-dir DIR] unpair ORIGIN | unpair --all
  stitchslop-bridge --version

The first form runs the bridge: the Stitch Slop tab at URL dials it on
127.0.0.1 (first free of 8787-8790, or --port), and an MCP client may drive it
on stdin/stdout. The one-time token comes from the STITCHSLOP_TOKEN
environment variable, never from a flag; once paired, none is needed.

The second form drives a bridge that is already running, from any shell.
It prints one JSON document on stdout and exits 0 only when it says ok:true;
1 for a refusal or a failed command, 3 when no bridge is running (or several
are and --port does not say which), 64 for a usage error. A bridge that
does not answer in time is a failure (1): in 15 s for status and tools;
for wait and call, in their own time plus 10 s.

call moves files by path, so their bytes never pass through the caller.
--file and --file-text put a file into the command's arguments: only
images (known by their bytes) and design files of at most 14 MB, never a
hidden one; if one is refused, nothing is sent. --save writes the files of
the reply into DIR under their bare names, never a path, a hidden name or
a script, and exits 1 if any was refused. Neither --out nor --save
replaces a file that exists unless --overwrite is given.

pair gives a running bridge a one-time token from the Stitch Slop agent
panel, for the tab of the site --origin names (default: the one the bridge
was started for; a Stitch Slop site or one on localhost). The token comes
from STITCHSLOP_TOKEN, or from the first line of stdin with "-" or without
the variable; never from the command line. The tab, which keeps dialling,
pairs with it within seconds; a tab that is paired already does not need
it, and it stays unspent.

listen prints what the user says to the tab, a JSON line each
({"heard","atMs","selection"}), and events ({"event":"connected",
"disconnected", "voice-on", "voice-off" or "unavailable"}), asking the tab's
voice.listen again and again and waiting while no tab is attached. It ends
with exit 0 when the process --owner names (default: the bridge) is gone,
and with exit 1 when the tab refuses.

unpair revokes: it removes the stored pairing secrets of ORIGIN, or of every
site with --all, from pairing.json, and keeps every spent token spent. It
needs no running bridge. A bridge already serving that site keeps its tab
until the tab disconnects; the tab's next handshake with the removed secret
is refused. It prints one JSON document too, with the same exit codes.

Flags:
  --origin URL              the site to serve (default $STITCHSLOP_ORIGIN, then https://www.stitchslop.com); another allowed
                            site (a Stitch Slop site, or localhost on any port) is admitted only once it is paired or given a token;
                            with pair: the site of the tab the token is for
  --lazy                    listen on nothing, and need no token or pairing, until an MCP client calls wait_for_connection or pair
  --port N[,N...]           the bridge: the ports to try, in order, instead of 8787-8790;
                            a shell verb: the one bridge to drive
  --idle-minutes M          exit after M minutes if no tab ever attached and no MCP client owns the bridge (default 30; fractions allowed; 0 never)
  --takeover                a new tab displaces the attached one (which is told so) instead of being refused as busy
  --config-dir DIR          where pairings and session files live (default ~/.stitchslop)
  --agent-idle-minutes M    run standalone: exit after M minutes with no agent (default 120; fractions allowed; 0 never)
  --exit-when-unused M      the same as --agent-idle-minutes
  --out FILE                with call: write the reply's image to FILE
  --file KEY=PATH           with call: put the file at PATH, as a data URL, into the argument KEY (a.b.c for a nested one)
  --file-text KEY=PATH      with call: put the file's UTF-8 text (.svg .dxf .stitchslop .json) into KEY; up to 4 files in all
  --save DIR                with call: write each of the reply's files into DIR, an existing folder, under its own name
  --text-file NAME          with --save: write the reply's text there as NAME too
  --overwrite               with --out or --save: replace a file that exists
  --timeout SECONDS         with call: how long the tab may take to answer (default 60; 1 to 600; fractions allowed)
  --raw                     with call: print the reply whole; without it, a string over 100,000 characters
                            or a data URL over 2,048 is replaced by a note saying what was there
  --all                     with unpair: remove the pairings of every site
  --owner PID               with listen: stop when this process is gone (default: the bridge)
  --version                 print the version and wire protocol, and exit
`

// flagSpec says whether a flag takes a value.
var flagSpec = map[string]bool{
	"origin": true, "port": true, "config-dir": true, "agent-idle-minutes": true,
	"exit-when-unused": true, "out": true, "timeout": true, "version": false, "help": false, "h": false,
	"all": false, "idle-minutes": true, "takeover": false, "raw": false, "lazy": false, "owner": true,
	"file": true, "file-text": true, "save": true, "text-file": true, "overwrite": false,
}

// repeatable are the flags that may be given more than once; their values
// are kept in args.list, in order.
var repeatable = map[string]bool{"file": true, "file-text": true}

// callFlags go with the call verb alone.
var callFlags = []string{"out", "timeout", "raw", "file", "file-text", "save", "text-file", "overwrite"}

type args struct {
	flags map[string]string // the last value of each flag given
	list  []flagValue       // every value of the repeatable flags, in order
	pos   []string
}

// flagValue is one occurrence of a repeatable flag.
type flagValue struct{ name, val string }

func parse(argv []string) (args, error) {
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
		takes, known := flagSpec[name]
		if !known {
			return a, fmt.Errorf("unknown flag %s", strings.SplitN(s, "=", 2)[0])
		}
		if _, dup := a.flags[name]; dup && !repeatable[name] {
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
		a.flags[name] = val
		if repeatable[name] {
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

// Main runs the program and returns its exit code.
func Main(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	log := ui.NewLogger(stderr)
	if err := envtoken.CheckArgs(argv); err != nil {
		log.Error(err.Error())
		return client.ExitUsage
	}
	a, err := parse(argv)
	if err != nil {
		return usageError(log, err.Error())
	}
	if a.has("help") || a.has("h") {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if a.has("version") {
		fmt.Fprintln(stdout, version.Line())
		return 0
	}
	dir, err := configDir(a)
	if err != nil {
		return usageError(log, err.Error())
	}
	if len(a.pos) > 0 && a.pos[0] == "demo" {
		return runDemo(ctx, a, dir, log)
	}
	if len(a.pos) > 0 {
		return runVerb(ctx, a, dir, stdin, stdout, log)
	}
	return runBridge(ctx, a, dir, stdin, stdout, log)
}

func usageError(log *slog.Logger, msg string) int {
	log.Error(msg)
	ui.Hint(log, "see stitchslop-bridge --help")
	return client.ExitUsage
}

func configDir(a args) (string, error) {
	dir, ok := a.flags["config-dir"]
	if !ok {
		return paths.DefaultConfigDir(), nil
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
	for _, f := range callFlags {
		if a.has(f) {
			return usageError(log, "--"+f+" goes with the call verb")
		}
	}
	if a.has("all") {
		return usageError(log, "--all goes with the unpair verb")
	}
	if a.has("owner") {
		return usageError(log, "--owner goes with the listen verb")
	}
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
	return bridgeExit(log, bridge.Run(ctx, bridge.Config{
		Origin:    o,
		Ports:     ports,
		ConfigDir: dir,
		Idle:      idle,
		AgentIdle: agentIdle,
		Takeover:  a.has("takeover"),
		Lazy:      a.has("lazy"),
		Token:     envtoken.Take(),
		Stdin:     stdin,
		Stdout:    stdout,
		Log:       log,
	}))
}

// bridgeExit reports how a bridge ended and returns its exit code.
func bridgeExit(log *slog.Logger, err error) int {
	var ee *bridge.ExitError
	switch {
	case err == nil:
		return bridge.ExitOK
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
