package envelope_test

// Session 33's attacks, as a hostile page or leader, on the door's bound
// on names held open (gate.MaxOpenNames, counted by gate.Reader.Check).

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// recountReply is a reply of about size bytes whose object "h" holds
// names counted 40 bytes under gate.MaxOpenNames, open while its member
// "deep", lists nested depth deep, alternates {"x":0} and [{"y":0}]: the
// second's name finds the first's counted at a depth now a list, which
// only gate.Reader's recount, a read of the whole stack, drops. So every
// 18 bytes cost a read of depth levels.
func recountReply(size, depth int) []byte {
	var b strings.Builder
	b.WriteString(`{"id":1,"ok":true,"h":{`)
	// Counted already: "id", "ok", "h" and "deep", each with 32 bytes more.
	left := gate.MaxOpenNames - 40 - (4 + 4 + 3 + 6 + 4*32)
	for i := 0; left > 0; i++ {
		n := 1000
		if left-(n+2+32) < 40 {
			n = left - 2 - 32
		}
		b.WriteString(`"` + strconv.Itoa(i) + strings.Repeat("k", n-len(strconv.Itoa(i))) + `":0,`)
		left -= n + 2 + 32
	}
	b.WriteString(`"deep":` + strings.Repeat("[", depth))
	for b.Len() < size {
		b.WriteString(`{"x":0},[{"y":0}],`)
	}
	b.WriteString(`0` + strings.Repeat("]", depth) + `}}`)
	return []byte(b.String())
}

// TestAttack_T9_RecountReadsTheStackPerName: a reply of 1.5 MB kept just
// under the bound, its objects in lists nested 9,990 deep (jsontext's
// limit is 10,000), costs the door a read of the whole stack every 18
// bytes: 3.4 s for 2 MB where 0eaa1e9 took 41 ms, so some 200 s of a core
// for a 64 MB frame (limits.PageFrame). The same reply 10 deep takes the
// door tens of milliseconds; the depth should not cost it more than a few
// times that.
func TestAttack_T9_RecountReadsTheStackPerName(t *testing.T) {
	took := func(b []byte) time.Duration {
		best := time.Duration(1 << 62)
		for range 2 {
			start := time.Now()
			if _, err := envelope.Decode(b); err != nil {
				t.Fatalf("Decode: %v, want it answered (its names open at once are within the bound)", err)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	shallow, deep := took(recountReply(3<<19, 10)), took(recountReply(3<<19, 9990))
	t.Logf("1.5 MB, lists 10 deep: %v; 9,990 deep: %v", shallow, deep)
	if deep > 10*shallow {
		t.Errorf("a reply kept at the bound on names open at once, its objects in lists 9,990 deep, took the door %v, %.0f times the same reply 10 deep (%v)", deep, float64(deep)/float64(shallow), shallow)
	}
}

// nestedNamesObject is an object of about size bytes: members after "ok"
// objects nested levels deep of members short names each.
func nestedNamesObject(size, levels, members int) []byte {
	var b strings.Builder
	b.WriteString(`{"ok":true`)
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
	return []byte(b.String() + `}`)
}

// TestAttack_T9_IntoBoundsNamesHeldOpen: a leader's /status and /wait
// answers are read by envelope.Into (jsonv2.Unmarshal), which keeps every
// name of every open object as the door's reader does, but counts none:
// what the door refuses for the names it holds open, Into reads whole
// (a 20 MB answer so allocates some 370 MB, all of it held at once;
// e2e TestAttack_T9_LeaderAnswerNamesHeldOpen measures the follower).
// THREAT_MODEL.md T9 says a leader's /status and /wait pass the door a
// tab's frames pass.
func TestAttack_T9_IntoBoundsNamesHeldOpen(t *testing.T) {
	b := nestedNamesObject(1<<20, 20, 9999)
	if _, err := envelope.Decode(b); !errors.Is(err, envelope.ErrBadNames) {
		t.Fatalf("Decode of objects of 9,999 names nested 20 deep: %v, want refused for its names", err)
	}
	var st struct {
		OK bool `json:"ok"`
	}
	if err := envelope.Into(b, &st); err == nil {
		t.Errorf("Into read objects of 9,999 names nested 20 deep (%d KiB), names the door refuses a tab for holding open at once; want refused", len(b)>>10)
	}
}
