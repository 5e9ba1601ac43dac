package e2e

// A newcomer's first ten minutes: the mistakes a first run makes get a
// clear answer.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The README's placeholder, or anything else that cannot be a token, is
// refused as a usage error and never armed, and never repeated back.
func TestNewcomer_PlaceholderTokenRefused(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{"<token from the Stitch Slop agent panel>", "tok_ABC DEF", "hunter2"} {
		b := startBridge(t, bridgeOpts{token: tok, expectExit: true})
		if code := b.awaitExit(); code != 64 {
			t.Errorf("STITCHSLOP_TOKEN=%q: exit %d, want 64", tok, code)
		}
		out := b.stderr.String()
		if !strings.Contains(out, "STITCHSLOP_TOKEN") || !strings.Contains(out, "nothing was armed") || strings.Contains(out, tok) {
			t.Errorf("STITCHSLOP_TOKEN=%q: stderr %q, want a clear refusal that does not repeat the value", tok, out)
		}
	}
	// A token pasted with a full stop is cleaned, not refused.
	b := startBridge(t, bridgeOpts{token: newToken() + "."})
	b.mustRun()
}

// goRunCopy puts a copy of stitchslop where go run (Go 1.24 and later)
// runs it from: an entry of the build cache, a directory named go-build,
// with no bridge beside it.
func goRunCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "go-build", "9d", "9d0c1f-d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(toolPath)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "stitchslop")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestNewcomer_GoRunSetupNamesNoBuildCachePath: `go run … setup` starts
// with the command that builds a binary that stays, and every line to
// paste names that binary, never the copy in the build cache: in the
// repository, go build into it; elsewhere, go install into GOBIN.
func TestNewcomer_GoRunSetupNamesNoBuildCachePath(t *testing.T) {
	t.Parallel()
	exe := goRunCopy(t)
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gobin := filepath.Join(t.TempDir(), "gobin")
	for _, tc := range []struct {
		dir, first, bin string
	}{
		{repo, "go -C " + repo + " build -o " + filepath.Join(repo, "stitchslop-bridge") + " ./cmd/stitchslop-bridge", filepath.Join(repo, "stitchslop-bridge")},
		{t.TempDir(), "go install github.com/stitchslop/stitchslop-bridge/cmd/stitchslop-bridge@latest", filepath.Join(gobin, "stitchslop-bridge")},
	} {
		cmd := exec.Command(exe, "setup", "claude", "--shell", "posix")
		cmd.Dir = tc.dir
		cmd.Env = childEnv(t.TempDir(), "GOBIN="+gobin)
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Run(); err != nil {
			t.Fatalf("setup from a go run binary in %s: %v\n%s", tc.dir, err, se.String())
		}
		out := se.String()
		first, rec := strings.Index(out, tc.first), strings.Index(out, "Recommended")
		if first < 0 || rec < 0 || first > rec {
			t.Errorf("setup from a go run binary in %s said:\n%s\nwant %q first, before the recommended line", tc.dir, out, tc.first)
		}
		if !strings.Contains(out, "claude mcp add stitchslop -- "+tc.bin+" --lazy") {
			t.Errorf("setup from a go run binary in %s said:\n%s\nwant the line to paste to name %s", tc.dir, out, tc.bin)
		}
		if strings.Contains(out, "go-build") || strings.Contains(out, "deletes it when it exits") {
			t.Errorf("setup from a go run binary in %s names the build-cache copy, or says go run deletes it:\n%s", tc.dir, out)
		}
	}
}

// TestNewcomer_LazyRunLeavesNoLockFile: a --lazy bridge that never pairs
// leaves no empty pairing.json.lock in the config dir.
func TestNewcomer_LazyRunLeavesNoLockFile(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{port: -1, mcp: true, expectExit: true,
		args: []string{"--lazy", "--port", strconv.Itoa(freePort(t))}})
	if _, _, ok := b.stderr.lines.await(0, guard, func(l string) bool { return strings.Contains(l, "--lazy: listening on nothing") }); !ok {
		t.Fatalf("the lazy bridge did not start; stderr:\n%s", b.stderr)
	}
	b.rpc.initialize()
	b.closeStdin()
	b.awaitExit()
	if p := filepath.Join(b.configDir, "pairing.json.lock"); exists(p) {
		t.Errorf("a --lazy run that never paired left %s", p)
	}
}

// TestCLI_RelayedReplyEndsWithOneNewline: a reply relayed from the tab
// ends its line as a local error does, with one newline, no blank line.
func TestCLI_RelayedReplyEndsWithOneNewline(t *testing.T) {
	t.Parallel()
	b, _, base := cliTab(t, defaultHandler)
	for _, args := range [][]string{{"call", "scene.describe"}, {"status"}, {"tools"}} {
		r := runCLI(t, append(base, args...)...)
		if r.code != 0 || !strings.HasSuffix(r.stdout, "}\n") || strings.HasSuffix(r.stdout, "\n\n") {
			t.Errorf("%v: exit %d, stdout %q; want one JSON document ending in one newline", args, r.code, r.stdout)
		}
	}
	b.mustRun()
}

// TestNewcomer_NotConnectedMentionsDemo: a call with no tab attached says,
// besides how to wait for the tab, how to try the bridge without an
// account (the no_bridge hint says so too: testdata/script/nobridge.txtar).
func TestNewcomer_NotConnectedMentionsDemo(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	r := b.cli("call", "scene.describe")
	if doc := r.doc(t); doc["error"] != "not_connected" || !strings.Contains(r.stdout, "stitchslop demo") {
		t.Errorf("call with no tab: %s; want not_connected naming stitchslop demo", r.stdout)
	}
	b.mustRun()
}
