package e2e

// Port messages (issue 29): a bridge that finds none of its ports free
// names the ports it was asked for, as asked, and the holder when it is a
// bridge of this user; every exit status it has is in its help.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestNewcomer_BusyPortNamesThePortsAskedFor: --port P held by another
// program: exit 2, and the lsof line is for P, not the default four.
func TestNewcomer_BusyPortNamesThePortsAskedFor(t *testing.T) {
	t.Parallel()
	p := heldPort(t)
	b := startBridge(t, bridgeOpts{port: p, token: newToken(), expectExit: true})
	if code := b.awaitExit(); code != 2 {
		t.Errorf("--port %d held: exit %d, want 2", p, code)
	}
	out := b.stderr.String()
	if want := fmt.Sprintf("`lsof -nP -iTCP:%d -sTCP:LISTEN`", p); !strings.Contains(out, want) || strings.Contains(out, "8787") {
		t.Errorf("--port %d held: stderr\n%s\nwant the hint %s and nothing of 8787-8790", p, out, want)
	}
}

// TestNewcomer_BusyPortListNamesOwnBridge: --port A,B where a bridge of
// this user holds A and another program B: exit 2; the list is printed as
// given, not as a range "A-B"; A's holder is named with its pid, and the
// lsof line is for B alone.
func TestNewcomer_BusyPortListNamesOwnBridge(t *testing.T) {
	t.Parallel()
	first := startBridge(t, bridgeOpts{token: newToken()})
	a, other := first.port, heldPort(t)
	second := startBridge(t, bridgeOpts{port: -1, configDir: first.configDir, token: newToken(), expectExit: true,
		args: []string{"--port", fmt.Sprintf("%d,%d", a, other)}})
	if code := second.awaitExit(); code != 2 {
		t.Errorf("--port %d,%d both busy: exit %d, want 2", a, other, code)
	}
	out := second.stderr.String()
	for _, want := range []string{
		fmt.Sprintf("none of ports %d, %d on 127.0.0.1 is free", a, other),
		fmt.Sprintf("%d (held by your bridge for %q, pid %d)", a, testOrigin, first.pid()),
		fmt.Sprintf("your bridge on port %d (pid %d) is running", a, first.pid()),
		fmt.Sprintf("`lsof -nP -iTCP:%d -sTCP:LISTEN`", other),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--port %d,%d both busy: stderr\n%s\nwant %q", a, other, out, want)
		}
	}
	if strings.Contains(out, fmt.Sprintf("%d-%d", a, other)) || strings.Contains(out, "8787") {
		t.Errorf("--port %d,%d both busy: stderr\n%s\nprints the list as a range, or names the default ports", a, other, out)
	}
	first.mustRun()
}

// TestNewcomer_DemoBusyPortExitDocumented: demo with its one port held
// exits 2, names that port, and its help lists 2, as every command's help
// lists each status the command exits with.
func TestNewcomer_DemoBusyPortExitDocumented(t *testing.T) {
	t.Parallel()
	p := heldPort(t)
	r := runCLI(t, "demo", "--port", strconv.Itoa(p), "--config-dir", t.TempDir()+"/cfg")
	if r.code != 2 || !strings.Contains(r.stderr, fmt.Sprintf("-iTCP:%d ", p)) {
		t.Errorf("demo --port %d held: exit %d, stderr\n%s\nwant exit 2 and the lsof line for %d", p, r.code, r.stderr, p)
	}
	for _, verb := range []string{"demo", ""} {
		args := []string{"--help"}
		if verb != "" {
			args = []string{verb, "--help"}
		}
		h := runCLI(t, args...)
		if !regexp.MustCompile(`(?m)^  2 +\S`).MatchString(h.stdout) {
			t.Errorf("stitchslop-bridge %s --help lists no exit status 2:\n%s", verb, h.stdout)
		}
	}
}
