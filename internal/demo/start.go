package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/stitchslop/stitchslop-bridge/security/envtoken"
)

// BridgeExit is the demo's end when its bridge exited with a failure: the
// bridge has said why on the shared stderr, and its status is the demo's.
type BridgeExit struct{ Code int }

func (e *BridgeExit) Error() string {
	return "the demo's bridge exited with status " + strconv.Itoa(e.Code)
}

// listeningLine is the bridge's line once it listens (protocol.md §2.1).
var listeningLine = regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+) `)

// runBridge runs the demo's bridge as a child until ctx ends or it exits,
// the token in its environment (never on its command line), its pairings
// the demo's alone (--demo, --pairing-dir; THREAT_MODEL.md T17). Its stdin
// is a pipe the demo never writes, whose end, when the demo stops or is
// killed, stops a --demo bridge.
func runBridge(ctx context.Context, o Options, site, token, pairDir string, listening func(port, pid int)) error {
	args := []string{"--demo", "--origin", site, "--config-dir", o.ConfigDir, "--pairing-dir", pairDir,
		"--idle-minutes", "0", "--agent-idle-minutes", "0"}
	if len(o.Ports) > 0 {
		ps := make([]string, len(o.Ports))
		for i, p := range o.Ports {
			ps[i] = strconv.Itoa(p)
		}
		args = append(args, "--port", strings.Join(ps, ","))
	}
	cmd := exec.CommandContext(ctx, o.Bridge, args...)
	cmd.Env = append(withoutToken(os.Environ()), envtoken.Var+"="+token)
	cmd.Cancel = func() error { return stop(cmd.Process) }
	// The bridge's own seconds to close its tab and remove its session
	// file; past them it is killed.
	cmd.WaitDelay = 10 * time.Second
	// Held open until this process exits; its end is the bridge's.
	if _, err := cmd.StdinPipe(); err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("demo: cannot start the bridge %s: %w", o.Bridge, err)
	}
	passThrough(stderr, o.Stderr, func(port int) { listening(port, cmd.Process.Pid) })
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil, ctx.Err() != nil:
		return nil // it stopped cleanly, or as the demo was stopped
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return &BridgeExit{Code: ee.ExitCode()}
	}
	return fmt.Errorf("demo: the bridge: %w", err)
}

// stop ends the bridge as SIGTERM does: it closes its tab and removes its
// session file. Windows has no such signal to send; there it is killed,
// and the next shell verb or bridge removes its stale session file.
func stop(p *os.Process) error {
	if runtime.GOOS == "windows" {
		return p.Kill()
	}
	return p.Signal(syscall.SIGTERM)
}

// passThrough copies the bridge's stderr to the demo's, line by line, and
// calls listening at each listening line, until the bridge closes it.
func passThrough(r io.Reader, w io.Writer, listening func(int)) {
	if w == nil {
		w = os.Stderr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		w.Write([]byte(line + "\n"))
		if m := listeningLine.FindStringSubmatch(line); m != nil {
			if p, err := strconv.Atoi(m[1]); err == nil {
				listening(p)
			}
		}
	}
	io.Copy(io.Discard, r) // a line past the bound: the rest unread would block the bridge
}

// withoutToken is env less any token of the demo's own caller.
func withoutToken(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, envtoken.Var+"=") {
			out = append(out, kv)
		}
	}
	return out
}
