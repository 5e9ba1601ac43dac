//go:build linux

package e2e

// THREAT_MODEL T16, another local user: a user who owns a folder the agent
// reads from or saves into flips an entry of it between a decoy and a
// symlink into a hidden folder of ours, as fast as it can, while the agent
// calls the file tools. Run as uid 65534 (nobody), so these tests need
// root; elsewhere they skip and say why.

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// Bounds of the race tests below: the bridge before the race-free walk of
// security/files (a hidden check on one resolution of the path, the open
// on another) sent the hidden file within 252 calls, and wrote into the
// hidden folder within 123, in each of three runs on a 2-core machine.
const (
	otherReadTries = 2000
	otherSaveTries = 1000
)

// otherSwap builds testdata/otherswap into a folder nobody can read, starts
// it as nobody with args, and waits for its "ready". It is killed when the
// test ends.
func otherSwap(t *testing.T, args ...string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root, to run a process as another user (uid 65534)")
	}
	dir, err := os.MkdirTemp("", "stitchslop-otherswap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "otherswap")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/otherswap").CombinedOutput(); err != nil {
		t.Fatalf("build the other user's helper: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); errors.Is(err, syscall.EPERM) {
		t.Skipf("cannot switch to uid %d here (%v): the other-user race is not tested", nobody, err)
	} else if err != nil {
		t.Fatalf("start the other user's swapper: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the other user's swapper did not start: %q", line)
	}
}

// sharedRoot makes a folder like /tmp: world-writable and sticky, inside a
// folder every user may search, with our home beside it. It returns both.
func sharedRoot(t *testing.T) (shared, home string) {
	t.Helper()
	root, err := os.MkdirTemp("", "stitchslop-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	shared, home = filepath.Join(root, "tmp"), filepath.Join(root, "home")
	for _, d := range []string{shared, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return shared, home
}

// call_with_file of a design.json that nobody flips between a decoy and a
// link to ~/.ssh/key.json never sends the key: each call sends the decoy or
// is refused.
func TestT16_OtherUserSwapsAttachedFile(t *testing.T) {
	shared, home := sharedRoot(t)
	const secret = "k3y-0f-th3-v1ct1m"
	key := writeFile(t, filepath.Join(home, ".ssh", "key.json"), []byte(`{"secret":"`+secret+`"}`))
	theirs := filepath.Join(shared, "theirs")
	otherSwap(t, "file", theirs, "design.json", key)

	b, p := mcpTab(t, "")
	var leaked atomic.Int64
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "design.import" {
			if s, _ := args["design"].(string); strings.Contains(s, secret) {
				leaked.Add(1)
			}
			return map[string]any{"ok": true, "say": "Imported."}
		}
		return defaultHandler(cmd, args)
	})
	path := filepath.Join(theirs, "design.json")
	sent := 0
	for i := range otherReadTries {
		r := b.rpc.toolCall("call_with_file", map[string]any{"command": "design.import", "path": path, "fileArg": "design", "as": "text"})
		if leaked.Load() > 0 {
			t.Fatalf("call_with_file on try %d sent the file in the hidden folder to the tab", i+1)
		}
		if !r.IsError {
			sent++
		}
	}
	t.Logf("%d of %d calls sent the decoy; the others were refused", sent, otherReadTries)
}

// call_to_files into a folder that nobody flips between a real folder and
// a link to ~/.claude never writes into ~/.claude.
func TestT16_OtherUserSwapsSaveFolder(t *testing.T) {
	shared, home := sharedRoot(t)
	hidden := filepath.Join(home, ".claude")
	if err := os.Mkdir(hidden, 0o700); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(shared, "theirs")
	otherSwap(t, "dir", theirs, "out", hidden)

	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "design.export" {
			return map[string]any{"ok": true, "say": "Exported.", "files": []any{
				map[string]any{"name": "design.json", "dataUrl": b64URL("application/json", []byte(`{"hooks":{}}`))},
			}}
		}
		return defaultHandler(cmd, args)
	})
	out := filepath.Join(theirs, "out")
	saved := 0
	for i := range otherSaveTries {
		r := b.rpc.toolCall("call_to_files", map[string]any{"command": "design.export", "dir": out, "overwrite": true})
		if ents, _ := os.ReadDir(hidden); len(ents) > 0 {
			t.Fatalf("call_to_files on try %d wrote %s into the hidden folder", i+1, ents[0].Name())
		}
		if !r.IsError {
			saved++
		}
	}
	t.Logf("%d of %d calls saved into the real folder; the others were refused", saved, otherSaveTries)
}
