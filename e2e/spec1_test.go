package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// §1: --version prints a line with the protocol number to stdout, exit 0.
func TestSpec1_Version(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "--version")
	if r.code != 0 {
		t.Fatalf("--version exit: got %d, want 0; stderr: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "wire protocol 1") {
		t.Errorf("--version stdout: got %q, want one line containing %q", r.stdout, "wire protocol 1")
	}
}

// §1: the token comes from STITCHSLOP_TOKEN only; --token anywhere is a
// usage error that points at the variable and does not echo the value,
// and the hint is the command the user ran with the token moved to the
// environment (not some other command).
func TestSpec1_TokenFlagRefused(t *testing.T) {
	t.Parallel()
	tok := newToken()
	dir := t.TempDir()
	bridge := "hint: run it as: STITCHSLOP_TOKEN=<token> stitchslop-bridge --origin " + testOrigin + " --config-dir " + dir + "\n"
	cases := []struct {
		name string
		args []string
		hint string
	}{
		{"first", []string{"--token", tok, "--origin", testOrigin, "--config-dir", dir}, bridge},
		{"last", []string{"--origin", testOrigin, "--config-dir", dir, "--token", tok}, bridge},
		{"equals", []string{"--origin", testOrigin, "--token=" + tok, "--config-dir", dir}, bridge},
		{"pair", []string{"pair", "--token", tok, "--port", "9401"}, "hint: run it as: STITCHSLOP_TOKEN=<token> stitchslop-bridge pair --port 9401\n"},
		{"lazy", []string{"--lazy", "--token", tok}, "hint: run it as: STITCHSLOP_TOKEN=<token> stitchslop-bridge --lazy\n"},
		// A backslash: fish would read the quoted line differently, so
		// no line, the command said in words.
		{"no line", []string{"--lazy", "--origin", `http://a\b`, "--token", tok}, "hint: run the same command without the token flag and its value, with STITCHSLOP_TOKEN=<token> before it\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, c.args...)
			if r.code != 64 {
				t.Errorf("exit: got %d, want 64", r.code)
			}
			if !strings.Contains(r.stderr, "STITCHSLOP_TOKEN") {
				t.Errorf("stderr %q: got no mention of STITCHSLOP_TOKEN, want one", r.stderr)
			}
			if strings.Contains(r.stderr+r.stdout, tok) {
				t.Errorf("output echoes the token: stdout %q stderr %q", r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, stderrPrefix+c.hint) {
				t.Errorf("stderr %q: want the hint %q", r.stderr, c.hint)
			}
		})
	}
}

// §1: malformed command lines exit 64.
func TestSpec1_UsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
	}{
		{"unknown flag", []string{"--origin", testOrigin, "--config-dir", dir, "--no-such-flag"}},
		{"bad origin", []string{"--origin", "not a url", "--config-dir", dir}},
		{"origin without scheme", []string{"--origin", "://nope", "--config-dir", dir}},
		{"port not a number", []string{"--origin", testOrigin, "--config-dir", dir, "--port", "abc"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, c.args...)
			if r.code != 64 {
				t.Errorf("%v exit: got %d, want 64; stderr: %s", c.args, r.code, r.stderr)
			}
			if strings.TrimSpace(r.stderr) == "" {
				t.Errorf("%v: got empty stderr, want a message", c.args)
			}
			if r.stdout != "" {
				t.Errorf("%v stdout: got %q, want nothing", c.args, r.stdout)
			}
		})
	}
}

// §1: neither a token nor a stored pairing for --origin: exit non-zero (1)
// with a message, and leave no session file behind.
func TestSpec1_NoCredentialExit1(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		seed map[string]any
	}{
		{"empty config dir", nil},
		{"pairing for another origin only", map[string]any{"https://staging.stitchslop.com": pairingFor(newSecret())}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cfg")
			if c.seed != nil {
				seedPairing(t, dir, c.seed)
			}
			b := startBridge(t, bridgeOpts{configDir: dir, expectExit: true})
			if code := b.awaitExit(); code != 1 {
				t.Errorf("exit: got %d, want 1; stderr: %s", code, b.stderr)
			}
			if strings.TrimSpace(b.stderr.String()) == "" {
				t.Errorf("got empty stderr, want a message")
			}
			if exists(sessionPath(dir, b.port)) {
				t.Errorf("session file left behind by a bridge that never served")
			}
		})
	}
}

// §1: a stored pairing alone is enough to start.
func TestSpec1_StoredPairingIsACredential(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	s := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(s)})
	b := startBridge(t, bridgeOpts{configDir: dir})
	p := openPage(t, b.port, false)
	hello := p.handshake(map[string]any{"secret": s})
	wantHello(t, hello, b.port)
	if _, ok := hello.m["pairingSecret"]; ok {
		t.Errorf("hello %s: got pairingSecret on a secret handshake, want none", hello.raw)
	}
	if _, err := os.Stat(sessionPath(dir, b.port)); err != nil {
		t.Errorf("session file: %v", err)
	}
}
