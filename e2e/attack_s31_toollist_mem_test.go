//go:build linux

package e2e

// A hostile page's tool list of one tool whose description is tens of
// megabytes (THREAT_MODEL.md T9): issue 34 item 3 bounds what one frame
// costs the bridge at twice its size, peak.

import (
	"slices"
	"strings"
	"testing"
)

// TestSec_T9_ToolDescriptionOf60MBCostsAtMostTwiceTheFrame: the
// description is cut to toollist.MaxDescription characters, but the one
// pass decodes it whole (gate.String), cleans the copy (gate.Clean, a
// second copy when one character is not ASCII), and cut makes a []rune of
// all of it, four bytes a character: some six times the description for
// 8,000 characters kept. The title and annotations' title take the same
// path.
//
// Failed on 7eab7d6, before the fix: the bridge's peak grew by 373 MB for a 60 MB
// frame, bound 120 MB (731 MB under -race, bound 480 MB).
func TestSec_T9_ToolDescriptionOf60MBCostsAtMostTwiceTheFrame(t *testing.T) {
	// Not parallel: a peak is measured.
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	frame := `{"tools":[{"name":"big","description":"é` + strings.Repeat("a", bigFileSize) + `"}]}`
	before := peakKB(t, b.pid())
	from := b.rpc.msgs.len()
	sendBig(t, p, frame)
	b.rpc.awaitListChanged(from)
	after := peakKB(t, b.pid())
	if names := b.rpc.toolNames(); !slices.Contains(names, "big") {
		t.Fatalf("tools/list = %v, want the tool big listed, its description cut", names)
	}
	bound := 2 * len(frame) >> 10
	if raceEnabled {
		bound *= raceMemory
	}
	t.Logf("bridge peak %d KiB before, %d after (+%d; bound +%d)", before, after, after-before, bound)
	if after-before > bound {
		t.Errorf("a %d KiB tool list whose one description is cut to 8,000 characters took the bridge from %d to %d KiB (+%d), want at most twice the frame (+%d KiB)", len(frame)>>10, before, after, after-before, bound)
	}
	b.mustRun()
}
