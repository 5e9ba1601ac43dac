//go:build linux

package e2e

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nestedNames is a reply's members after its id, of about size bytes:
// objects nested levels deep, each of members short names and the next
// level, again and again. The standard's reader keeps every name of every
// object open (its check for a name given twice), some 60 bytes a name
// of 6.
func nestedNames(size, levels, members int) string {
	var b strings.Builder
	b.WriteString(`"ok":true,"say":"Described."`)
	for o := 0; b.Len() < size; o++ {
		b.WriteString(`,"n` + strconv.Itoa(o) + `":`)
		for range levels {
			b.WriteString(`{`)
			for i := range members {
				b.WriteString(`"` + strconv.Itoa(i) + `":0,`)
			}
			b.WriteString(`"n":`)
		}
		b.WriteString(`0` + strings.Repeat("}", levels))
	}
	return b.String()
}

// wideNames is a reply's members after its id: objects objects of
// members names of width bytes each (an outside attack's, session 32).
func wideNames(objects, members, width int) string {
	var b strings.Builder
	b.WriteString(`"ok":true`)
	for o := range objects {
		b.WriteString(`,"o` + strconv.Itoa(o) + `":{`)
		for i := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			n := strconv.Itoa(i)
			b.WriteString(`"` + n + strings.Repeat("a", width-len(n)) + `":0`)
		}
		b.WriteString(`}`)
	}
	return b.String()
}

// TestSec_T9_NamesHeldOpenAreBounded: a 20 MB reply of objects of 9,999
// short names nested 250 deep grew the bridge's peak by 180 MB, nine
// times the reply: the standard's reader keeps the names of the last
// object at each level of nesting (its check for a name given twice). The
// door now refuses it by its bound on the names so held
// (gate.MaxOpenNames), as it does two
// objects of 9,990 names of 1,000 bytes (+49 to +60 MB before), and
// answers a reply of the same size whose objects are 2 deep. Each costs
// at most four times the reply: here a reply of one 20 MB string grows
// the peak by 41 to 60 MB, the frame and the collector's room, and these
// by as much.
func TestSec_T9_NamesHeldOpenAreBounded(t *testing.T) {
	// Not parallel: peaks are measured.
	const size = 20 << 20
	for _, tt := range []struct {
		name    string
		body    string
		refused bool
	}{
		{"250 deep", nestedNames(size, 250, 9999), true},
		{"2 deep", nestedNames(size, 2, 9999), false},
		{"wide names", wideNames(2, 9990, 1000), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			answer, grew := peakGrowthOf(t, tt.body)
			bound := 4 * len(tt.body) >> 10
			if raceEnabled { // its own room varies more: 6 times
				bound = 6 * raceMemory * len(tt.body) >> 10
			}
			t.Logf("a reply of %d KiB: the bridge's peak grew by %d KiB", len(tt.body)>>10, grew)
			if refused := strings.Contains(answer, "member names"); refused != tt.refused || !strings.Contains(answer, `"isError":`+strconv.FormatBool(tt.refused)) {
				t.Errorf("the answer %.400s; want it refused for its names: %v", answer, tt.refused)
			}
			if grew > bound {
				t.Errorf("a reply of %d KiB grew the bridge's peak by %d KiB, want at most four times the reply (+%d KiB)", len(tt.body)>>10, grew, bound)
			}
		})
	}
}

// peakGrowthOf calls scene.describe over MCP on a new bridge whose tab
// answers body, raw, and returns the answer and how much the bridge's
// peak resident set grew, in KiB.
func peakGrowthOf(t *testing.T, body string) (string, int) {
	t.Helper()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "scene.describe" {
			return nil // answered raw below
		}
		return defaultHandler(cmd, args)
	})
	before := peakKB(t, b.pid())
	from := len(p.frames.all())
	id := b.rpc.request("tools/call", map[string]any{"name": "scene.describe", "arguments": map[string]any{}})
	f, _ := p.frameAt(from, func(f frame) bool { return f.str("command") == "scene.describe" })
	rawReply(t, p, f, body)
	resp := b.rpc.responseWithin(id, 2*time.Minute)
	return resp.raw, peakKB(t, b.pid()) - before
}

// TestSec_T9_FollowerRefusesALeaderStatusOfNamesHeldOpen: a leader whose
// /status is 20 MB of objects of 9,999 short names nested 250 deep is not
// followed, and costs the follower what reading the answer costs: an
// answer of a known shape is refused past envelope.MaxShaped before JSON
// v2, which keeps names as jsontext does, reads it. Before, each
// /status of it grew the follower's peak by some 180 MB.
func TestSec_T9_FollowerRefusesALeaderStatusOfNamesHeldOpen(t *testing.T) {
	// Not parallel: a peak is measured.
	dir := filepath.Join(t.TempDir(), "cfg")
	status := `{"connected":true,"origin":"` + testOrigin + `","protocol":1,"tools":["render.png"],` + nestedNames(20<<20, 250, 9999) + `}`
	(&fakeLeader{status: func(w io.Writer) { io.WriteString(w, status) }, call: func(string) []byte { return describeAnswer }}).start(t, dir)
	b := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true,
		args: []string{"--lazy", "--port", strconv.Itoa(freePort(t))}})
	b.rpc.initialize()
	before := peakKB(t, b.pid())
	b.rpc.toolCallWithin("wait_for_connection", map[string]any{"timeoutSeconds": 2}, 3*guard)
	grew := peakKB(t, b.pid()) - before
	bound := 4 * len(status) >> 10
	if raceEnabled { // its own room varies more: 6 times
		bound = 6 * raceMemory * len(status) >> 10
	}
	t.Logf("a /status of %d KiB: the follower's peak grew by %d KiB", len(status)>>10, grew)
	if strings.Contains(b.stderr.String(), "following the bridge on port") {
		t.Errorf("the bridge followed a leader whose /status is %d KiB of names; stderr:\n%s", len(status)>>10, b.stderr)
	}
	if grew > bound {
		t.Errorf("a leader's /status of %d KiB grew the follower's peak by %d KiB, want at most four times the answer (+%d KiB)", len(status)>>10, grew, bound)
	}
	b.awaitListening()
	b.mustRun()
}
