package e2e

// Under `go run` (issue 36 item 6): the doctor and the demo a newcomer runs
// from a clone are go run's builds, in the build cache.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// goRunBuild is goRunCopy with a byte more: a build of the same code that
// is not byte for byte the binary a bridge runs, as go run's (no DWARF) is
// not go build's.
func goRunBuild(t *testing.T) string {
	t.Helper()
	exe := goRunCopy(t)
	f, err := os.OpenFile(exe, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return exe
}

// A doctor run with go run beside a bridge started from a built binary
// does not report the bridge as running "another binary": its own is a
// build of the moment, no install an upgrade left behind.
func TestNewcomer_GoRunDoctorComparesNoBinary(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	cmd := exec.Command(goRunBuild(t), "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "doctor", "--json")
	cmd.Env = childEnv(t.TempDir())
	out, err := cmd.Output()
	var r struct {
		Findings []struct{ Check, Severity, Subject, Message string }
	}
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("doctor --json from a go run build: %v, %v; stdout %q", err, jerr, out)
	}
	found := false
	for _, f := range r.Findings {
		found = found || f.Check == "port" && strings.Contains(f.Message, "a bridge of this config dir")
		if strings.Contains(f.Message, "another binary") {
			t.Errorf("doctor from a go run build says: %s: %s", f.Subject, f.Message)
		}
	}
	if !found {
		t.Errorf("doctor did not find the bridge on port %d: %+v", b.port, r.Findings)
	}
	b.mustRun()
}

// The demo run with go run names, in every line to paste, the binary that
// stays, after the command that builds it; never go run's copy.
func TestNewcomer_GoRunDemoNamesNoBuildCachePath(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(repo, "stitchslop-bridge")
	// The demo builds that binary first (go run's stitchslop has no bridge
	// beside it): from the module and build caches the test's own go uses,
	// since the child's HOME is a fresh one; and gone again after the test
	// when it was not there before.
	if _, err := os.Stat(bin); err != nil {
		t.Cleanup(func() { os.Remove(bin) })
	}
	caches, err := exec.Command("go", "env", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := strings.Fields(string(caches))
	cmd := exec.Command(goRunCopy(t), "demo", "--port", strconv.Itoa(freePort(t)), "--config-dir", filepath.Join(t.TempDir(), "cfg"))
	cmd.Dir = repo
	cmd.Env = childEnv(t.TempDir(), "GOMODCACHE="+cache[0], "GOCACHE="+cache[1], "GOPROXY=off")
	stderr := newLineLog(nil)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// A guard that leaves room for the go build.
	if _, _, ok := stderr.lines.await(0, 12*guard, func(l string) bool { return strings.Contains(l, "Ctrl-C stops the demo") }); !ok {
		t.Fatalf("the demo did not say what to try; stderr:\n%s", stderr)
	}
	lines := stderr.lines.all()
	build, verbs := -1, 0
	for i, l := range lines {
		if strings.Contains(l, "go -C "+repo+" build -o "+bin+" ./cmd/stitchslop-bridge") && build < 0 {
			build = i
		}
		if strings.Contains(l, " call scene.describe") || strings.Contains(l, "claude mcp add") {
			verbs++
			if !strings.Contains(l, bin+" ") || build < 0 || build > i {
				t.Errorf("demo line %q: want it to name %s, after the line that builds it", l, bin)
			}
		}
		if strings.Contains(l, "go-build") {
			t.Errorf("demo line names go run's copy: %s", l)
		}
	}
	if verbs != 2 {
		t.Errorf("demo said %d lines to paste, want a verb and an agent's; stderr:\n%s", verbs, stderr)
	}
}
