package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// contentionBridges is how many bridges share the config dir, each for a
// site of its own (issue 13: four).
const contentionBridges = 4

// contentionRounds is how many tokens each bridge redeems in turn: more
// than the five secrets an entry keeps, so the trim runs under contention
// too. Under -race every child costs several times more; the shape of the
// run is the same.
func contentionRounds() int {
	if raceEnabled {
		return 7
	}
	return 14
}

// Stored-pairing bounds the test checks against (internal/pairing
// MaxSecrets, security/ledger Keep): written here, not imported, so a
// change there shows here.
const (
	keptSecrets = 5
	keptUsed    = 20
)

// TestRel_Contention: four bridges for four sites on one config dir, each
// redeeming a fresh token every round (armed in turn by the first
// bridge's STITCHSLOP_TOKEN, POST /pair and the pair verb), re-attaching
// by the secret it got, and answering a call verb; all the while a shell
// runs status against every bridge, unpairs sites no bridge serves, and
// tries to arm tokens already spent at another bridge. Every pairing
// acknowledged to a page (its hello carried pairingSecret) is on disk the
// moment the page has it and at the end (the newest five of each site, in
// order); every spent token is in the spent-token file at the end and in
// its site's usedTokens; no spent token is armed again anywhere; and
// pairing.json parses throughout, with no temp file left.
func TestRel_Contention(t *testing.T) {
	t.Parallel()
	rounds := contentionRounds()
	dir := filepath.Join(t.TempDir(), "cfg")
	home := t.TempDir()
	// Sites no bridge serves, paired, for the shell to unpair meanwhile.
	spare := map[string]any{}
	var spareSites []string
	for i := range 6 {
		s := fmt.Sprintf("http://127.0.0.1:%d", 47100+i)
		spare[s] = pairingFor(newSecret())
		spareSites = append(spareSites, s)
	}
	seedPairing(t, dir, spare)

	type worker struct {
		site    string
		b       *bridge
		key     string
		tokens  []string // spent, in order
		secrets []string // acknowledged, in order
		calls   int
	}
	ws := make([]*worker, contentionBridges)
	for i := range ws {
		site := fmt.Sprintf("http://127.0.0.1:%d", 47000+i)
		tok := newToken()
		b := startBridge(t, bridgeOpts{origin: site, configDir: dir, token: tok})
		ws[i] = &worker{site: site, b: b, key: b.session().Key, tokens: []string{tok}}
	}

	// shared records what every worker has had acknowledged so far, for
	// the shell to replay at other bridges.
	var sharedMu sync.Mutex
	var shared []string

	var wg sync.WaitGroup
	workersDone := make(chan struct{})
	for i, w := range ws {
		next := ws[(i+1)%len(ws)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				tok := w.tokens[len(w.tokens)-1]
				if r > 0 {
					tok = newToken()
					if err := armToken(w.b.port, w.key, dir, home, w.site, tok, r%2 == 0); err != nil {
						t.Errorf("bridge %d round %d: arming a fresh token: %v", i, r, err)
						return
					}
					w.tokens = append(w.tokens, tok)
				}
				secret, err := redeemAndServe(w.b.port, w.key, dir, home, w.site, tok, r)
				if err != nil {
					t.Errorf("bridge %d (%s) round %d: %v; its stderr:\n%s", i, w.site, r, err, w.b.stderr)
					return
				}
				w.secrets = append(w.secrets, secret)
				w.calls++
				sharedMu.Lock()
				shared = append(shared, tok)
				sharedMu.Unlock()
				// The token just spent here, offered to the next bridge:
				// spent is spent, whichever bridge is asked.
				if armed, err := armSpent(next.b.port, next.key, tok); err != nil || armed {
					t.Errorf("bridge %d round %d: arming the token spent at %s again at %s: armed %v, %v; want it refused or not armed", i, r, w.site, next.site, armed, err)
					return
				}
			}
		}()
	}

	// The shell, meanwhile: status against every bridge, unpair of the
	// spare sites, and a spent token offered through the pair verb.
	var verbs int
	shellDone := make(chan struct{})
	go func() {
		defer close(shellDone)
		for n := 0; ; n++ {
			select {
			case <-workersDone:
				if n >= 3*len(spareSites) { // every spare site unpaired once
					return
				}
			default:
			}
			w := ws[n%len(ws)]
			r, err := runVerb(home, nil, "--config-dir", dir, "--port", strconv.Itoa(w.b.port), "status")
			if err != nil || r.code != 0 || !jsonOK(r.stdout) {
				t.Errorf("status --port %d under contention: exit %d, %v, stdout %q, stderr %q", w.b.port, r.code, err, r.stdout, r.stderr)
				return
			}
			verbs++
			if n%3 == 0 {
				s := spareSites[(n/3)%len(spareSites)]
				r, err := runVerb(home, nil, "--config-dir", dir, "unpair", s)
				if err != nil || r.code != 0 || !jsonOK(r.stdout) {
					t.Errorf("unpair %s under contention: exit %d, %v, stdout %q, stderr %q", s, r.code, err, r.stdout, r.stderr)
					return
				}
				verbs++
			}
			sharedMu.Lock()
			var old string
			if len(shared) > 0 {
				old = shared[n%len(shared)]
			}
			sharedMu.Unlock()
			if old != "" && n%3 == 1 {
				r, err := runVerb(home, []string{"STITCHSLOP_TOKEN=" + old}, "--config-dir", dir, "--port", strconv.Itoa(w.b.port), "pair")
				var doc map[string]any
				json.Unmarshal([]byte(r.stdout), &doc)
				if err != nil || doc["armed"] == true {
					t.Errorf("pair verb with a spent token at %s: exit %d, %v, stdout %q; want it not armed", w.site, r.code, err, r.stdout)
					return
				}
				verbs++
			}
			if got := unlockedPairingRead(dir); got != nil {
				t.Errorf("pairing.json under contention: %v", got)
				return
			}
		}
	}()
	wg.Wait()
	close(workersDone)
	<-shellDone
	if t.Failed() {
		return
	}

	// At the end: everything acknowledged is on disk.
	spentLines := readSpentLines(t, dir, rounds)
	all := 0
	for i, w := range ws {
		w.b.mustRun()
		e := readPairing(t, dir, w.site)
		want := slices.Clone(w.secrets[max(0, len(w.secrets)-keptSecrets):])
		slices.Reverse(want)
		if !slices.Equal(e.Secrets, want) || e.Secret != want[0] {
			t.Errorf("bridge %d: pairing.json holds secret %.6s… and secrets %d, want the %d acknowledged last, newest first (got %q, want %q)", i, e.Secret, len(e.Secrets), len(want), e.Secrets, want)
		}
		var fps []string
		for _, tok := range w.tokens {
			fps = append(fps, fingerprint(tok))
			if !slices.Contains(spentLines, fingerprint(tok)) {
				t.Errorf("bridge %d: token %s was spent (its hello was acknowledged) and is not in spent-tokens: a spent token was lost", i, fingerprint(tok))
			}
		}
		if wantUsed := fps[max(0, len(fps)-keptUsed):]; !slices.Equal(e.UsedTokens, wantUsed) {
			t.Errorf("bridge %d: usedTokens %q, want the %d spent here, in order %q", i, e.UsedTokens, len(wantUsed), wantUsed)
		}
		all += len(w.tokens)
	}
	for _, s := range spareSites {
		if e := readPairing(t, dir, s); len(e.Secrets) != 0 || e.Secret != "" {
			t.Errorf("spare site %s: secrets %q after unpair, want none", s, e.Secrets)
		}
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmps) > 0 {
		t.Errorf("temp files left in the config dir: %q", tmps)
	}
	t.Logf("%d bridges on one config dir, %d rounds each: %d tokens spent and %d pairings acknowledged, all on disk; %d shell verbs alongside", len(ws), rounds, all, all, verbs)
}

// armToken arms tok for site at the bridge on port, by POST /pair or by
// the pair verb (STITCHSLOP_TOKEN in its environment).
func armToken(port int, key, dir, home, site, tok string, byVerb bool) error {
	var doc map[string]any
	if byVerb {
		r, err := runVerb(home, []string{"STITCHSLOP_TOKEN=" + tok}, "--config-dir", dir, "--port", strconv.Itoa(port), "pair", "--origin", site)
		if err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 0 {
			return fmt.Errorf("pair verb: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	} else {
		status, m, err := ctlJSON(port, key, "POST", "/pair", map[string]any{"token": tok})
		if err != nil {
			return err
		}
		if status != 200 {
			return fmt.Errorf("POST /pair: HTTP %d %v", status, m)
		}
		doc = m
	}
	if doc["armed"] != true {
		return fmt.Errorf("a fresh token was not armed: %v", doc)
	}
	return nil
}

// armSpent offers a spent token to the bridge on port by POST /pair, and
// reports whether the bridge armed it.
func armSpent(port int, key, tok string) (bool, error) {
	status, m, err := ctlJSON(port, key, "POST", "/pair", map[string]any{"token": tok})
	if err != nil {
		return false, err
	}
	if status == 400 && m["error"] == "spent_token" {
		return false, nil
	}
	if status != 200 {
		return false, fmt.Errorf("HTTP %d %v", status, m)
	}
	return m["armed"] == true, nil
}

// redeemAndServe is one round of a page: it redeems tok and checks that
// the pairing and the spent token are on disk the moment its hello came,
// answers a call verb, leaves, re-attaches by the secret it got, and
// leaves again. It returns the acknowledged secret.
func redeemAndServe(port int, key, dir, home, site, tok string, round int) (string, error) {
	c, hello, err := attach(port, site, map[string]any{"token": tok})
	if err != nil {
		return "", fmt.Errorf("redeeming a fresh token: %v", err)
	}
	secret, _ := hello["pairingSecret"].(string)
	if secret == "" {
		c.Close()
		return "", fmt.Errorf("hello %v: no pairingSecret for a fresh token", hello)
	}
	if err := onDisk(dir, site, tok, secret); err != nil {
		c.Close()
		return "", fmt.Errorf("the moment the hello arrived: %v", err)
	}
	// The tab answers one call from the shell.
	if err := writeJSONFrame(c, map[string]any{"tools": defaultTools}); err != nil {
		c.Close()
		return "", err
	}
	served := make(chan error, 1)
	go func() { served <- answerCalls(c) }() // the only writer from here on
	args := fmt.Sprintf(`{"round":%d}`, round)
	r, err := runVerb(home, nil, "--config-dir", dir, "--port", strconv.Itoa(port), "call", "render.png", args)
	c.Close()
	<-served
	if err != nil {
		return "", err
	}
	var reply struct {
		OK   bool           `json:"ok"`
		Args map[string]any `json:"args"`
	}
	if json.Unmarshal([]byte(r.stdout), &reply) != nil || r.code != 0 || !reply.OK || reply.Args["round"] != float64(round) {
		return "", fmt.Errorf("call verb: exit %d, stdout %q, stderr %q; want the tab's reply echoing round %d", r.code, r.stdout, r.stderr, round)
	}
	if err := awaitDetached(port, key); err != nil {
		return "", err
	}
	// The stored pairing works, read while other bridges write.
	c, hello, err = attach(port, site, map[string]any{"secret": secret})
	if err != nil {
		return "", fmt.Errorf("re-attaching by the secret just acknowledged: %v", err)
	}
	c.Close()
	if _, ok := hello["pairingSecret"]; ok {
		return "", fmt.Errorf("hello %v to a stored pairing carries a pairingSecret", hello)
	}
	return secret, awaitDetached(port, key)
}

// attach dials as a page of site, sends first, and returns the socket and
// the hello; a refusal is an error.
func attach(port int, site string, first map[string]any) (*websocket.Conn, map[string]any, error) {
	c, _, err := dialWS(port, originHeader(site))
	if err != nil {
		return nil, nil, err
	}
	if err := writeJSONFrame(c, first); err != nil {
		c.Close()
		return nil, nil, err
	}
	c.SetReadDeadline(time.Now().Add(guard))
	_, data, err := c.ReadMessage()
	c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("reading the hello: %v", err)
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || m["hello"] != "stitchslop-connector" {
		c.Close()
		return nil, nil, fmt.Errorf("first reply %s, want a hello", data)
	}
	return c, m, nil
}

func writeJSONFrame(c *websocket.Conn, v any) error {
	c.SetWriteDeadline(time.Now().Add(guard))
	return c.WriteMessage(websocket.TextMessage, mustJSON(v))
}

// answerCalls answers every command on c with defaultHandler until c
// closes.
func answerCalls(c *websocket.Conn) error {
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			return err
		}
		var f map[string]json.RawMessage
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		var cmd string
		var args map[string]any
		if json.Unmarshal(f["command"], &cmd) != nil {
			continue
		}
		json.Unmarshal(f["args"], &args)
		out := defaultHandler(cmd, args)
		out["id"] = f["id"]
		if err := writeJSONFrame(c, out); err != nil {
			return err
		}
	}
}

// onDisk checks that pairing.json holds secret for site and that tok is
// spent in its usedTokens and in the spent-token file. Both files are
// replaced by rename, so reading them without the lock is safe.
func onDisk(dir, site, tok, secret string) error {
	data, err := os.ReadFile(filepath.Join(dir, "pairing.json"))
	if err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("pairing.json does not parse: %v", err)
	}
	raw, ok := top[site]
	if !ok {
		return fmt.Errorf("pairing.json has no entry for %s: the acknowledged pairing was lost", site)
	}
	var e pairingEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("pairing.json entry for %s: %v", site, err)
	}
	if !contains(e.Secrets, secret) {
		return fmt.Errorf("pairing.json: the acknowledged secret is not among %s's %d secrets", site, len(e.Secrets))
	}
	if !contains(e.UsedTokens, fingerprint(tok)) {
		return fmt.Errorf("pairing.json: %s is not in %s's usedTokens", fingerprint(tok), site)
	}
	spentData, err := os.ReadFile(spentTokensPath(dir))
	if err != nil {
		return err
	}
	if !bytes.Contains(spentData, []byte(fingerprint(tok)+"\n")) {
		return fmt.Errorf("spent-tokens: %s is missing", fingerprint(tok))
	}
	return nil
}

// unlockedPairingRead reports a pairing.json that does not parse.
func unlockedPairingRead(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "pairing.json"))
	if err != nil {
		return err
	}
	var top map[string]json.RawMessage
	return json.Unmarshal(data, &top)
}

// ctlJSON is one control-plane request with the session key, safe from any
// goroutine.
func ctlJSON(port int, key, method, path string, body any) (int, map[string]any, error) {
	status, data, err := ctlRaw(port, method, path, body, keyHeader(key), "")
	if err != nil {
		return 0, nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return status, nil, fmt.Errorf("%s %s: HTTP %d, body %q is not a JSON object", method, path, status, data)
	}
	return status, m, nil
}

// awaitDetached polls /status until no tab is attached: the next page of
// the site would be refused as busy before.
func awaitDetached(port int, key string) error {
	deadline := time.Now().Add(guard)
	for {
		_, st, err := ctlJSON(port, key, "GET", "/status", nil)
		if err != nil {
			return err
		}
		if st["connected"] == false {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("/status %v: the tab that left is still attached after %v", st, guard)
		}
		time.Sleep(10 * time.Millisecond) // polling; the detach has no event the shell can await
	}
}

// runVerb runs a CLI verb, safe from any goroutine: HOME is home, env is
// added.
func runVerb(home string, env []string, args ...string) (cliResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = childEnv(home, env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if cmd.ProcessState == nil {
		return cliResult{}, fmt.Errorf("run %v: %v", args, err)
	}
	r := cliResult{code: cmd.ProcessState.ExitCode(), stdout: so.String(), stderr: se.String()}
	if crashed(r.stderr) {
		return r, fmt.Errorf("%v crashed: %s", args, r.stderr)
	}
	return r, nil
}

// crashed reports a panic, a runtime fatal error or a race in stderr.
func crashed(stderr string) bool {
	for _, s := range []string{"panic:", "fatal error:", "goroutine ", "DATA RACE"} {
		if bytes.Contains([]byte(stderr), []byte(s)) {
			return true
		}
	}
	return false
}

// jsonOK reports whether stdout is a JSON object saying ok:true.
func jsonOK(stdout string) bool {
	var m map[string]any
	return json.Unmarshal([]byte(stdout), &m) == nil && m["ok"] == true
}
