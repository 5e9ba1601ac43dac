package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// §4.1: the session file: fields, mode, a fresh 32-byte key.
func TestSpec4_1_SessionFile(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	s := b.session()
	path := sessionPath(b.configDir, b.port)
	if m := fileMode(t, path); m != 0o600 {
		t.Errorf("session file mode: got %o, want 600", m)
	}
	if m := fileMode(t, b.configDir); m != 0o700 {
		t.Errorf("config dir mode: got %o, want 700", m)
	}
	if s.Port != b.port || s.PID != b.pid() || s.Protocol != 1 || s.Origin != testOrigin {
		t.Errorf("session file: got %+v, want port %d pid %d protocol 1 origin %s", s, b.port, b.pid(), testOrigin)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9_-]+={0,2}$`).MatchString(s.Key) {
		t.Errorf("key %q: got non-base64url, want base64url", s.Key)
	} else if k, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s.Key, "=")); err != nil || len(k) != 32 {
		t.Errorf("key %q: got %d bytes (%v), want 32", s.Key, len(k), err)
	}
	if _, err := time.Parse(time.RFC3339, s.StartedAt); err != nil {
		t.Errorf("startedAt %q: %v", s.StartedAt, err)
	}
}

// §4.1: the key is minted fresh on every start; the old key gets 401.
func TestSpec4_1_KeyFreshPerStart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	s := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(s)})
	port := freePort(t)
	b := startBridge(t, bridgeOpts{configDir: dir, port: port})
	k1 := b.session().Key
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Fatalf("exit after SIGTERM: got %d, want 0", code)
	}
	b = startBridge(t, bridgeOpts{configDir: dir, port: port})
	k2 := b.session().Key
	if k1 == k2 {
		t.Errorf("key after restart: got the same key %q, want a fresh one", k2)
	}
	if status, body := ctlDo(t, port, "GET", "/status", nil, keyHeader(k1), ""); status != http.StatusUnauthorized {
		t.Errorf("GET /status with the old key: got HTTP %d %s, want 401", status, body)
	}
}

// §4.1: a clean exit removes the session file.
func TestSpec4_1_RemovedOnCleanExit(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			b := startBridge(t, bridgeOpts{token: newToken()})
			path := sessionPath(b.configDir, b.port)
			awaitFile(t, path)
			b.signal(sig)
			if code := b.awaitExit(); code != 0 {
				t.Errorf("exit after %v: got %d, want 0", sig, code)
			}
			if exists(path) {
				t.Errorf("session file after a clean exit: got it, want it removed")
			}
		})
	}
}

// §4.1: a session file another bridge has replaced is not removed.
func TestSpec4_1_ReplacedSessionFileKept(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	path := sessionPath(b.configDir, b.port)
	awaitFile(t, path)
	other := mustJSON(map[string]any{"port": b.port, "key": newSecret(), "origin": testOrigin,
		"pid": os.Getpid(), "protocol": 1, "startedAt": "2026-09-13T20:01:59.081Z"})
	if err := os.WriteFile(path, other, 0o600); err != nil {
		t.Fatal(err)
	}
	b.signal(syscall.SIGTERM)
	if code := b.awaitExit(); code != 0 {
		t.Errorf("exit after SIGTERM: got %d, want 0", code)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(other) {
		t.Errorf("replaced session file after exit: got %q (%v), want it untouched", got, err)
	}
}

// §4.1, §4.4: a SIGKILLed bridge leaves a stale file: the CLI exits 3 and
// prunes it.
func TestSpec4_1_StaleSessionAfterSIGKILL(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	path := sessionPath(b.configDir, b.port)
	awaitFile(t, path)
	b.signal(syscall.SIGKILL)
	b.awaitExit()
	if !exists(path) {
		t.Fatalf("session file gone after SIGKILL; the test needs it stale")
	}
	r := runCLI(t, "--config-dir", b.configDir, "status")
	if r.code != 3 {
		t.Errorf("status with a stale session file: got exit %d, want 3; stderr: %s", r.code, r.stderr)
	}
	if exists(path) {
		t.Errorf("stale session file (dead pid): got it kept, want it pruned")
	}
	if strings.TrimSpace(r.stderr) == "" {
		t.Errorf("got empty stderr, want a word on why")
	}
}

// §4.4: a session file whose pid lives but whose bridge does not answer, or
// answers 401, exits 3.
func TestSpec4_1_StaleSessionLivePID(t *testing.T) {
	t.Parallel()
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		port := freePort(t)
		data := mustJSON(map[string]any{"port": port, "key": newSecret(), "origin": testOrigin,
			"pid": os.Getpid(), "protocol": 1, "startedAt": "2026-09-13T20:01:59.081Z"})
		if err := os.WriteFile(sessionPath(dir, port), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if r := runCLI(t, "--config-dir", dir, "status"); r.code != 3 {
			t.Errorf("status against nothing listening: got exit %d, want 3; stderr: %s", r.code, r.stderr)
		}
	})
	t.Run("401", func(t *testing.T) {
		t.Parallel()
		b := startBridge(t, bridgeOpts{token: newToken()})
		s := b.session()
		s.Key = newSecret()
		if err := os.WriteFile(sessionPath(b.configDir, b.port), mustJSON(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := runCLI(t, "--config-dir", b.configDir, "status"); r.code != 3 {
			t.Errorf("status with a wrong key: got exit %d, want 3; stderr: %s", r.code, r.stderr)
		}
	})
}

// §4.1: several live bridges: the CLI will not guess.
func TestSpec4_1_SeveralBridgesNeedPort(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	a := startBridge(t, bridgeOpts{configDir: dir, token: newToken()})
	b := startBridge(t, bridgeOpts{configDir: dir, token: newToken()})
	a.session()
	b.session()
	r := runCLI(t, "--config-dir", dir, "status")
	if r.code != 3 {
		t.Errorf("status with two live bridges, no --port: got exit %d, want 3", r.code)
	}
	for _, br := range []*bridge{a, b} {
		if !strings.Contains(r.stderr, strconv.Itoa(br.port)) {
			t.Errorf("stderr %q: got no port %d, want both listed", r.stderr, br.port)
		}
	}
	for _, br := range []*bridge{a, b} {
		r := runCLI(t, "--config-dir", dir, "--port", strconv.Itoa(br.port), "status")
		if r.code != 0 {
			t.Errorf("status --port %d: got exit %d, want 0; stderr: %s", br.port, r.code, r.stderr)
			continue
		}
		if d := r.doc(t); d["port"] != float64(br.port) || d["pid"] != float64(br.pid()) {
			t.Errorf("status --port %d: got port %v pid %v, want %d %d", br.port, d["port"], d["pid"], br.port, br.pid())
		}
	}
}

// §4.2: /status.
func TestSpec4_2_Status(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	status, st := b.ctl("GET", "/status", nil)
	if status != http.StatusOK {
		t.Errorf("GET /status: got HTTP %d, want 200", status)
	}
	want := map[string]any{"ok": true, "connected": false, "port": float64(b.port), "origin": testOrigin,
		"protocol": float64(1), "pid": float64(b.pid())}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("/status %s: got %v, want %v", k, st[k], v)
		}
	}
	if _, ok := st["paired"].(bool); !ok {
		t.Errorf("/status paired: got %v, want a bool", st["paired"])
	}
	if _, ok := st["message"].(string); !ok {
		t.Errorf("/status message: got %v, want a string", st["message"])
	}
	if tools, ok := st["tools"].([]any); !ok || len(tools) != 0 {
		t.Errorf("/status tools: got %v, want []", st["tools"])
	}
	connectPage(t, b, map[string]any{"token": tok})
	st = b.awaitStatus("two tools", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })
	if got, _ := json.Marshal(st["tools"]); string(got) != `["scene.describe","render.png"]` {
		t.Errorf("/status tools with a page: got %s, want [\"scene.describe\",\"render.png\"]", got)
	}
}

// §4.2: /tools, /wait, /call without and with a tab.
func TestSpec4_2_Routes(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	t.Run("no tab", func(t *testing.T) {
		if _, m := b.ctl("GET", "/tools", nil); m["ok"] != false {
			t.Errorf("/tools with no tab: got %v, want ok:false", m)
		}
		start := time.Now()
		if _, m := b.ctl("POST", "/wait", map[string]any{"seconds": 1}); m["ok"] != false || m["error"] != "timeout" {
			t.Errorf("/wait with no tab: got %v, want ok:false error:timeout", m)
		}
		if el := time.Since(start); el < 900*time.Millisecond {
			t.Errorf("/wait {seconds:1} returned after %v, want about 1 s", el)
		}
		if _, m := b.ctl("POST", "/call", map[string]any{"command": "scene.describe", "args": map[string]any{}}); m["ok"] != false || m["error"] != "not_connected" {
			t.Errorf("/call with no tab: got %v, want ok:false error:not_connected", m)
		}
	})
	// /wait returns when a tab attaches.
	done := make(chan map[string]any, 1)
	key := b.session().Key
	go func() {
		_, data, err := ctlRaw(b.port, "POST", "/wait", map[string]any{"seconds": 8}, keyHeader(key), "")
		m := map[string]any{"transportError": fmt.Sprint(err)}
		if err == nil {
			json.Unmarshal(data, &m)
		}
		done <- m
	}()
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(cmd string, args map[string]any) map[string]any {
		return map[string]any{"ok": true, "command": cmd, "args": args, "extra": []any{1, 2}}
	})
	select {
	case m := <-done:
		if m["ok"] != true {
			t.Errorf("/wait while a tab attaches: got %v, want ok:true", m)
		}
	case <-time.After(guard):
		t.Fatalf("/wait did not return when the tab attached")
	}
	// The tool list follows the hello; /wait only promises the tab.
	b.awaitStatus("two tools", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 2 })
	t.Run("tab", func(t *testing.T) {
		status, m := b.ctl("GET", "/tools", nil)
		if raw, _ := json.Marshal(m); status != http.StatusOK || m["ok"] != true || !strings.Contains(string(raw), `"scene.describe"`) {
			t.Errorf("/tools with a tab: got HTTP %d %s, want ok:true with scene.describe", status, raw)
		}
		if _, m := b.ctl("POST", "/wait", map[string]any{"seconds": 5}); m["ok"] != true {
			t.Errorf("/wait with a tab: got %v, want ok:true", m)
		}
		_, m = b.ctl("POST", "/call", map[string]any{"command": "stitch.fill", "args": map[string]any{"color": "#ff0000"}})
		delete(m, "id")
		if got := string(mustJSON(m)); got != `{"args":{"color":"#ff0000"},"command":"stitch.fill","extra":[1,2],"ok":true}` {
			t.Errorf("/call: got %s, want the tab's envelope verbatim", got)
		}
	})
}

// §4.2, §4.3: refusals in front of the routes.
func TestSpec4_3_Guards(t *testing.T) {
	t.Parallel()
	b := startBridge(t, bridgeOpts{token: newToken()})
	key := b.session().Key
	withOrigin := func(origin, key string) http.Header {
		h := http.Header{}
		h.Set("Origin", origin)
		if key != "" {
			h.Set("x-stitchslop-key", key)
		}
		return h
	}
	cases := []struct {
		name, method, path string
		hdr                http.Header
		want               int
	}{
		{"origin with the right key", "GET", "/status", withOrigin(testOrigin, key), 403},
		{"origin with a wrong key", "GET", "/status", withOrigin(testOrigin, "nope"), 403},
		{"origin null", "POST", "/call", withOrigin("null", key), 403},
		{"foreign origin, no key", "GET", "/tools", withOrigin("https://evil.example", ""), 403},
		{"no key", "GET", "/status", nil, 401},
		{"wrong key", "GET", "/status", keyHeader(newSecret()), 401},
		{"key prefix", "GET", "/status", keyHeader(key[:len(key)-1]), 401},
		{"one-char key", "GET", "/tools", keyHeader("k"), 401},
		{"500-char key", "POST", "/call", keyHeader(strings.Repeat("k", 500)), 401},
		{"near-miss key", "GET", "/status", keyHeader(strings.ToLower(key) + "x"), 401},
		{"unknown path", "GET", "/nope", keyHeader(key), 426},
		{"unknown path, no key", "POST", "/pairing", nil, 426},
		{"POST /status", "POST", "/status", keyHeader(key), 405},
		{"POST /tools", "POST", "/tools", keyHeader(key), 405},
		{"GET /wait", "GET", "/wait", keyHeader(key), 405},
		{"GET /call", "GET", "/call", keyHeader(key), 405},
		{"DELETE /call", "DELETE", "/call", keyHeader(key), 405},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := ctlDo(t, b.port, c.method, c.path, nil, c.hdr, "")
			if status != c.want {
				t.Errorf("%s %s: got HTTP %d %s, want %d", c.method, c.path, status, body, c.want)
			}
		})
	}
	b.mustRun()
}

// §4.4: exit codes and the one-document stdout of the CLI verbs.
func TestSpec4_4_ExitCodes(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	b.session()
	type cliCase struct {
		name  string
		args  []string
		code  int
		check func(t *testing.T, d map[string]any)
	}
	okIs := func(want bool, errCode string) func(*testing.T, map[string]any) {
		return func(t *testing.T, d map[string]any) {
			t.Helper()
			if d["ok"] != want || (errCode != "" && d["error"] != errCode) {
				t.Errorf("stdout: got %v, want ok:%v error:%q", d, want, errCode)
			}
		}
	}
	run := func(t *testing.T, cases []cliCase) {
		t.Helper()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := b.cli(c.args...)
				if r.code != c.code {
					t.Errorf("%v: got exit %d, want %d; stdout %q stderr %q", c.args, r.code, c.code, r.stdout, r.stderr)
				}
				if c.check != nil {
					c.check(t, r.doc(t))
				}
			})
		}
	}
	t.Run("no tab", func(t *testing.T) {
		run(t, []cliCase{
			{"status", []string{"status"}, 0, okIs(true, "")},
			{"tools", []string{"tools"}, 1, okIs(false, "")},
			{"wait", []string{"wait", "1"}, 1, okIs(false, "timeout")},
			{"call", []string{"call", "scene.describe", `{"limit":2}`}, 1, okIs(false, "not_connected")},
			{"unknown verb", []string{"frobnicate"}, 64, nil},
			{"call without command", []string{"call"}, 64, nil},
			{"call with bad JSON args", []string{"call", "scene.describe", "{not json"}, 64, nil},
			{"wait with bad seconds", []string{"wait", "soon"}, 64, nil},
		})
	})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "fail" {
			return map[string]any{"ok": false, "error": "no_selection", "message": "Select a shape first."}
		}
		return map[string]any{"ok": true, "command": cmd, "args": args}
	})
	b.awaitConnected(true)
	t.Run("tab", func(t *testing.T) {
		run(t, []cliCase{
			{"status", []string{"status"}, 0, func(t *testing.T, d map[string]any) {
				if d["ok"] != true || d["connected"] != true {
					t.Errorf("status: got %v, want ok and connected", d)
				}
			}},
			{"tools", []string{"tools"}, 0, okIs(true, "")},
			{"wait", []string{"wait", "5"}, 0, okIs(true, "")},
			{"call", []string{"call", "stitch.fill", `{"color":"red"}`}, 0, func(t *testing.T, d map[string]any) {
				if d["ok"] != true || d["command"] != "stitch.fill" || string(mustJSON(d["args"])) != `{"color":"red"}` {
					t.Errorf("call: got %v, want the tab's envelope", d)
				}
			}},
			{"call without args", []string{"call", "scene.describe"}, 0, okIs(true, "")},
			{"failed command", []string{"call", "fail"}, 1, okIs(false, "no_selection")},
		})
	})
}

// §4.4: the CLI with no bridge at all exits 3.
func TestSpec4_4_NoBridge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, verb := range [][]string{{"status"}, {"tools"}, {"wait", "1"}, {"call", "scene.describe"}} {
		r := runCLI(t, append([]string{"--config-dir", dir}, verb...)...)
		if r.code != 3 {
			t.Errorf("%v with no bridge: got exit %d, want 3", verb, r.code)
		}
		if strings.TrimSpace(r.stderr) == "" {
			t.Errorf("%v with no bridge: got empty stderr, want a word on why", verb)
		}
	}
}

// §4.4: call --out FILE.
func TestSpec4_4_CallOut(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x01binary\xff")
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "render.png" {
			return map[string]any{"ok": true, "width": 2, "dataUrl": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)}
		}
		return map[string]any{"ok": true, "text": "no picture here"}
	})
	b.awaitConnected(true)
	base := []string{"--config-dir", b.configDir, "--port", strconv.Itoa(b.port)}

	t.Run("image", func(t *testing.T) {
		dir := t.TempDir()
		r := runCLIIn(t, dir, append(base, "call", "render.png", "{}", "--out", "out.png")...)
		if r.code != 0 {
			t.Fatalf("call --out: got exit %d, want 0; stderr: %s", r.code, r.stderr)
		}
		want := filepath.Join(dir, "out.png")
		got, err := os.ReadFile(want)
		if err != nil || string(got) != string(png) {
			t.Errorf("%s: got %q (%v), want the decoded image bytes", want, got, err)
		}
		d := r.doc(t)
		if _, ok := d["dataUrl"]; ok {
			t.Errorf("stdout: got dataUrl, want it removed")
		}
		if d["savedTo"] != want || d["savedBytes"] != float64(len(png)) || d["savedType"] != "image/png" || d["width"] != float64(2) {
			t.Errorf("stdout: got %v, want savedTo %q savedBytes %d savedType image/png width 2", d, want, len(png))
		}
	})
	t.Run("mode follows the umask", func(t *testing.T) {
		for umask, want := range map[string]os.FileMode{"077": 0o600, "022": 0o644} {
			dir := t.TempDir()
			args := append([]string{"-c", "umask " + umask + ` && exec "$0" "$@"`, binPath}, append(base, "call", "render.png", "{}", "--out", "out.png")...)
			cmd := exec.Command("/bin/sh", args...)
			cmd.Env, cmd.Dir = childEnv(t.TempDir()), dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("call --out under umask %s: %v\n%s", umask, err, out)
			}
			if got := fileMode(t, filepath.Join(dir, "out.png")); got != want {
				t.Errorf("--out file under umask %s: mode %o, want %o", umask, got, want)
			}
		}
	})
	t.Run("no image", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.png")
		r := runCLI(t, append(base, "call", "scene.describe", "{}", "--out", out)...)
		if r.code != 0 {
			t.Errorf("call --out with no image: got exit %d, want 0 (ok:true)", r.code)
		}
		if exists(out) {
			t.Errorf("%s: got a file, want nothing written", out)
		}
		if !strings.Contains(strings.ToLower(r.stderr), "no image") {
			t.Errorf("stderr %q: got no mention of \"no image\"", r.stderr)
		}
		if d := r.doc(t); d["text"] != "no picture here" {
			t.Errorf("stdout: got %v, want the envelope", d)
		}
	})
}

// §2.4, §4.1: file modes hold under a umask of 000: the session file and
// pairing.json 0600, the config dir 0700.
func TestSpec4_1_ModesUnderOpenUmask(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, openUmask: true})
	if b.session().PID != b.pid() {
		t.Fatalf("session pid: got %d, want %d", b.session().PID, b.pid())
	}
	connectPage(t, b, map[string]any{"token": tok})
	spent(t, b.configDir, testOrigin, tok)
	for path, want := range map[string]os.FileMode{
		sessionPath(b.configDir, b.port):           0o600,
		filepath.Join(b.configDir, "pairing.json"): 0o600,
		b.configDir: 0o700,
	} {
		if m := fileMode(t, path); m != want {
			t.Errorf("%s mode under umask 000: got %o, want %o", path, m, want)
		}
	}
}

// §4.1: stale files are pruned first; then one live bridge is used.
func TestSpec4_1_StalePrunedLiveUsed(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	dead := startBridge(t, bridgeOpts{configDir: dir, token: newToken()})
	deadPath := sessionPath(dir, dead.port)
	awaitFile(t, deadPath)
	dead.signal(syscall.SIGKILL)
	dead.awaitExit()
	live := startBridge(t, bridgeOpts{configDir: dir, token: newToken()})
	live.session()
	r := runCLI(t, "--config-dir", dir, "status")
	if r.code != 0 {
		t.Fatalf("status with one stale and one live session: got exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	if d := r.doc(t); d["port"] != float64(live.port) {
		t.Errorf("status port: got %v, want the live bridge's %d", d["port"], live.port)
	}
	if exists(deadPath) {
		t.Errorf("stale session file of the SIGKILLed bridge: got it kept, want it pruned")
	}
}

// §4.4 (reference notes): output is flushed whole before exit: a reply far
// over 64 KB arrives intact through a pipe. (--raw: a 300 KB string is over
// the bulk guard's limit, which is tested in bulk_test.go.)
func TestSpec4_4_LargeReplyWhole(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("abcdefghij", 30000) // 300 KB
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(string, map[string]any) map[string]any { return map[string]any{"ok": true, "big": big} })
	b.awaitConnected(true)
	r := b.cli("call", "scene.describe", "--raw")
	if r.code != 0 {
		t.Fatalf("call: got exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	if d := r.doc(t); d["big"] != big {
		t.Errorf("call stdout: got %d bytes, want a %d-char field intact", len(r.stdout), len(big))
	}
}
