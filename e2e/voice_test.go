package e2e

// Voice (protocol.md §7.16): the listen verb prints what the user
// says to the tab as JSON lines, with events, parks while the tab is away
// and ends with its owner; the greeting hands the agent the exact command.

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// cliProc is a CLI child that runs in the background.
type cliProc struct {
	cmd    *exec.Cmd
	stdout *lineLog
	stderr *lineLog
	done   chan struct{}
	code   int
}

func startCLI(t *testing.T, args ...string) *cliProc {
	t.Helper()
	p := &cliProc{stdout: newLineLog(nil), stderr: newLineLog(nil), done: make(chan struct{})}
	p.cmd = exec.Command(binFor(args), args...)
	p.cmd.Env = childEnv(t.TempDir())
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		p.stdout.finish()
		p.stderr.finish()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// exit waits for the child to end and returns its exit code.
func (p *cliProc) exit(t *testing.T) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	select {
	case <-p.done:
		return p.code
	case <-ctx.Done():
		t.Fatalf("the CLI child did not exit; stdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
		return -1
	}
}

// awaitLine waits until stdout has n lines.
func (p *cliProc) awaitLine(t *testing.T, n int) {
	t.Helper()
	if _, _, ok := p.stdout.lines.await(n-1, guard, nil); !ok {
		t.Fatalf("listen printed %d lines, want %d:\n%s\nstderr:\n%s", p.stdout.lines.len(), n, p.stdout, p.stderr)
	}
}

var voiceTools = append([]any{map[string]any{"name": "voice.listen", "inputSchema": map[string]any{"type": "object"}}}, defaultTools...)

// A scripted tab: listen prints exactly the expected lines, parks while
// the tab is away, and exits 1 when the tab refuses to listen.
func TestRef_ListenPrintsWhatTheTabHears(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir})

	var mu sync.Mutex
	// The app's shape (protocol.md §7.16, the tab's voice
	// commands): heard is a list of {text, atMs}, the selection a list of
	// {id, name}, and voiceOn the user's voice switch.
	replies := []map[string]any{
		{"ok": true, "heard": []any{map[string]any{"text": "make it red", "atMs": 1200}}, "selection": []any{map[string]any{"id": "s1", "name": "Rose"}}, "say": "Heard 1."},
		{"ok": true, "heard": []any{}, "selection": []any{}, "voiceOn": false, "say": "Voice is off."},
		{"ok": true, "voiceOn": true, "heard": []any{map[string]any{"text": "bigger", "atMs": 5}}},
		nil, // the tab goes away
	}
	script := func(p *page) pageHandler {
		return func(cmd string, args map[string]any) map[string]any {
			if cmd != "voice.listen" || args["timeoutSeconds"] != float64(25) {
				return map[string]any{"ok": false, "error": "unexpected", "message": cmd}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(replies) == 0 {
				return map[string]any{"ok": false, "error": "refused", "message": "No microphone."}
			}
			r := replies[0]
			replies = replies[1:]
			if r == nil {
				p.conn.Close()
			}
			return r
		}
	}
	p := openPage(t, b.port, false)
	p.serve(script(p))
	wantHello(t, p.handshake(map[string]any{"secret": secret}), b.port)
	p.mustSend(map[string]any{"tools": voiceTools})
	b.awaitConnected(true)

	l := startCLI(t, "--config-dir", dir, "--port", strconv.Itoa(b.port), "listen")
	l.awaitLine(t, 4) // up to the tab going away
	q := openPage(t, b.port, false)
	q.serve(script(q))
	wantHello(t, q.handshake(map[string]any{"secret": secret}), b.port)
	if code := l.exit(t); code != 1 {
		t.Errorf("listen after the tab refused: exit %d, want 1", code)
	}
	// No connected line at start; the first answer's voice switch off is
	// not news (it is off by default), its turning on is.
	want := []string{
		`{"heard":"make it red","atMs":1200,"selection":[{"id":"s1","name":"Rose"}]}`,
		`{"event":"voice-on"}`,
		`{"heard":"bigger","atMs":5,"selection":null}`,
		`{"event":"disconnected"}`,
		`{"event":"connected"}`,
		`{"event":"unavailable","message":"No microphone."}`,
	}
	if got := l.stdout.lines.all(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("listen stdout:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(l.stderr.String(), "No microphone.") {
		t.Errorf("listen stderr %q does not say why the tab refused", l.stderr)
	}
}

// listen ends, exit 0, when its owner is gone, even while a voice.listen
// call is waiting; the greeting gives the exact command, and says when one
// runs already.
func TestRef_ListenEndsWithItsOwner(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	listed := b.rpc.msgs.len()
	p.mustSend(map[string]any{"tools": voiceTools})
	b.rpc.awaitListChanged(listed)
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "voice.listen" {
			return nil // never answers
		}
		return defaultHandler(cmd, args)
	})
	r := b.rpc.toolCall("wait_for_connection", map[string]any{})
	wantCmd := "'" + toolPath + "' --config-dir '" + b.configDir + "' --port " + strconv.Itoa(b.port) + " listen"
	if !strings.Contains(r.text(), wantCmd) || !strings.Contains(r.text(), "Run only one") {
		t.Fatalf("greeting with voice.listen offered: %q, want the command %s and one at a time", r.text(), wantCmd)
	}

	owner := exec.Command("sleep", "60")
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	defer owner.Process.Kill()
	from := p.frames.len()
	l := startCLI(t, "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "listen", "--owner", strconv.Itoa(owner.Process.Pid))
	if f, _ := p.command(from); f.str("command") != "voice.listen" {
		t.Fatalf("the tab got %s, want voice.listen", f.raw)
	}
	if r := b.rpc.toolCall("wait_for_connection", map[string]any{}); !strings.Contains(r.text(), "a listener is already running for this tab (pid ") {
		t.Errorf("greeting while a listen runs: %q, want it to say so", r.text())
	}
	owner.Process.Signal(syscall.SIGKILL)
	owner.Wait()
	if code := l.exit(t); code != 0 {
		t.Errorf("listen after its owner died: exit %d, want 0; stderr:\n%s", code, l.stderr)
	}
	// Nothing at start (the tab was attached, which is no change), and one
	// line saying why it ends.
	if got := l.stdout.lines.all(); len(got) != 1 || !strings.HasPrefix(got[0], `{"event":"unavailable","message":"`) || !strings.Contains(got[0], "owner") {
		t.Errorf("listen stdout after its owner died:\n%s\nwant one unavailable line naming the owner", strings.Join(got, "\n"))
	}
}
