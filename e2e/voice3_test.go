package e2e

// Voice, as the Stitch Slop app answers it (protocol.md §7.16, the tab's
// voice commands and the listen verb): voice.listen
// answers {ok, heard: [{text, atMs}], selection: [{id, name}], say,
// voiceOn?, voiceSupport?}; listen prints event lines only, says
// unavailable before it ends, and its polling is a listener's, not an
// agent's. Also /status's listeners and attachedBy, and --file's usage
// error (issue 21).

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// voiceTab starts a bridge with a tab attached that lists voice.listen and
// answers each one with the next of replies, and past them with last (nil:
// never). It returns the bridge, the tab and listen's command line.
func voiceTab(t *testing.T, o bridgeOpts, replies []map[string]any, last map[string]any) (*bridge, *page, []string) {
	t.Helper()
	o.token = newToken()
	b := startBridge(t, o)
	p, _ := connectPageListing(t, b, map[string]any{"token": o.token}, voiceTools)
	var mu sync.Mutex
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd != "voice.listen" {
			return defaultHandler(cmd, args)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return last
		}
		r := replies[0]
		replies = replies[1:]
		return r
	})
	b.awaitConnected(true)
	return b, p, []string{"--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "listen"}
}

// wantLines compares listen's stdout with want, line by line.
func wantLines(t *testing.T, l *cliProc, want ...string) {
	t.Helper()
	if got := l.stdout.lines.all(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("listen stdout:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), l.stderr)
	}
}

// refusedBy is the tab's answer when voice is not to be had.
func refusedBy(msg string) map[string]any {
	return map[string]any{"ok": false, "error": "refused", "message": msg}
}

// The user's voice switch, off by default: the first answer's off is no
// news, on and off after it are, and a repeat is not.
func TestRef_ListenVoiceSwitchOffThenOn(t *testing.T) {
	t.Parallel()
	_, _, argv := voiceTab(t, bridgeOpts{}, []map[string]any{
		{"ok": true, "heard": []any{}, "selection": []any{}, "voiceOn": false, "say": "Voice is off."},
		{"ok": true, "heard": []any{}, "selection": []any{}, "voiceOn": true, "say": "Listening."},
		{"ok": true, "heard": []any{}, "selection": []any{}, "voiceOn": true, "say": "Listening."},
		{"ok": true, "heard": []any{}, "selection": []any{}, "voiceOn": false, "say": "Voice is off."},
	}, refusedBy("Voice was turned off for this page."))
	l := startCLI(t, argv...)
	if code := l.exit(t); code != 1 {
		t.Errorf("listen after a refusal: exit %d, want 1", code)
	}
	wantLines(t, l,
		`{"event":"voice-on"}`,
		`{"event":"voice-off"}`,
		`{"event":"unavailable","message":"Voice was turned off for this page."}`)
}

// One answer with two utterances: a line each, the first with the
// answer's selection as {id, name}, anything in it that is not an object
// dropped, printed once per answer; the first answer's switch on is
// printed first.
func TestRef_ListenPrintsEachUtterance(t *testing.T) {
	t.Parallel()
	_, _, argv := voiceTab(t, bridgeOpts{}, []map[string]any{
		{"ok": true, "voiceOn": true, "say": "Heard 2.",
			"heard":     []any{map[string]any{"text": "make the rose red", "atMs": 1200}, map[string]any{"text": "and twice as big", "atMs": 3400}},
			"selection": []any{map[string]any{"id": "s1", "name": "Rose"}, "junk", map[string]any{"id": "s2", "name": "Leaf"}}},
	}, refusedBy("Bye."))
	l := startCLI(t, argv...)
	if code := l.exit(t); code != 1 {
		t.Errorf("listen after a refusal: exit %d, want 1", code)
	}
	sel := `[{"id":"s1","name":"Rose"},{"id":"s2","name":"Leaf"}]`
	wantLines(t, l,
		`{"event":"voice-on"}`,
		`{"heard":"make the rose red","atMs":1200,"selection":`+sel+`}`,
		`{"heard":"and twice as big","atMs":3400}`,
		`{"event":"unavailable","message":"Bye."}`)
}

// Each of the tab's refusals ends listen with exit 1 after an unavailable
// line carrying the app's own sentence; nothing else is printed.
func TestRef_ListenRefusalIsUnavailable(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"refused", "unknown_command", "bad_arguments"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			msg := "Voice input is not available here (" + code + ")."
			_, _, argv := voiceTab(t, bridgeOpts{}, nil, map[string]any{"ok": false, "error": code, "message": msg})
			l := startCLI(t, argv...)
			if code := l.exit(t); code != 1 {
				t.Errorf("listen after the tab refused: exit %d, want 1", code)
			}
			wantLines(t, l, `{"event":"unavailable","message":"`+msg+`"}`)
		})
	}
}

// A browser where voice cannot work: the first answer is off with
// voiceSupport, so it is printed, with voiceSupport and the app's say as
// message, and only once.
func TestRef_ListenVoiceUnsupportedBrowser(t *testing.T) {
	t.Parallel()
	unsupported := map[string]any{"ok": true, "heard": []any{}, "selection": []any{}, "voiceOn": false,
		"voiceSupport": map[string]any{"speechRecognition": false}, "say": "Voice input does not work in this browser; try Chrome."}
	_, _, argv := voiceTab(t, bridgeOpts{}, []map[string]any{unsupported, unsupported}, refusedBy("Bye."))
	l := startCLI(t, argv...)
	if code := l.exit(t); code != 1 {
		t.Errorf("listen after a refusal: exit %d, want 1", code)
	}
	wantLines(t, l,
		`{"event":"voice-off","voiceSupport":{"speechRecognition":false},"message":"Voice input does not work in this browser; try Chrome."}`,
		`{"event":"unavailable","message":"Bye."}`)
}

// No bridge at start: exit 3, the reason on stderr, and stdout empty, so a
// reader of event lines never takes an envelope for one.
func TestRef_ListenNoBridgeAtStartPrintsNothing(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "--config-dir", filepath.Join(t.TempDir(), "cfg"), "listen")
	if r.code != 3 || r.stdout != "" || !strings.Contains(r.stderr, "no bridge is running") {
		t.Errorf("listen with no bridge: exit %d, stdout %q, stderr %q; want 3, nothing, and the reason on stderr", r.code, r.stdout, r.stderr)
	}
}

// listInts reads a /status list of numbers.
func listInts(v any) []int {
	var out []int
	list, _ := v.([]any)
	for _, n := range list {
		if f, ok := n.(float64); ok {
			out = append(out, int(f))
		}
	}
	return out
}

// /status lists the running listener's pid (from its
// x-stitchslop-listener header) and says how the tab got in; a listener
// ended by SIGTERM exits 0, prints nothing, and drops off the list.
func TestRef_ListenerInStatus(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	_, st := b.ctl("GET", "/status", nil)
	if by, ok := st["attachedBy"]; !ok || by != nil {
		t.Errorf("/status attachedBy with no tab: %v (present %v), want null", by, ok)
	}
	if l, ok := st["listeners"].([]any); !ok || len(l) != 0 {
		t.Errorf("/status listeners with none running: %v, want []", st["listeners"])
	}
	p, _ := connectPageListing(t, b, map[string]any{"token": tok}, voiceTools)
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "voice.listen" {
			return nil // held, as the tab holds it until the user speaks
		}
		return defaultHandler(cmd, args)
	})
	b.awaitStatus(`attachedBy "token"`, func(st map[string]any) bool { return st["attachedBy"] == "token" })

	l := startCLI(t, "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "listen")
	pid := l.cmd.Process.Pid
	b.awaitStatus("listeners ["+strconv.Itoa(pid)+"]", func(st map[string]any) bool {
		return slices.Equal(listInts(st["listeners"]), []int{pid})
	})
	l.cmd.Process.Signal(syscall.SIGTERM)
	if code := l.exit(t); code != 0 {
		t.Errorf("listen after SIGTERM: exit %d, want 0", code)
	}
	wantLines(t, l)
	b.awaitStatus("no listeners once it has exited", func(st map[string]any) bool { return len(listInts(st["listeners"])) == 0 })

	// A tab that gets in by its stored pairing.
	dir := filepath.Join(t.TempDir(), "cfg")
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	c := startBridge(t, bridgeOpts{configDir: dir})
	connectPage(t, c, map[string]any{"secret": secret})
	c.awaitStatus(`attachedBy "pairing"`, func(st map[string]any) bool { return st["attachedBy"] == "pairing" })
}

// --exit-when-unused fires while a listener polls: its requests are not an
// agent's use. Then the listener, whose owner was that bridge, says so and
// exits 0.
func TestRef_ExitWhenUnusedWhileListening(t *testing.T) {
	t.Parallel()
	// 0.05 minutes: 3 s, room for a few polls of the listener (one a
	// second with a tab that answers at once) before the bridge goes.
	b, p, argv := voiceTab(t, bridgeOpts{timings: "ping=100ms", args: []string{"--exit-when-unused", "0.05"}}, nil,
		map[string]any{"ok": true, "heard": []any{}, "selection": []any{}, "say": "Nothing heard."})
	from := p.frames.len()
	l := startCLI(t, argv...)
	isListen := func(f frame) bool { return f.str("command") == "voice.listen" }
	_, i := p.frameAt(from, isListen)
	if code := b.awaitExit(); code != 0 {
		t.Errorf("bridge with a listener polling: exit %d, want 0 once unused; stderr:\n%s", code, b.stderr)
	}
	if !strings.Contains(b.stderr.String(), "no agent has used this bridge") {
		t.Errorf("bridge stderr %q: want it to say no agent used it", b.stderr)
	}
	polls := 0
	for _, f := range p.frames.all()[from:] {
		if isListen(f) {
			polls++
		}
	}
	if polls < 2 {
		t.Errorf("the tab got %d voice.listen (the first at frame %d), want the listener to have polled while the bridge went unused", polls, i)
	}
	if code := l.exit(t); code != 0 {
		t.Errorf("listen after its bridge (the owner) exited: exit %d, want 0; stderr:\n%s", code, l.stderr)
	}
	lines := l.stdout.lines.all()
	var last map[string]any
	if len(lines) > 0 {
		json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	}
	if last["event"] != "unavailable" || last["message"] == "" || last["message"] == nil {
		t.Errorf("listen stdout:\n%s\nwant it to end with an unavailable line saying why", strings.Join(lines, "\n"))
	}
}

// --file naming a file that is not sent (not an image by its bytes, not a
// design format) is a usage error: exit 64, and the tab is asked nothing.
func TestRef_CLIFileRefusedIsUsageError(t *testing.T) {
	t.Parallel()
	_, p, base := cliTab(t, defaultHandler)
	work := t.TempDir()
	for _, path := range []string{
		writeFile(t, filepath.Join(work, "notes.txt"), []byte("hello")),
		writeFile(t, filepath.Join(work, "photo.png"), []byte("not a png")),
	} {
		from := p.frames.len()
		r := runCLI(t, append(base, "call", "design.import", "--file", "design="+path)...)
		d := r.doc(t)
		msg, _ := d["message"].(string)
		if r.code != 64 || d["error"] != "usage" || !strings.Contains(msg, "nothing was sent to the tab") {
			t.Errorf("call --file design=%s: exit %d, %v; want 64, a usage error saying nothing was sent", filepath.Base(path), r.code, d)
		}
		sentNothingSince(t, p, base, from, "a refused --file")
	}
}
