package e2e

// listen's output is bounded whatever the tab sends (issue 27 item 6): a
// line is at most 8 KB and one JSON object of the documented shape, and
// what it prints in 3 seconds is about 64 KB at most, here a tab that
// answers every voice.listen at once with 60 long utterances and a
// selection of 150 long names, in characters that JSON escapes to six
// bytes, with forged lines in them.

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Written from the spec, not from listen's constants.
const (
	listenMaxLine   = 8 << 10
	listenMaxRate   = 64 << 10
	listenRateSpan  = 3 * time.Second
	listenFloodAsks = 5
)

func TestSec_ListenBoundedWhateverTheTabSends(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPageListing(t, b, map[string]any{"token": tok}, voiceTools)
	wide := strings.Repeat("\u2028\"é😀<\x1b", 150) + "\"}\n{\"forged\":true}\n"
	var sel []any
	seps := strings.Repeat("\u2028", 250) // six bytes each, as JSON
	for i := range 120 {
		sel = append(sel, map[string]any{"id": "s" + strconv.Itoa(i) + seps, "name": seps + wide})
	}
	// asked[k] is when ask k reached the tab, answered[k] when the tab
	// had its answer ready: ask k's lines were written between
	// answered[k] and asked[k+1], since listen asks again only after it
	// has printed them.
	var mu sync.Mutex
	var asked, answered []time.Time
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd != "voice.listen" {
			return defaultHandler(cmd, args)
		}
		mu.Lock()
		defer mu.Unlock()
		k := len(asked)
		asked = append(asked, time.Now())
		if k == listenFloodAsks {
			return refusedBy("Enough.")
		}
		var heard []any
		for i := range 60 {
			heard = append(heard, map[string]any{"text": "a" + strconv.Itoa(k) + " u" + strconv.Itoa(i) + " " + wide, "atMs": i})
		}
		defer func() { answered = append(answered, time.Now()) }()
		return map[string]any{"ok": true, "heard": heard, "selection": sel, "say": wide,
			"voiceOn": k%2 == 1, "voiceSupport": map[string]any{"why": wide, "more": sel[:3]}}
	})
	b.awaitConnected(true)
	l := startCLI(t, "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "listen")
	select {
	case <-l.done:
	case <-time.After(6 * guard): // five floods under the race detector on a busy machine
		t.Fatalf("listen did not exit after the tab refused; stderr:\n%s", l.stderr)
	}
	if l.code != 1 {
		t.Errorf("listen after the tab refused: exit %d, want 1; stderr:\n%s", l.code, l.stderr)
	}
	lines := l.stdout.lines.all()

	// Each line: at most 8 KB, one JSON object of a documented shape.
	perAsk := make([]int, listenFloodAsks+1)
	pending := 0 // the bytes of event lines, which belong to the ask of the next heard line
	long, notObject, badShape := 0, 0, 0
	for i, line := range lines {
		if len(line) > listenMaxLine {
			if long++; long == 1 {
				t.Errorf("line %d is %d bytes, want at most %d: %.200q", i, len(line), listenMaxLine, line)
			}
		}
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			if notObject++; notObject == 1 {
				t.Errorf("line %d is not one JSON object (%v): %.200q", i, err, line)
			}
			continue
		}
		if !isListenLine(o) {
			if badShape++; badShape == 1 {
				t.Errorf("line %d has a shape listen does not print: %.300q", i, line)
			}
		}
		pending += len(line) + 1
		if ask := askOf(o); ask >= 0 {
			perAsk[ask] += pending
			pending = 0
		}
	}
	if long+notObject+badShape > 0 {
		t.Errorf("of %d lines, %d are over %d bytes, %d not a JSON object, %d of another shape", len(lines), long, listenMaxLine, notObject, badShape)
	}
	perAsk[listenFloodAsks] += pending
	if perAsk[0] == 0 {
		t.Fatalf("listen printed nothing of the first answer; stdout:\n%.2000s", l.stdout.String())
	}

	// The rate, by the tab's clock: the lines of asks j..m were all
	// written within d = asked[m+1]-answered[j], which n = d/3s+1 windows
	// of 3 s cover, so they are at most n times 64 KB.
	mu.Lock()
	defer mu.Unlock()
	for j := range listenFloodAsks {
		sum := 0
		for m := j; m < listenFloodAsks; m++ {
			d := asked[m+1].Sub(answered[j])
			if sum += perAsk[m]; sum > listenMaxRate*int(d/listenRateSpan+1) {
				t.Errorf("asks %d to %d printed %d bytes within %v, want at most %d", j, m, sum, d.Round(time.Millisecond), listenMaxRate*int(d/listenRateSpan+1))
			}
		}
	}
	t.Logf("bytes per answer: %v", perAsk)
}

// isListenLine reports whether o is a line listen prints (README: heard
// lines, event lines).
func isListenLine(o map[string]any) bool {
	str := func(v any) bool { _, ok := v.(string); return ok }
	for k, v := range o {
		ok := false
		switch k {
		case "event", "message", "heard":
			ok = str(v)
		case "voiceSupport":
			ok = true
		case "atMs":
			_, ok = v.(float64)
			ok = ok || v == nil
		case "selectionMore":
			_, ok = v.(float64)
		case "selection":
			list, isList := v.([]any)
			ok = isList || v == nil
			for _, e := range list {
				m, isObj := e.(map[string]any)
				if !isObj || len(m) != 2 || !str(m["id"]) || !str(m["name"]) {
					ok = false
				}
			}
		}
		if !ok {
			return false
		}
	}
	_, isEvent := o["event"]
	_, isHeard := o["heard"]
	return isEvent != isHeard
}

// askOf is the ask of the flood whose answer printed o, a heard line (its
// text starts "a<k> "), or -1.
func askOf(o map[string]any) int {
	h, _ := o["heard"].(string)
	n, err := strconv.Atoi(strings.TrimPrefix(strings.Fields(h + " x")[0], "a"))
	if err != nil || n < 0 || n >= listenFloodAsks {
		return -1
	}
	return n
}
