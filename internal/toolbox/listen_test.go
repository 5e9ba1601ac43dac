package toolbox

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

// listenMain runs listen against the bridges of dir and returns its exit
// code, its stdout lines and its stderr.
func listenMain(t *testing.T, dir string, args ...string) (int, []string, string) {
	t.Helper()
	var so, se bytes.Buffer
	done := make(chan int, 1)
	argv := append([]string{"--config-dir", dir, "listen"}, args...)
	go func() { done <- Main(context.Background(), argv, strings.NewReader(""), &so, &se) }()
	select {
	case code := <-done:
		var lines []string
		if s := strings.TrimSuffix(so.String(), "\n"); s != "" {
			lines = strings.Split(s, "\n")
		}
		return code, lines, se.String()
	case <-time.After(20 * time.Second):
		t.Fatalf("Main(%q) still running after 20 s", argv)
		return 0, nil, ""
	}
}

// shortenListen swaps in short listen clocks for one test.
func shortenListen(t *testing.T, find, gone time.Duration) {
	t.Helper()
	old := listenClock
	listenClock.find, listenClock.gone = find, gone
	t.Cleanup(func() { listenClock = old })
}

// Three failures in a row that are neither a refusal nor a missing bridge
// end listen with exit 1, after an unavailable line saying so.
func TestListenGivesUpAfterThreeFailures(t *testing.T) {
	var calls atomic.Int32
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/status":
			io.WriteString(w, `{"ok":true,"connected":true}`)
		case "/call":
			calls.Add(1)
			io.WriteString(w, `{"ok":false,"error":"page_error","message":"The tab broke."}`)
		}
	})
	code, lines, stderr := listenMain(t, dir)
	if code != 1 || calls.Load() != 3 || len(lines) != 1 ||
		!strings.HasPrefix(lines[0], `{"event":"unavailable","message":"voice.listen failed 3 times in a row`) {
		t.Errorf("listen against a failing tab = %d after %d calls, %q; want 1 after 3, one unavailable line; stderr:\n%s", code, calls.Load(), lines, stderr)
	}
}

// A bridge that refuses the key (401: another process has the port now)
// is looked for again through the session files; one that stays missing
// ends listen with exit 0, after an unavailable line.
func TestListenGivesUpOnAMissingBridge(t *testing.T) {
	shortenListen(t, 20*time.Millisecond, 300*time.Millisecond)
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status" {
			io.WriteString(w, `{"ok":true,"connected":true}`)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"ok":false,"error":"unauthorized"}`)
	})
	code, lines, stderr := listenMain(t, dir, "--owner", strconv.Itoa(os.Getpid()))
	want := []string{`{"event":"disconnected"}`, `{"event":"unavailable","message":"No bridge has answered for 300ms, so the listener stops."}`}
	if code != 0 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("listen with its bridge gone = %d, %q; want 0, %q; stderr:\n%s", code, lines, want, stderr)
	}
}

// After a 401 listen finds the bridge that took over (a new session file,
// a new key) and asks it, with its pid in the listener header.
func TestListenFindsTheBridgeAgain(t *testing.T) {
	shortenListen(t, 20*time.Millisecond, time.Minute)
	heard := make(chan string, 4)
	next := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard <- r.Header.Get("x-stitchslop-key") + " " + r.Header.Get("x-stitchslop-listener")
		io.WriteString(w, `{"ok":false,"error":"refused","message":"Voice is off here."}`)
	}))
	t.Cleanup(next.Close)
	_, p, _ := net.SplitHostPort(next.Listener.Addr().String())
	nextPort, _ := strconv.Atoi(p)
	var dir string
	var swapped sync.Once
	dir = fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status" {
			io.WriteString(w, `{"ok":true,"connected":true}`)
			return
		}
		// The port changes hands while listen asks: its file goes, the
		// new bridge's comes, and the old key is refused.
		swapped.Do(func() {
			old, _, _ := session.List(dir)
			for _, f := range old {
				os.Remove(session.Path(dir, f.File.Port))
			}
			session.Write(dir, session.File{Port: nextPort, Key: "k2", Origin: "https://x", PID: os.Getpid(), Protocol: 1,
				StartedAt: session.Timestamp(time.Now())})
		})
		w.WriteHeader(http.StatusUnauthorized)
	})
	code, lines, stderr := listenMain(t, dir)
	want := []string{`{"event":"disconnected"}`, `{"event":"unavailable","message":"Voice is off here."}`}
	if code != 1 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("listen after the takeover = %d, %q; want 1 and %q; stderr:\n%s", code, lines, want, stderr)
	}
	if got, want := <-heard, "k2 "+strconv.Itoa(os.Getpid()); got != want {
		t.Errorf("the new bridge got key and listener %q, want %q", got, want)
	}
}

// FuzzListenReply: whatever a tab answers voice.listen with, each line
// listen makes of it is one JSON object of at most maxLine bytes, of the
// documented shape, with the selection on the first line only and within
// its bounds; a voiceSupport it passes on fits maxVoiceSupport.
func FuzzListenReply(f *testing.F) {
	f.Fuzz(func(t *testing.T, reply []byte) {
		answer, err := door(reply, nil)
		if err != nil {
			return
		}
		r := readVoice(answer)
		lines, dropped := heardLines(r)
		if len(lines) > maxUtterances || dropped < 0 {
			t.Fatalf("heardLines(%q) = %d lines, %d dropped; want at most %d", reply, len(lines), dropped, maxUtterances)
		}
		for i, b := range lines {
			o := wantLine(t, b)
			sel, first := o["selection"]
			if first != (i == 0) {
				t.Fatalf("heardLines(%q): line %d %s; want the selection on the first line only", reply, i, b)
			}
			var list []map[string]json.RawMessage
			json.Unmarshal(sel, &list)
			if len(list) > maxSelection || len(sel) > maxSelectionBytes {
				t.Fatalf("heardLines(%q): a selection of %d entries, %d bytes; want at most %d, %d", reply, len(list), len(sel), maxSelection, maxSelectionBytes)
			}
			for _, s := range list {
				// A string that reads as one of the gate's notes has its
				// "[" escaped: five bytes more.
				if len(s["id"]) > maxSelectionField+2+5 || len(s["name"]) > maxSelectionField+2+5 {
					t.Fatalf("heardLines(%q): selection entry %s %s, over the bounds", reply, s["id"], s["name"])
				}
			}
		}
		if r.VoiceSupport != nil {
			v := boundSupport(r.VoiceSupport)
			if n := len(line(member("v", v))) - len(`{"v":}`); n > maxVoiceSupport+5 {
				t.Fatalf("boundSupport(%q) = %q: %d bytes, over the bound", reply, v, n)
			}
			wantLine(t, eventLine("voice-off", v, clip(r.Say+r.Message, maxMessage)))
		}
	})
}

// wantLine is b, a line as listen prints it, which must be one JSON object
// on one line of at most maxLine bytes, of a documented shape.
func wantLine(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	var o map[string]json.RawMessage
	// Decoded twice: as raw members for their names, and as values, which
	// parses every number as a float64 the way a monitor in Go reads it.
	if len(b) == 0 || len(b) > maxLine || bytes.IndexByte(b, '\n') >= 0 || json.Unmarshal(b, &o) != nil || json.Unmarshal(b, new(any)) != nil {
		t.Fatalf("line %d bytes %.200q; want one JSON object on a line of at most %d bytes", len(b), b, maxLine)
	}
	for k := range o {
		switch k {
		case "event", "voiceSupport", "message", "heard", "atMs", "selection", "selectionMore":
		default:
			t.Fatalf("line %.200q has a member %q listen does not print", b, k)
		}
	}
	return o
}

// The worst a tab can send: 50 utterances each longer than maxText of
// characters that print as six bytes, and a selection of 150
// entries (more than maxSelection) whose ids and names do the same. Every line stays within
// maxLine, and the selection is printed once.
func TestListenLinesBoundedWhateverTheTabSends(t *testing.T) {
	wide := strings.Repeat("\u2028\"\u00e9\U0001F600<", 200)
	var heard, sel []any
	for i := range 60 {
		heard = append(heard, map[string]any{"text": strconv.Itoa(i) + wide, "atMs": 1e300})
	}
	for i := range 150 {
		sel = append(sel, map[string]any{"id": strconv.Itoa(i) + wide, "name": wide})
	}
	reply, _ := json.Marshal(map[string]any{"ok": true, "heard": heard, "selection": sel})
	answer, err := door(reply, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines, dropped := heardLines(readVoice(answer))
	if len(lines) != maxUtterances || dropped != 10 {
		t.Errorf("heardLines = %d lines, %d dropped; want %d, 10", len(lines), dropped, maxUtterances)
	}
	total := 0
	for i, b := range lines {
		wantLine(t, b)
		total += len(b)
		if i == 0 && !strings.Contains(string(b), `"selectionMore":`) {
			t.Errorf("first line %.300s: want a selectionMore", b)
		}
	}
	t.Logf("%d lines, %d bytes", len(lines), total)
}

// printer holds heard lines to maxRate-eventRoom bytes in any rateWindow,
// by its own clock, while it prints every event line.
func TestListenRateBound(t *testing.T) {
	now := time.Date(2026, 12, 3, 21, 0, 0, 0, time.UTC)
	old := listenClock
	listenClock.now = func() time.Time { return now }
	t.Cleanup(func() { listenClock = old })
	var out bytes.Buffer
	var stderr bytes.Buffer
	p := &printer{w: &out, log: ui.NewLogger(&stderr)}
	type at struct {
		t time.Time
		n int
	}
	var printed []at
	heard := line(member("heard", clip(strings.Repeat("x", maxText), maxText)), member("atMs", []byte("null")))
	events := 0
	for step := range 400 { // an ask every 50 ms for 20 s, each 10 lines and an event
		for range 10 {
			before := out.Len()
			p.print(heard, true)
			if n := out.Len() - before; n > 0 {
				printed = append(printed, at{now, n})
			}
		}
		before := out.Len()
		p.print(eventLine("voice-on", nil, nil), false)
		if out.Len() > before {
			events++
			printed = append(printed, at{now, out.Len() - before})
		}
		now = now.Add(50 * time.Millisecond)
		_ = step
	}
	if events != 400 {
		t.Errorf("printed %d of 400 event lines, want all", events)
	}
	for i := range printed {
		sum := 0
		for _, p := range printed[i:] {
			if p.t.Sub(printed[i].t) >= rateWindow {
				break
			}
			sum += p.n
		}
		if sum > maxRate {
			t.Fatalf("%d bytes printed in the %v from %v, want at most %d", sum, rateWindow, printed[i].t, maxRate)
		}
	}
	if len(printed) <= events {
		t.Errorf("no heard line printed")
	}
	if n := strings.Count(stderr.String(), "\n"); n > 4 {
		t.Errorf("%d stderr lines about dropped lines over 20 s, want them counted (a few):\n%s", n, stderr.String())
	}
}

// The first answer's voice switch is printed when on, or off in a browser
// without voice; a plain off is no news then, but is after an on.
func TestListenVoiceEvents(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name    string
		replies []voiceReply
		want    string
	}{
		{"first on", []voiceReply{{VoiceOn: &on}}, `{"event":"voice-on"}`},
		{"first off", []voiceReply{{VoiceOn: &off}}, ``},
		{"no switch", []voiceReply{{}, {}}, ``},
		{"off, on, on, off", []voiceReply{{VoiceOn: &off}, {VoiceOn: &on}, {VoiceOn: &on}, {VoiceOn: &off}}, `{"event":"voice-on"} {"event":"voice-off"}`},
		{"unsupported twice", []voiceReply{{VoiceOn: &off, VoiceSupport: json.RawMessage(`"none"`), Say: "No voice here."}, {VoiceOn: &off, VoiceSupport: json.RawMessage(`"none"`)}},
			`{"event":"voice-off","voiceSupport":"none","message":"No voice here."}`},
		{"off, then unsupported", []voiceReply{{VoiceOn: &off}, {VoiceOn: &off, VoiceSupport: json.RawMessage(`{"speech":false}`)}},
			`{"event":"voice-off","voiceSupport":{"speech":false},"message":"Voice input does not work in this browser."}`},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		l := &listener{out: &printer{w: &out, log: ui.NewLogger(io.Discard)}}
		for _, r := range tt.replies {
			l.setVoice(r)
		}
		if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); strings.Join(got, " ") != tt.want {
			t.Errorf("%s: setVoice printed %q, want %q", tt.name, strings.Join(got, " "), tt.want)
		}
	}
}

// fakeBridge serves h on loopback and writes a session file for it in a
// fresh config dir, which it returns.
func fakeBridge(t testing.TB, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	dir := t.TempDir()
	err := session.Write(dir, session.File{Port: port, Key: "k", Origin: "https://x", PID: os.Getpid(), Protocol: 1,
		StartedAt: session.Timestamp(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// runMain runs stitchslop with --config-dir dir and args, and returns its
// exit code, its stdout as one JSON object, and its stderr.
func runMain(t *testing.T, dir string, args ...string) (code int, stdout map[string]any, stderr string) {
	t.Helper()
	var so, se bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), append([]string{"--config-dir", dir}, args...), strings.NewReader(""), &so, &se)
	}()
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("Main(%q) still running after 20 s: it did not give up", args)
	}
	if err := json.Unmarshal(so.Bytes(), &stdout); err != nil {
		t.Fatalf("Main(%q) stdout %q is not one JSON object: %v", args, so.String(), err)
	}
	return code, stdout, se.String()
}

// listen reads --owner once it has found the bridge; a bad one is a usage
// error like any other (its hint names listen's help), and the tab is never
// asked to listen.
func TestListenBadOwner(t *testing.T) {
	asked := make(chan string, 16)
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		asked <- r.URL.Path
		io.WriteString(w, `{"ok":true}`)
	})
	for _, owner := range []string{"abc", "0", "-1"} {
		args := []string{"listen", "--owner", owner}
		code, doc, stderr := runMain(t, dir, args...)
		want := "--owner " + strconv.Quote(owner) + " is not a process id"
		if code != 64 || doc["error"] != "usage" || doc["message"] != want {
			t.Errorf("Main(%q) = %d, %v; want 64 and usage %q", args, code, doc, want)
		}
		if hint := "stitchslop-bridge: hint: see stitchslop listen --help\n"; !strings.HasSuffix(stderr, hint) {
			t.Errorf("Main(%q) stderr = %q, want it to end with %q", args, stderr, hint)
		}
	}
	close(asked)
	for p := range asked {
		if p == "/call" {
			t.Errorf("listen with a bad --owner asked the bridge %s", p)
		}
	}
}

// TestSec_ListenVoiceSupportRefusedByItsLength: a tab's voiceSupport longer
// than a line is refused on its length, with a note, before it is decoded
// or encoded: measured by encoding it, 50 MB of "<" (six bytes each as
// encoding/json writes them) cost listen 2.2 GB.
func TestSec_ListenVoiceSupportRefusedByItsLength(t *testing.T) {
	const over = "(the tab's voiceSupport is over 1000 bytes; not shown)"
	for _, v := range []string{
		`["` + strings.Repeat("<", 8<<20) + `"]`,
		`"` + strings.Repeat("<", 8<<20) + `"`,
		`{"a":[` + strings.Repeat(`"<",`, 2<<20) + `0]}`,
	} {
		raw := json.RawMessage(v)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := string(boundSupport(raw))
		runtime.ReadMemStats(&after)
		if got != `"`+over+`"` {
			t.Errorf("boundSupport(%d bytes %.20q...) = %.80v, want the note", len(v), v, got)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("boundSupport(%d bytes %.20q...) allocated %d bytes, want next to none", len(v), v, n)
		}
	}
	if got := eventLine("voice-off", boundSupport([]byte("[ \"<\u200b\" ]")), nil); string(got) != `{"event":"voice-off","voiceSupport":["<"]}` {
		t.Errorf("the line of a short voiceSupport list = %s, want it through the gate: cleaned, compact", got)
	}
}

// TestListenPrintsOnlyLines holds that listen.go writes stdout in one
// place, printer.print, and makes every line it prints with line, the
// gate's encoder (gate.Guard.AppendObject): no other encoder (encoding/json,
// fmt) writes a byte of a line (issue 34: one encoder per exit).
func TestListenPrintsOnlyLines(t *testing.T) {
	fset := token.NewFileSet()
	f, err := goparser.ParseFile(fset, "listen.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "encoding/json" || p == "fmt" {
			t.Errorf("listen.go imports %s: a second encoder for its lines", p)
		}
	}
	writes := 0
	for _, d := range f.Decls {
		fn, _ := d.(*ast.FuncDecl)
		ast.Inspect(d, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Write" && sel.Sel.Name != "WriteString" {
				return true
			}
			writes++
			if fn == nil || fn.Name.Name != "print" {
				t.Errorf("%s: a write outside printer.print", fset.Position(call.Pos()))
			}
			return true
		})
	}
	if writes != 1 {
		t.Errorf("found %d writes in listen.go, want the one in printer.print", writes)
	}
}
