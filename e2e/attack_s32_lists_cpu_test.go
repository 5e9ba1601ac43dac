//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTime is a live process's user and system CPU time so far, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux).
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatalf("the bridge's CPU time: %v", err)
	}
	// The command, field 2, is in parentheses and may hold spaces.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// TestSec_T9_VoiceChannelOfALongSelectionCostsAboutItsReading: the
// bridge under --voice-channel, whose tab answers voice.listen with one
// utterance and 8 MB of tiny selection entries ({"name":"a"}), spends on
// that answer about what it spends on the same answer with the 8 MB in a
// member no face walks (the door's reading of it), not seconds more. It
// names 20 of the selection and counts the rest, but cleans every name in
// full first (speech's meta: Clip builds a strings.Replacer a call): some
// 4 GB of garbage and seconds of CPU an answer, and the tab may answer
// every ask. An outside attack's finding: it failed on 56bb0e5 (3.1 s against 0.11 s; under -race
// 11 s against 1.75 s), and at bf91d3c.
func TestSec_T9_VoiceChannelOfALongSelectionCostsAboutItsReading(t *testing.T) {
	// Not parallel: CPU time is measured.
	list := json.RawMessage("[" + strings.TrimSuffix(strings.Repeat(`{"name":"a"},`, 8<<20/13), ",") + "]")
	cost := func(member string) time.Duration {
		b, p := channelBridge(t, true, scripted(map[string]any{"ok": true,
			"heard": []any{map[string]any{"text": "make it red", "atMs": 1}},
			member:  list}))
		asks(t, p, 1)
		// From the ask on: the answer's cost, the door's included, each
		// the same way (some may pass before, which only lowers both).
		before := cpuTime(t, b.pid())
		if _, _, ok := b.rpc.msgs.await(0, 2*time.Minute, func(m rpcMsg) bool { return m.method() == channelMethod }); !ok {
			t.Fatalf("no channel event for the answer with %s", member)
		}
		return cpuTime(t, b.pid()) - before
	}
	read := cost("notes")
	walked := cost("selection")
	t.Logf("the answer cost the bridge %v of CPU with the list as notes, %v as the selection", read, walked)
	if walked > 3*read+500*time.Millisecond {
		t.Errorf("an answer with 8 MB of selection cost the bridge %v of CPU, the same bytes as notes %v: want at most three times it and half a second", walked, read)
	}
}
