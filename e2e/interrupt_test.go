package e2e

// Ctrl-C in the shell (issue 29): a verb stopped while the bridge works on
// it says it was interrupted, not that no bridge runs, and exits 130.

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// interrupted checks the end of a CLI child sent SIGINT: exit 130, one
// JSON document saying "interrupted", and a stderr line saying so that is
// no no_bridge report.
func interrupted(t *testing.T, p *cliProc, what string) string {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("SIGINT to %s: %v", what, err)
	}
	if code := p.exit(t); code != 130 {
		t.Errorf("%s after SIGINT: exit %d, want 130; stderr:\n%s", what, code, p.stderr)
	}
	r := cliResult{stdout: p.stdout.String(), stderr: p.stderr.String()}
	if doc := r.doc(t); doc["ok"] != false || doc["error"] != "interrupted" {
		t.Errorf("%s after SIGINT printed %s, want ok:false error \"interrupted\"", what, r.stdout)
	}
	if !strings.Contains(r.stderr, stderrPrefix+"error: interrupted") || strings.Contains(r.stderr, "no bridge") {
		t.Errorf("%s after SIGINT said on stderr:\n%s\nwant an error line saying it was interrupted, and nothing of a missing bridge", what, r.stderr)
	}
	return r.stderr
}

// TestCLI_CtrlCDuringCallSaysInterrupted: SIGINT once the tab has the
// command (and has not answered) ends call with 130 and a line saying
// the command may still run in the tab.
func TestCLI_CtrlCDuringCallSaysInterrupted(t *testing.T) {
	t.Parallel()
	b, p, base := cliTab(t, func(cmd string, args map[string]any) map[string]any {
		if cmd == "shape.add" {
			return nil // the tab is still at work
		}
		return defaultHandler(cmd, args)
	})
	from := p.frames.len()
	c := startCLI(t, append(base, "call", "shape.add", `{"kind":"star"}`)...)
	if f, _ := p.command(from); f.str("command") != "shape.add" {
		t.Fatalf("the tab got %s, want shape.add", f.raw)
	}
	stderr := interrupted(t, c, "call")
	if !strings.Contains(stderr, "the command may still run in the tab") {
		t.Errorf("call after SIGINT said:\n%s\nwant it to say the command may still run in the tab", stderr)
	}
	b.mustRun()
}

// TestCLI_CtrlCDuringWaitSaysInterrupted: SIGINT while the bridge holds
// the wait (a stand-in bridge that never answers /wait, so the test knows
// the request is in) ends wait with 130.
func TestCLI_CtrlCDuringWaitSaysInterrupted(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	key := randHex(32)
	arrived := make(chan struct{}, 1)
	port := serveAsBridge(t, dir, key, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-stitchslop-key") != key || r.URL.Path != "/wait" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		arrived <- struct{}{}
		<-r.Context().Done() // answers only when the shell has gone
	}))
	c := startCLI(t, "--config-dir", dir, "--port", strconv.Itoa(port), "wait", "60")
	select {
	case <-arrived:
	case <-c.done:
		t.Fatalf("wait exited %d before its request reached the bridge; stderr:\n%s", c.code, c.stderr)
	}
	interrupted(t, c, "wait")
}
