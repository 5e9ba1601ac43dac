package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRel_Disk: a config dir that is read-only, full, or over the file
// size limit, at start and under a running bridge, and a home directory
// that does not exist. Each gives an error naming the path and the cause,
// leaves no temp file and every file as it was, and never panics; a
// running bridge keeps serving its tab (calls answered, the tab
// re-attaches by its pairing) and says which write failed when a new
// pairing cannot be stored, and stores it once the disk is writable again.
func TestRel_Disk(t *testing.T) {
	t.Parallel()
	t.Run("ReadOnlyAtStart", func(t *testing.T) {
		t.Parallel()
		d := newFaultDir(t)
		seedPairing(t, d.path, map[string]any{testOrigin: pairingFor(newSecret())})
		before := d.snapshot()
		d.readOnly(true)
		b := startBridge(t, bridgeOpts{configDir: d.path, expectExit: true})
		wantStartFailure(t, b, d.path, "read-only file system", "permission denied")
		d.readOnly(false)
		d.wantUnchanged(before)
	})
	t.Run("ReadOnlyWhileRunning", func(t *testing.T) {
		t.Parallel()
		d := newFaultDir(t)
		d.whileRunning(t, d.readOnly, "read-only file system", "permission denied")
	})
	t.Run("FullAtStart", func(t *testing.T) {
		t.Parallel()
		d := newFullDir(t)
		seedPairing(t, d.path, map[string]any{testOrigin: pairingFor(newSecret())})
		before := d.snapshot()
		d.fill(true)
		b := startBridge(t, bridgeOpts{configDir: d.path, expectExit: true})
		wantStartFailure(t, b, d.path, "no space left on device")
		d.fill(false)
		d.wantUnchanged(before)
	})
	t.Run("FullWhileRunning", func(t *testing.T) {
		t.Parallel()
		d := newFullDir(t)
		d.whileRunning(t, d.fill, "no space left on device")
	})
	t.Run("FileSizeLimitAtStart", func(t *testing.T) {
		t.Parallel()
		d := newFaultDir(t)
		seedPairing(t, d.path, map[string]any{testOrigin: pairingFor(newSecret())})
		before := d.snapshot()
		b := startUnderFileLimit(t, d.path, 0, "")
		wantStartFailure(t, b, d.path, "file too large")
		d.wantUnchanged(before)
	})
	t.Run("FileSizeLimitWhileRunning", func(t *testing.T) {
		t.Parallel()
		// pairing.json is seeded past the limit, so the bridge starts (its
		// session file and spent-token file fit) and its first rewrite of
		// pairing.json hits the limit: the process gets SIGXFSZ and the
		// write EFBIG.
		d := newFaultDir(t)
		secrets := []string{newSecret(), newSecret(), newSecret(), newSecret(), newSecret()}
		entry := pairingFor(secrets...)
		var used []string
		for range 20 {
			used = append(used, fingerprint(newToken()))
		}
		entry["usedTokens"] = used
		seedPairing(t, d.path, map[string]any{testOrigin: entry})
		if fi, err := os.Stat(filepath.Join(d.path, "pairing.json")); err != nil || fi.Size() <= fileLimitBlocks*512 {
			t.Fatalf("seeded pairing.json: %v, want it over the %d-byte limit", fi.Size(), fileLimitBlocks*512)
		}
		b := startUnderFileLimit(t, d.path, fileLimitBlocks, "")
		d.servesThroughFailure(t, b, map[string]any{"secret": secrets[0]}, nil, "file too large")
	})
	t.Run("MissingHome", func(t *testing.T) {
		t.Parallel()
		home := filepath.Join(t.TempDir(), "gone", "home")
		// The guard ends a bridge that started (it would wait for its tab).
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		cmd := exec.CommandContext(ctx, binPath, "--port", strconv.Itoa(freePort(t)))
		cmd.Env = childEnv(home, "STITCHSLOP_TOKEN="+newToken())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() <= 0 {
			t.Fatalf("bridge with HOME=%s (missing): %v, want a clean exit with an error code; stderr:\n%s", home, err, &stderr)
		}
		wantClearError(t, stderr.String(), home, "does not exist")
		t.Logf("exit %d, stderr: %s", ee.ExitCode(), &stderr)
		if _, err := os.Lstat(filepath.Dir(home)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the bridge created %s (%v): a missing home must be reported, not made", filepath.Dir(home), err)
		}
	})
}

// fileLimitBlocks is RLIMIT_FSIZE for FileSizeLimitWhileRunning, in the
// 512-byte blocks of sh's ulimit -f: room for the session file (about 200
// bytes) and a spent-token file of 21 fingerprints (693 bytes), not for
// the seeded pairing.json.
const fileLimitBlocks = 2

// faultDir is a config dir a test can make read-only or full.
type faultDir struct {
	t       *testing.T
	path    string
	mounted bool // a tmpfs of its own, so it can be remounted read-only
	filler  string
}

// newFaultDir makes a config dir that readOnly can toggle. As root, where
// a mode does not stop a write, it is a tmpfs of its own, remounted; the
// test is skipped if mounting is not allowed here.
func newFaultDir(t *testing.T) *faultDir {
	t.Helper()
	if os.Geteuid() == 0 {
		return mountTmpfs(t, "1m")
	}
	d := &faultDir{t: t, path: filepath.Join(t.TempDir(), "cfg")}
	if err := os.Mkdir(d.path, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

// newFullDir makes a config dir on a 64 KB tmpfs, which fill fills. It
// needs root to mount; the test is skipped otherwise.
func newFullDir(t *testing.T) *faultDir {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk needs a small tmpfs, and mounting one needs root; FileSizeLimit* cover a write that cannot complete")
	}
	return mountTmpfs(t, "64k")
}

func mountTmpfs(t *testing.T, size string) *faultDir {
	t.Helper()
	d := &faultDir{t: t, path: filepath.Join(t.TempDir(), "cfg"), mounted: true}
	if err := os.Mkdir(d.path, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", d.path).CombinedOutput(); err != nil {
		t.Skipf("running as root, where a file mode does not stop a write, and mount -t tmpfs is not allowed here: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", d.path).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", d.path, err, out)
			exec.Command("umount", "-l", d.path).Run()
		}
	})
	return d
}

// readOnly makes the dir read-only (on) or writable again.
func (d *faultDir) readOnly(on bool) {
	d.t.Helper()
	if d.mounted {
		opt := "remount,rw"
		if on {
			opt = "remount,ro"
		}
		if out, err := exec.Command("mount", "-o", opt, d.path).CombinedOutput(); err != nil {
			d.t.Fatalf("mount -o %s %s: %v: %s", opt, d.path, err, out)
		}
		return
	}
	mode := os.FileMode(0o700)
	if on {
		mode = 0o500
	}
	if err := os.Chmod(d.path, mode); err != nil {
		d.t.Fatal(err)
	}
}

// fill fills the tmpfs to the last byte (on), or frees it.
func (d *faultDir) fill(on bool) {
	d.t.Helper()
	if !on {
		if err := os.Remove(d.filler); err != nil {
			d.t.Fatal(err)
		}
		return
	}
	d.filler = filepath.Join(d.path, "filler")
	f, err := os.OpenFile(d.filler, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		d.t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 512)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				d.t.Fatalf("filling %s: %v, want ENOSPC", d.path, err)
			}
			return
		}
	}
}

// snapshot is the content of the config dir's files.
type snapshot map[string]string

func (d *faultDir) snapshot() snapshot {
	d.t.Helper()
	ents, err := os.ReadDir(d.path)
	if err != nil {
		d.t.Fatal(err)
	}
	s := snapshot{}
	for _, e := range ents {
		if e.Name() == "filler" || strings.HasPrefix(e.Name(), "session-") || strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(d.path, e.Name()))
		if err != nil {
			d.t.Fatal(err)
		}
		s[e.Name()] = string(data)
	}
	return s
}

// wantUnchanged checks that no file was left half-written, replaced or
// added (no temp file), except where allow says a file may have changed.
func (d *faultDir) wantUnchanged(before snapshot, allow ...string) {
	d.t.Helper()
	after := d.snapshot()
	for name, data := range after {
		old, ok := before[name]
		switch {
		case !ok:
			d.t.Errorf("%s appeared in the config dir after a failed write (a temp or partial file)", name)
		case old != data && !containsStr(allow, name):
			d.t.Errorf("%s changed after a failed write:\n%s\nwant, as before:\n%s", name, data, old)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			d.t.Errorf("%s is gone after a failed write", name)
		}
	}
	if raw, ok := after["pairing.json"]; ok && !jsonObject(raw) {
		d.t.Errorf("pairing.json does not parse after a failed write: %q", raw)
	}
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func jsonObject(s string) bool {
	var m map[string]any
	return json.Unmarshal([]byte(s), &m) == nil
}

// whileRunning pairs a tab with a token, turns the fault on (fault(true)),
// and checks the bridge keeps serving through a pairing it cannot store;
// then turns it off and checks the same token pairs.
func (d *faultDir) whileRunning(t *testing.T, fault func(bool), causes ...string) {
	t.Helper()
	tok := newToken()
	b := startBridge(t, bridgeOpts{configDir: d.path, token: tok})
	p, hello := connectPage(t, b, map[string]any{"token": tok})
	secret := hello.str("pairingSecret")
	if secret == "" {
		t.Fatalf("hello %s: no pairingSecret for a fresh token", hello.raw)
	}
	b.session() // read before the fault, as a shell would have
	p.conn.Close()
	<-p.gone
	b.awaitConnected(false)
	fault(true)
	d.servesThroughFailure(t, b, map[string]any{"secret": secret}, func() { fault(false) }, causes...)
}

// servesThroughFailure checks a running bridge whose config dir cannot be
// written: the attached tab's calls are answered (control plane and call
// verb); a fresh token is armed, and redeeming it is refused with the
// failed write named on stderr and nothing on disk changed but, at most,
// the token spent; the first tab re-attaches by cred and is served. If
// recover is not nil, it ends the fault and a fresh token then pairs.
func (d *faultDir) servesThroughFailure(t *testing.T, b *bridge, cred map[string]any, recover func(), causes ...string) {
	t.Helper()
	key := b.session().Key
	p := d.servedTab(t, b, key, cred, 1)
	before := d.snapshot()

	p.conn.Close()
	<-p.gone
	b.awaitConnected(false)
	tok := newToken()
	if st, m := b.ctl("POST", "/pair", map[string]any{"token": tok}); st != 200 || m["armed"] != true {
		t.Fatalf("POST /pair with the config dir failing: %d %v, want the token armed (arming writes nothing)", st, m)
	}
	from := b.stderr.lines.len()
	q := openPage(t, b.port, false)
	f := q.handshake(map[string]any{"token": tok})
	wantRefusal(t, q, f, "internal")
	line, _, ok := b.stderr.lines.await(from, guard, func(l string) bool { return strings.Contains(l, "error:") })
	if !ok {
		t.Fatalf("no error on stderr for a pairing that could not be stored; stderr:\n%s", b.stderr)
	}
	wantClearError(t, line, d.path, causes...)
	t.Logf("the refused pairing, on stderr: %s", line)
	// The first write to fail is the spent-token file's (then nothing is
	// spent) or pairing.json's (then the token is spent, unpaired).
	d.wantUnchanged(before, "spent-tokens")
	b.mustRun()

	p = d.servedTab(t, b, key, cred, 2)
	if recover == nil {
		return
	}
	p.conn.Close()
	<-p.gone
	b.awaitConnected(false)
	recover()
	tok = newToken()
	if st, m := b.ctl("POST", "/pair", map[string]any{"token": tok}); st != 200 || m["armed"] != true {
		t.Fatalf("POST /pair after the fault: %d %v, want the token armed", st, m)
	}
	_, hello := connectPage(t, b, map[string]any{"token": tok})
	if err := onDisk(d.path, b.origin, tok, hello.str("pairingSecret")); err != nil {
		t.Errorf("a pairing after the fault ended: %v", err)
	}
}

// servedTab attaches a page by cred and checks a control-plane call and a
// call verb are answered by it.
func (d *faultDir) servedTab(t *testing.T, b *bridge, key string, cred map[string]any, n int) *page {
	t.Helper()
	p, _ := connectPage(t, b, cred)
	b.awaitConnected(true)
	env, err := callEnv(b.port, key, map[string]any{"command": "render.png", "args": map[string]any{"n": n}})
	if err != nil || env["ok"] != true {
		t.Fatalf("POST /call with the config dir failing (tab %d): %v, %v; want the tab's reply", n, env, err)
	}
	if r := b.cli("call", "render.png", fmt.Sprintf(`{"n":%d}`, n)); r.code != 0 || !jsonOK(r.stdout) {
		t.Fatalf("call verb with the config dir failing (tab %d): exit %d, %s %s", n, r.code, r.stdout, r.stderr)
	}
	return p
}

// startUnderFileLimit starts a bridge whose files may be at most blocks
// 512-byte blocks (RLIMIT_FSIZE, through sh's ulimit -f; exec keeps the
// pid), paired or given token.
func startUnderFileLimit(t *testing.T, dir string, blocks int, token string) *bridge {
	t.Helper()
	port := freePort(t)
	b := &bridge{t: t, origin: testOrigin, configDir: dir, port: port, done: make(chan struct{}), exitCode: -1}
	args := []string{"-c", `ulimit -f "$0" && exec "$@"`, strconv.Itoa(blocks), binPath,
		"--origin", testOrigin, "--port", strconv.Itoa(port), "--config-dir", dir}
	cmd := exec.Command("/bin/sh", args...)
	var extra []string
	if token != "" {
		extra = append(extra, "STITCHSLOP_TOKEN="+token)
	}
	cmd.Env = childEnv(t.TempDir(), extra...)
	b.rpc = &rpcClient{t: t, msgs: newStream[rpcMsg](), bad: newStream[string]()}
	b.stdout, b.stderr = newLineLog(b.rpc.receive), newLineLog(nil)
	cmd.Stdout, cmd.Stderr = b.stdout, b.stderr
	cmd.WaitDelay = 2 * time.Second
	b.launch(cmd, fmt.Sprintf("start bridge under ulimit -f %d", blocks))
	if blocks > 0 {
		b.awaitListening()
	}
	return b
}

// wantStartFailure checks that b exited on its own with an error code (not
// killed by a signal), and said why naming a path in dir.
func wantStartFailure(t *testing.T, b *bridge, dir string, causes ...string) {
	t.Helper()
	if code := b.awaitExit(); code <= 0 {
		t.Fatalf("bridge exit code %d, want a failure code of its own (-1 is a signal); stderr:\n%s", code, b.stderr)
	}
	wantClearError(t, b.stderr.String(), dir, causes...)
	t.Logf("exit %d, stderr: %s", b.code(), b.stderr)
}

// wantClearError checks that text is an error that names a path under
// dir and one of causes, and shows no crash.
func wantClearError(t *testing.T, text, dir string, causes ...string) {
	t.Helper()
	if !strings.Contains(text, stderrPrefix+"error: ") || !strings.Contains(text, dir) {
		t.Errorf("stderr %q: want an error line naming %s", text, dir)
	}
	found := false
	for _, c := range causes {
		found = found || strings.Contains(text, c)
	}
	if !found {
		t.Errorf("stderr %q: want the cause, one of %q", text, causes)
	}
	if crashed(text) {
		t.Errorf("stderr shows a crash:\n%s", text)
	}
}
