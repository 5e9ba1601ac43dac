package e2e

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestRel_CrashWhilePairing: a bridge SIGKILLed at a random moment while a
// tab redeems its token, over and over on one config dir (a fixed seed, so
// a failure replays): pairing.json and the spent-token file always read,
// a pairing acknowledged to the tab (its hello arrived) is always on disk,
// no token once spent is ever unspent, the next bridge always starts, and
// the next client prunes the dead bridge's session file.
func TestRel_CrashWhilePairing(t *testing.T) {
	t.Parallel()
	iterations := 200
	if raceEnabled {
		iterations = 60 // each -race start costs far more; the seed is the same
	}
	rng := rand.New(rand.NewPCG(13, 13))
	dir := filepath.Join(t.TempDir(), "cfg")
	port := freePort(t)
	var acked []string // tokens whose hello reached the tab
	acks := 0
	for i := range iterations {
		tok := newToken()
		cmd := exec.Command(binPath, "--origin", testOrigin, "--port", strconv.Itoa(port), "--config-dir", dir)
		cmd.Env = childEnv(t.TempDir(), "STITCHSLOP_TOKEN="+tok)
		stderr := newLineLog(nil)
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); stderr.finish(); close(exited) }()
		if _, _, ok := stderr.lines.await(0, guard, listeningRE.MatchString); !ok {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("iteration %d: the bridge did not start after the previous one was killed; stderr:\n%s", i, stderr)
		}
		c, _, err := dialWS(port, originHeader(testOrigin))
		if err != nil {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("iteration %d: dial: %v", i, err)
		}
		c.WriteMessage(websocket.TextMessage, mustJSON(map[string]any{"token": tok}))
		// The kill lands anywhere from before the redemption starts to
		// after the hello went out.
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond) // the fault's random moment
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		c.SetReadDeadline(time.Now().Add(guard))
		_, data, err := c.ReadMessage()
		c.Close()
		secret := ""
		if err == nil {
			secret = frameOf(data).str("pairingSecret")
		}

		spentLines := readSpentLines(t, dir, i)
		entry := readPairingEntry(t, dir, i)
		if secret != "" {
			acks++
			acked = append(acked, tok)
			if !contains(entry.Secrets, secret) {
				t.Fatalf("iteration %d: the tab got its pairing secret, pairing.json holds %v: the acknowledged pairing was lost", i, entry.Secrets)
			}
		}
		for _, a := range acked {
			if !slices.Contains(spentLines, fingerprint(a)) {
				t.Fatalf("iteration %d: token %s was spent (its tab got a hello) and is missing from spent-tokens: a spent token was lost", i, fingerprint(a))
			}
		}
		if i%20 == 0 || i == iterations-1 {
			// The dead bridge's session file is pruned by the next client.
			if !exists(sessionPath(dir, port)) {
				t.Fatalf("iteration %d: no session file after SIGKILL; the test expected one to prune", i)
			}
			runCLI(t, "--config-dir", dir, "status")
			if exists(sessionPath(dir, port)) {
				t.Errorf("iteration %d: the status verb left the dead bridge's session file in place, want it pruned", i)
			}
		}
	}
	t.Logf("%d SIGKILLs while pairing (seed 13), %d after the tab got its hello; nothing unreadable, nothing lost", iterations, acks)
	if acks == 0 || acks == iterations {
		t.Logf("warning: every kill landed on the same side of the hello; the moments did not spread")
	}
}

// readSpentLines reads the spent-token file, which must be absent or whole
// lines of 32 hex digits.
func readSpentLines(t *testing.T, dir string, i int) []string {
	t.Helper()
	data, err := os.ReadFile(spentTokensPath(dir))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("iteration %d: spent-tokens unreadable: %v", i, err)
	}
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		t.Fatalf("iteration %d: spent-tokens ends in a partial line: %q", i, data)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, l := range lines {
		if len(l) != 32 || strings.Trim(l, "0123456789abcdef") != "" {
			t.Fatalf("iteration %d: spent-tokens line %q is not a fingerprint: the file is damaged", i, l)
		}
	}
	return lines
}

// readPairingEntry reads pairing.json, which must be absent or valid JSON.
func readPairingEntry(t *testing.T, dir string, i int) pairingEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "pairing.json"))
	if os.IsNotExist(err) {
		return pairingEntry{}
	}
	var all map[string]json.RawMessage
	if err != nil || json.Unmarshal(data, &all) != nil {
		t.Fatalf("iteration %d: pairing.json unreadable after a SIGKILL (%v): %q", i, err, data)
	}
	var e pairingEntry
	if raw, ok := all[testOrigin]; ok {
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("iteration %d: pairing.json's entry for %s: %v", i, testOrigin, err)
		}
	}
	return e
}
