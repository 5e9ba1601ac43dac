package replyfiles

import (
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// TestSec_T9_SaveOfWideNamesAllocatesLessThanTwiceTheReply: saving a
// reply of about 20 MB whose files list is 20 entries of 1,000 members
// with 1,000-byte names (gate.MaxMemberName is 1,024; the door holds
// gate.MaxOpenNames of names open, about 1,000 of these; the outside
// attack on call_to_files that found this sent two entries of 9,990)
// beside name and dataUrl allocates less than twice the reply: the list shown in its place, about the
// reply's size, is written from the entries' pieces, each entry grown
// into once (envelope.Entry.AppendTo, gate.List). Before, 163 MB: every name of
// every entry copied into a string (ObjectOf, since gone), cloned again
// (Object.Without), and the list grown by append.
//
// Escaped is the same reply with one escape ("\/", a "/" to any JSON
// reader) at the start of each name: Entry.named decoded an escaped name
// every time it compared it, ten times a member, and the reply cost 230
// MB (an outside attack's finding, on 56bb0e5); it now decodes only a
// name whose length can match.
func TestSec_T9_SaveOfWideNamesAllocatesLessThanTwiceTheReply(t *testing.T) {
	for name, escape := range map[string]string{"plain": "", "escaped": `\/`} {
		t.Run(name, func(t *testing.T) {
			b := wideNames(escape)
			if got, saved := saveAllocs(t, b); saved != wideEntries || got >= uint64(2*len(b)) {
				t.Errorf("Save saved %d files and allocated %d KiB for a %d KiB reply, want %d and less than twice the reply", saved, got>>10, len(b)>>10, wideEntries)
			} else {
				t.Logf("Save allocated %d KiB for a %d KiB reply", got>>10, len(b)>>10)
			}
		})
	}
}

const wideEntries = 20

// wideNames is a reply of wideEntries files entries of 1,000 members
// whose 1,000-byte names start with prefix.
func wideNames(prefix string) []byte {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	var sb strings.Builder
	sb.WriteString(`{"ok":true,"files":[`)
	for e := range wideEntries {
		if e > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("{")
		for i := range 1_000 {
			fmt.Fprintf(&sb, `"%s%s%05d":0,`, prefix, strings.Repeat("n", 1000), i)
		}
		fmt.Fprintf(&sb, `"name":"f%d.png","dataUrl":"data:image/png;base64,%s"}`, e, png)
	}
	return []byte(sb.String() + "]}")
}

// saveAllocs decodes b and returns what Save of it allocates, and how
// many files it saved.
func saveAllocs(t *testing.T, b []byte) (alloc uint64, saved int) {
	t.Helper()
	env, err := envelope.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := Save(env, Options{Dir: t.TempDir()})
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, len(r.Saved)
}
