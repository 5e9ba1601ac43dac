package e2e

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestAttack_T9_CallToFilesOfWideNamesCostsAtMostTwiceTheReply: the bound
// of TestSec_CallToFilesOf60MBFileCostsAtMostTwiceTheReply for a reply of
// about 20 MB whose files list is two entries of 9,990 members with
// 1,000-byte names (envelope.MaxName is 1,024, MaxMembers 10,000) beside
// name and dataUrl. Found: +49 MB, about 2.5 times the reply (the parent
// of the merge: +76 MB). envelope.List.Entries decodes every name of
// every entry the door kept into a string of its own (checkName with
// keyOf: a copy of the name) although replyfiles reads two of them, and
// Object.Without clones them, so that Save allocates 24 MB for the 20 MB
// reply while the reply is still held; the gate then quotes each name
// again (gate.Guard.appendList, AppendString) while counting the members
// past its budget. Measured in-process: Save allocates 24,475 KiB,
// writing its answer 10,953 KiB.
func TestAttack_T9_CallToFilesOfWideNamesCostsAtMostTwiceTheReply(t *testing.T) {
	// Not parallel: a peak is measured.
	png := base64.StdEncoding.EncodeToString(pngBytes)
	var sb strings.Builder
	sb.WriteString(`"ok":true,"files":[`)
	for e := range 2 {
		if e > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("{")
		for i := range 9_990 {
			fmt.Fprintf(&sb, `"%s%05d":0,`, strings.Repeat("n", 1000), i)
		}
		fmt.Fprintf(&sb, `"name":"f%d.png","dataUrl":"data:image/png;base64,%s"}`, e, png)
	}
	sb.WriteString("]")
	body := sb.String()
	b, p := mcpTab(t, "")
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "scene.describe" {
			return nil // answered raw below
		}
		return defaultHandler(cmd, args)
	})
	before := peakKB(t, b.pid())
	from := len(p.frames.all())
	dir := t.TempDir()
	id := b.rpc.request("tools/call", map[string]any{"name": "call_to_files", "arguments": map[string]any{"command": "scene.describe", "dir": dir}})
	f, _ := p.frameAt(from, func(f frame) bool { return f.str("command") == "scene.describe" })
	rawReply(t, p, f, body)
	b.rpc.responseWithin(id, 2*time.Minute)
	if names, _ := os.ReadDir(dir); len(names) != 2 {
		t.Fatalf("call_to_files saved %d files, want 2", len(names))
	}
	after := peakKB(t, b.pid())
	bound := 2 * len(body) >> 10
	if raceEnabled {
		bound *= raceMemory
	}
	t.Logf("bridge peak %d KiB before, %d after (+%d; bound +%d)", before, after, after-before, bound)
	if after-before > bound {
		t.Errorf("call_to_files of a %d KiB reply of wide names took the bridge from %d to %d KiB (+%d), want at most twice the reply (+%d KiB)", len(body)>>10, before, after, after-before, bound)
	}
}
