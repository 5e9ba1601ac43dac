package e2e

// A newcomer's first ten minutes: the mistakes a first run makes get a
// clear answer.

import (
	"os"
	"os/exec"
	"path/filepath"
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

// goRunCopy puts a copy of the binary where go run (Go 1.24 and later)
// runs it from: an entry of the build cache, a directory named go-build.
func goRunCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "go-build", "9d", "9d0c1f-d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(binPath)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "stitchslop-bridge")
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
