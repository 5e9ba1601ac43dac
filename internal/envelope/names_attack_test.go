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
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// recountReply is a reply of about size bytes whose object "h" holds
// names counted 200 bytes under gate.MaxOpenNames, open while its member
// "deep", lists nested depth deep, alternates {"x":0} and [{"y":0}]: the
// second's name found the first's counted at a depth now a list, which
// only gate.Reader's recount (on 0d94c7a, since gone: the count is now by
// level of objects, as jsontext holds names) dropped, a read of the whole
// stack every 18 bytes.
func recountReply(size, depth int) []byte {
	var b strings.Builder
	b.WriteString(`{"id":1,"ok":true,"h":{`)
	// Counted already: "id", "ok", "h" and "deep", each twice and 64
	// bytes more; and {"x":0}'s, beside "h" at its level.
	cost := func(raw int) int { return 2*raw + 64 }
	left := gate.MaxOpenNames - 200 - (cost(4) + cost(4) + cost(3) + cost(6))
	for i := 0; left > 0; i++ {
		n := 1000
		if left-cost(n+2) < 200 {
			n = (left-64)/2 - 2
		}
		b.WriteString(`"` + strconv.Itoa(i) + strings.Repeat("k", n-len(strconv.Itoa(i))) + `":0,`)
		left -= cost(n + 2)
	}
	b.WriteString(`"deep":` + strings.Repeat("[", depth))
	for b.Len() < size {
		b.WriteString(`{"x":0},[{"y":0}],`)
	}
	b.WriteString(`0` + strings.Repeat("]", depth) + `}}`)
	return []byte(b.String())
}

// TestAttack_T9_RecountReadsTheStackPerName: a reply of 1.25 MB kept just
// under the bound, its objects in lists nested 9,990 deep (jsontext's
// limit is 10,000), cost the door a read of the whole stack every 18
// bytes on 0d94c7a: 3.4 s for 2 MB where 0eaa1e9 took 41 ms, so some 200 s
// of a core for a 64 MB frame (limits.PageFrame). The same reply 10 deep
// takes the door tens of milliseconds; the depth should not cost it more
// than a few times that.
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
	shallow, deep := took(recountReply(5<<18, 10)), took(recountReply(5<<18, 9990))
	t.Logf("1.25 MB, lists 10 deep: %v; 9,990 deep: %v", shallow, deep)
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
// on 0d94c7a, what the door refuses for the names it holds open Into read
// whole (a 20 MB answer so allocated some 370 MB, all of it held at once;
// e2e TestAttack_T9_LeaderAnswerNamesHeldOpen measures the follower).
// Held since 8ea9c44, which refuses an answer over envelope.MaxShaped.
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

// TestAttack_T9_ShapesWithinTheBoundAreAnswered: replies of many names in
// all, few of them held at once, are answered; the count lets go of what
// jsontext lets go of (lists of objects, objects after lists at their
// depth, lists of lists of objects, objects after a deeper one, a big
// tool list). Held on 0d94c7a.
func TestAttack_T9_ShapesWithinTheBoundAreAnswered(t *testing.T) {
	names := func(prefix string, n, width int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			k := prefix + strconv.Itoa(i)
			b.WriteString(`"` + k + strings.Repeat("a", max(0, width-len(k))) + `":0`)
		}
		return b.String()
	}
	repeat := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f(i))
		}
		return b.String()
	}
	big := `{` + names("k", 9000, 80) + `}` // 1 MB counted of the bound's 1 MiB: one at a time
	half := `{` + names("k", 4000, 80) + `}`
	for _, tt := range []struct{ name, members string }{
		{"a list of objects", `"l":[` + repeat(20, func(int) string { return big }) + `]`},
		{"objects after lists at their depth", repeat(20, func(i int) string {
			return `"l` + strconv.Itoa(i) + `":[` + half + `],"o` + strconv.Itoa(i) + `":` + half
		})},
		{"lists of lists of objects", `"l":[` + repeat(20, func(i int) string {
			return strings.Repeat("[", i%5) + half + strings.Repeat("]", i%5)
		}) + `]`},
		{"an object then a list of one deeper", `"l":[` + repeat(20, func(int) string { return half + `,[[` + half + `]]` }) + `]`},
		{"an object's child before its names", `"o":` + repeat(1, func(int) string {
			return `{"c":` + half + `,` + names("m", 4000, 80) + `}`
		})},
		{"objects each of names, in an object", `"o":{` + repeat(20, func(i int) string { return `"o` + strconv.Itoa(i) + `":` + half }) + `}`},
		{"a big tool list", `"tools":[` + repeat(500, func(i int) string {
			return `{"name":"t` + strconv.Itoa(i) + `","inputSchema":{"type":"object","properties":{` +
				repeat(100, func(j int) string {
					return `"p` + strconv.Itoa(j) + `":{"type":"string","description":"` + strings.Repeat("d", 100) + `"}`
				}) + `}}}`
		}) + `]`},
	} {
		b := []byte(`{"id":1,"ok":true,` + tt.members + `}`)
		if _, err := envelope.Decode(b); err != nil {
			t.Errorf("%s (%d KiB): %v, want answered", tt.name, len(b)>>10, err)
		}
	}
	// A tools frame, read by the tool list's reader: each tool's schema of
	// 1 MB of names, one tool's at a time. (Its annotations were of 4,000
	// names: jsontext holds a schema's properties until another object
	// opens at their level, so they and the annotations after them are
	// over the bound together, and refused.)
	small := `{` + names("a", 100, 80) + `}`
	b := []byte(`{"tools":[` + repeat(20, func(i int) string {
		return `{"name":"t` + strconv.Itoa(i) + `","inputSchema":{"type":"object","properties":` + big + `},"annotations":` + small + `}`
	}) + `]}`)
	var l toollist.List
	if _, err := envelope.DecodeTools(b, toollist.Sanitize(&l, nil)); err != nil {
		t.Errorf("a tools frame of 20 tools of 1 MB of names each (%d KiB): %v, want read", len(b)>>10, err)
	}
}
