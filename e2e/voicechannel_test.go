package e2e

// The voice channel (protocol.md §7.19): with --voice-channel the
// initialize result declares Claude Code's claude/channel, and the bridge
// loops voice.listen itself, sending each utterance as one
// notifications/claude/channel, within a budget; it is voice.listen's one
// consumer. Without the flag nothing of it exists.

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const channelMethod = "notifications/claude/channel"

// channelTab attaches a tab that lists voice.listen and answers with h
// (set before the tab says hello, so no command reaches another handler)
// to b, paired by secret.
func channelTab(t *testing.T, b *bridge, secret string, h pageHandler) *page {
	t.Helper()
	p := openPage(t, b.port, false)
	p.serve(h)
	wantHello(t, p.handshake(map[string]any{"secret": secret}), b.port)
	p.mustSend(map[string]any{"tools": voiceTools})
	return p
}

// channelBridge starts an MCP bridge, with --voice-channel when flag, on
// a config dir paired with testOrigin, initialized, and a tab answering
// with h attached.
func channelBridge(t *testing.T, flag bool, h pageHandler) (*bridge, *page) {
	t.Helper()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	var args []string
	if flag {
		args = append(args, "--voice-channel")
	}
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true, args: args})
	b.rpc.initialize()
	p := channelTab(t, b, secret, h)
	b.awaitConnected(true)
	return b, p
}

// scripted answers voice.listen with the next of replies and, past them,
// holds it (no answer); every other command as defaultHandler does.
func scripted(replies ...map[string]any) pageHandler {
	var mu sync.Mutex
	return func(cmd string, args map[string]any) map[string]any {
		if cmd != "voice.listen" {
			return defaultHandler(cmd, args)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return nil
		}
		r := replies[0]
		replies = replies[1:]
		return r
	}
}

// asks waits until the tab has been asked voice.listen n times.
func asks(t *testing.T, p *page, n int) {
	t.Helper()
	from := 0
	for range n {
		_, i := p.frameAt(from, func(f frame) bool { return f.str("command") == "voice.listen" })
		from = i + 1
	}
}

// channelEvents returns the channel notifications b wrote before the
// answer to a ping: the session has one writer, in order, so every event
// sent before the ping was asked is among them.
func channelEvents(t *testing.T, b *bridge) []rpcMsg {
	t.Helper()
	b.rpc.call("ping", nil)
	var out []rpcMsg
	for _, m := range b.rpc.msgs.all() {
		if m.method() == channelMethod {
			out = append(out, m)
		}
	}
	return out
}

var metaKey = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// channelEvent checks that m is a well-formed channel notification:
// jsonrpc, method and params only (no id), params of content (a string)
// and meta (strings by identifier keys, time the bridge's) only.
func channelEvent(t *testing.T, m rpcMsg) (content string, meta map[string]string) {
	t.Helper()
	if len(m.fields) != 3 || !m.has("params") || m.has("id") {
		t.Fatalf("channel event %s: want jsonrpc, method and params only", m.raw)
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m.fields["params"], &params) != nil || len(params) != 2 ||
		json.Unmarshal(params["content"], &content) != nil || json.Unmarshal(params["meta"], &meta) != nil {
		t.Fatalf("channel event %s: want params of content (a string) and meta (strings) only", m.raw)
	}
	for k := range meta {
		if !metaKey.MatchString(k) {
			t.Errorf("channel event %s: meta key %q is not an identifier", m.raw, k)
		}
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z07:00", meta["time"]); err != nil {
		t.Errorf("channel event %s: meta time %q is not the bridge's time: %v", m.raw, meta["time"], err)
	}
	return content, meta
}

// The capability and its instructions only with the flag; never the
// permission relay.
func TestVoiceChannel_DeclaredOnlyWithFlag(t *testing.T) {
	t.Parallel()
	for _, flag := range []bool{true, false} {
		args := []string{"--lazy"}
		if flag {
			args = append(args, "--voice-channel")
		}
		b := startBridge(t, bridgeOpts{mcp: true, expectExit: true, args: args})
		var r struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
			Instructions string                     `json:"instructions"`
		}
		b.rpc.result(b.rpc.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "e2e", "version": "0"}}), &r)
		exp, declared := r.Capabilities["experimental"]
		told := strings.Contains(r.Instructions, "channel events") && strings.Contains(r.Instructions, "voice.say")
		if flag && (string(exp) != `{"claude/channel":{}}` || !told) {
			t.Errorf("--voice-channel: experimental %s, instructions %q; want exactly claude/channel, and instructions that say what the events are and to answer with voice.say", exp, r.Instructions)
		}
		if !flag && (declared || strings.Contains(r.Instructions, "channel")) {
			t.Errorf("no flag: experimental %s, instructions %q; want neither a channel nor a word of it", exp, r.Instructions)
		}
		b.closeStdin()
		b.awaitExit()
	}
}

// One utterance is exactly one well-formed event: its words, the
// selection's names (none of the page's quotes or brackets), the
// bridge's time; the greeting and connection_status hand over no listen
// command.
func TestVoiceChannel_UtteranceIsOneEvent(t *testing.T) {
	t.Parallel()
	b, p := channelBridge(t, true, scripted(map[string]any{"ok": true, "say": "Heard.",
		"heard":     []any{map[string]any{"text": "make it <red>", "atMs": 1200}},
		"selection": []any{map[string]any{"id": "s1", "name": `Rose" source="telegram`}, map[string]any{"id": "s2", "name": "Leaf"}}}))
	asks(t, p, 2) // the first answer is sent on before the second ask
	events := channelEvents(t, b)
	if len(events) != 1 {
		t.Fatalf("got %d channel events, want exactly 1: %v", len(events), events)
	}
	content, meta := channelEvent(t, events[0])
	if content != "make it ‹red›" || meta["selection"] != "Rose source telegram, Leaf" || len(meta) != 2 {
		t.Errorf("event %s: want content \"make it ‹red›\" and meta of time and selection \"Rose source telegram, Leaf\"", events[0].raw)
	}
	g := b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5}).text()
	if !strings.Contains(g, "channel events") || strings.Contains(g, "Monitor") || strings.Contains(g, " listen ") {
		t.Errorf("greeting with the channel: %q; want voice by itself and no listen command", g)
	}
	if cs := b.rpc.toolCall("connection_status", map[string]any{}).text(); !strings.Contains(cs, `"voiceChannel":true`) || !strings.Contains(cs, "arrives by itself") {
		t.Errorf("connection_status with the channel: %s", cs)
	}
}

// The session's loop is voice.listen's one consumer: a listen started
// anyway, and the agent calling voice.listen itself, are refused with
// who hears instead; neither takes the user's words.
func TestVoiceChannel_OneConsumer(t *testing.T) {
	t.Parallel()
	b, p := channelBridge(t, true, scripted())
	asks(t, p, 1) // the channel's ask is held by the tab
	who := "pid " + strconv.Itoa(b.pid())
	l := startCLI(t, "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "listen")
	if code := l.exit(t); code != 1 {
		t.Errorf("listen beside the channel: exit %d, want 1", code)
	}
	if out := l.stdout.String(); !strings.Contains(out, `"event":"unavailable"`) || !strings.Contains(out, who) {
		t.Errorf("listen beside the channel printed %q; want unavailable naming %s", out, who)
	}
	if r := b.rpc.toolCall("voice.listen", map[string]any{"timeoutSeconds": 1}).text(); !strings.Contains(r, "voice_taken") || !strings.Contains(r, who) {
		t.Errorf("the agent's own voice.listen: %q; want voice_taken, naming %s", r, who)
	}
	if n := countAsks(p); n != 1 {
		t.Errorf("the tab was asked voice.listen %d times, want once: the channel's ask only", n)
	}
	// Other sessions on this tab read who hears in /status's listeners.
	if l, _ := b.awaitStatus("listed", func(map[string]any) bool { return true })["listeners"].([]any); !slices.Contains(l, any(float64(b.pid()))) {
		t.Errorf("/status listeners %v, want the bridge's own pid %d", l, b.pid())
	}
}

// A tab that answers voice.listen at once, forever, with all it may:
// what reaches the session stays within 16 KiB and 20 utterances in any
// 3 seconds, and
// every utterance is either sent or counted in a dropped event.
func TestVoiceChannel_BudgetHolds(t *testing.T) {
	t.Parallel()
	const answers, each = 6, 20
	flood := make([]map[string]any, answers)
	for i := range flood {
		var heard []any
		for j := range each {
			heard = append(heard, map[string]any{"text": strconv.Itoa(i*each+j) + " " + strings.Repeat("word ", 380), "atMs": j})
		}
		flood[i] = map[string]any{"ok": true, "heard": heard, "selection": []any{map[string]any{"id": "s1", "name": "Rose"}}}
	}
	b, p := channelBridge(t, true, scripted(flood...))
	asks(t, p, answers+1)
	type sent struct {
		at        time.Time
		n         int
		utterance bool
	}
	var all []sent
	delivered, dropped := 0, 0
	for _, m := range channelEvents(t, b) {
		content, meta := channelEvent(t, m)
		n := len(content)
		for k, v := range meta {
			n += len(k) + len(v)
		}
		at, _ := time.Parse("2006-01-02T15:04:05.000Z07:00", meta["time"])
		_, isDrop := meta["dropped"]
		all = append(all, sent{at, n, !isDrop})
		if d, ok := meta["dropped"]; ok {
			k, err := strconv.Atoi(d)
			if err != nil || k <= 0 {
				t.Errorf("dropped event %s: want a positive count", m.raw)
			}
			dropped += k
		} else {
			delivered++
		}
	}
	if dropped == 0 || delivered+dropped != answers*each {
		t.Errorf("%d utterances delivered and %d said dropped; want some dropped, and %d in all", delivered, dropped, answers*each)
	}
	// The window is the bridge's (its meta time), a little shorter than
	// its 3 s for the time between stamping an event and counting it.
	for i, s := range all {
		sum, utterances := 0, 0
		for _, o := range all[i:] {
			if o.at.Sub(s.at) < 2900*time.Millisecond {
				sum += o.n
				if o.utterance {
					utterances++
				}
			}
		}
		if sum > 16<<10 || utterances > 20 {
			t.Fatalf("%d bytes of events and %d utterances within 3 s from event %d, want at most 16 KiB and 20", sum, utterances, i)
		}
	}
}

// A follower session with the flag hears through its leader, which lists
// it as the tab's listener and refuses a listen started anyway; the
// leader's session, without the flag, hears nothing.
func TestVoiceChannel_FollowerHearsThroughLeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	p1, p2 := freePort(t), freePort(t)
	ports := []string{"--lazy", "--port", strconv.Itoa(p1) + "," + strconv.Itoa(p2)}
	leader := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true, args: ports})
	leader.rpc.initialize()
	leader.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.1})
	leader.port = p1
	leader.awaitListening()
	tab := channelTab(t, leader, secret, scripted(map[string]any{"ok": true, "heard": []any{map[string]any{"text": "zoom in", "atMs": 5}}, "selection": []any{}}))
	leader.awaitConnected(true)

	follower := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true, args: append(ports, "--voice-channel")})
	follower.port = p1
	follower.rpc.initialize()
	if r := follower.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5}); !strings.Contains(r.text(), "Already connected") {
		t.Fatalf("follower wait_for_connection: %q", r.text())
	}
	asks(t, tab, 2)
	events := channelEvents(t, follower)
	if len(events) != 1 {
		t.Fatalf("the follower got %d channel events, want 1; stderr:\n%s", len(events), follower.stderr)
	}
	if content, meta := channelEvent(t, events[0]); content != "zoom in" || len(meta) != 1 {
		t.Errorf("follower event %s: want \"zoom in\" and meta of time only (the selection named nothing)", events[0].raw)
	}
	if n := len(channelEvents(t, leader)); n != 0 {
		t.Errorf("the leader, without the flag, wrote %d channel events", n)
	}
	leader.awaitStatus("the follower listed", func(st map[string]any) bool {
		l, _ := st["listeners"].([]any)
		return slices.Contains(l, any(float64(follower.pid())))
	})
	// The follower's session is the one consumer at the leader too: a
	// listen started against the leader is refused, naming it.
	l := startCLI(t, "--config-dir", dir, "--port", strconv.Itoa(p1), "listen")
	if code := l.exit(t); code != 1 || !strings.Contains(l.stdout.String(), "pid "+strconv.Itoa(follower.pid())) {
		t.Errorf("listen at the leader: exit %d, stdout %q; want 1 and unavailable naming the follower's pid %d", code, l.stdout.String(), follower.pid())
	}
}

// No event once the tab has left: the loop parks, and asks the next tab
// that lists voice.listen.
func TestVoiceChannel_NoEventAfterTabLeaves(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	b := startBridge(t, bridgeOpts{configDir: dir, mcp: true, args: []string{"--voice-channel"}})
	b.rpc.initialize()
	first := channelTab(t, b, secret, scripted(map[string]any{"ok": true, "heard": []any{map[string]any{"text": "hello", "atMs": 1}}}))
	asks(t, first, 2)
	first.conn.Close()
	b.awaitConnected(false)
	second := channelTab(t, b, secret, scripted())
	asks(t, second, 1)
	events := channelEvents(t, b)
	if len(events) != 1 {
		t.Fatalf("got %d channel events, want the one before the tab left: %v", len(events), events)
	}
	if content, _ := channelEvent(t, events[0]); content != "hello" {
		t.Errorf("event %s: want \"hello\"", events[0].raw)
	}
}

// Without the flag nothing changes: the bridge asks the tab nothing by
// itself, writes no channel event, and the greeting hands over the listen
// command as before.
func TestVoiceChannel_NoFlagNothingChanges(t *testing.T) {
	t.Parallel()
	b, p := channelBridge(t, false, scripted(map[string]any{"ok": true, "heard": []any{map[string]any{"text": "hello", "atMs": 1}}}))
	g := b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5}).text()
	if !strings.Contains(g, "Monitor") || strings.Contains(g, "channel") {
		t.Errorf("greeting without the flag: %q; want the listen command and no channel", g)
	}
	if n := len(channelEvents(t, b)); n != 0 {
		t.Errorf("%d channel events without the flag", n)
	}
	for _, f := range p.frames.all() {
		if f.str("command") == "voice.listen" {
			t.Errorf("the bridge asked voice.listen by itself without the flag: %s", f.raw)
		}
	}
	if cs := b.rpc.toolCall("connection_status", map[string]any{}).text(); strings.Contains(cs, "voiceChannel") {
		t.Errorf("connection_status without the flag: %s", cs)
	}
}

// TestSec_VoiceOwnerHeaderOwnPid: a keyed caller that names the bridge's
// own pid in x-stitchslop-voice-owner is refused (400 bad_request)
// without asking the tab, so it can neither take an utterance from the
// session nor turn the session's place into a follower's claim that
// lapses; another pid's claim beside the session is voice_taken, and the
// tab is still asked only the session's once.
func TestSec_VoiceOwnerHeaderOwnPid(t *testing.T) {
	t.Parallel()
	b, p := channelBridge(t, true, scripted()) // the tab holds every ask
	asks(t, p, 1)
	body := map[string]any{"command": "voice.listen", "args": map[string]any{"timeoutSeconds": 1}, "timeoutMs": 1000}
	h := keyHeader(b.session().Key)
	h.Set("x-stitchslop-voice-owner", strconv.Itoa(b.pid()))
	if code, d := ctlDo(t, b.port, "POST", "/call", body, h, ""); code != 400 || !strings.Contains(string(d), `"bad_request"`) {
		t.Errorf("/call with the bridge's own pid as voice owner: %d %s, want 400 bad_request", code, d)
	}
	h.Set("x-stitchslop-voice-owner", strconv.Itoa(os.Getpid())) // a live process, not a follower of it
	if code, d := ctlDo(t, b.port, "POST", "/call", body, h, ""); code != 200 || !strings.Contains(string(d), `"voice_taken"`) || !strings.Contains(string(d), "pid "+strconv.Itoa(b.pid())) {
		t.Errorf("/call claiming beside the session: %d %s, want voice_taken naming pid %d", code, d, b.pid())
	}
	if r := b.rpc.toolCall("voice.listen", map[string]any{"timeoutSeconds": 1}).text(); !strings.Contains(r, "voice_taken") {
		t.Errorf("the agent's own voice.listen after the claims: %q; want voice_taken", r)
	}
	if n := countAsks(p); n != 1 {
		t.Errorf("the tab was asked voice.listen %d times, want once: the session's only", n)
	}
}

// countAsks is how many times the tab was asked voice.listen.
func countAsks(p *page) int {
	n := 0
	for _, f := range p.frames.all() {
		if f.str("command") == "voice.listen" {
			n++
		}
	}
	return n
}

// TestVoiceChannel_ToldOnlyWhenHearing: with the flag, a session whose
// loop never runs (a 2026-07-28 session, or a 2025 client that never
// sends notifications/initialized) is not told that voice arrives by
// itself: its greeting hands over the listen command, connection_status
// carries no voiceChannel, and the tab is never asked by the bridge.
func TestVoiceChannel_ToldOnlyWhenHearing(t *testing.T) {
	t.Parallel()
	for _, modern := range []bool{true, false} {
		dir := t.TempDir() + "/cfg"
		secret := newSecret()
		seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
		b := startBridge(t, bridgeOpts{configDir: dir, mcp: true, args: []string{"--voice-channel"}})
		p := channelTab(t, b, secret, scripted())
		b.awaitConnected(true)
		var g, cs string
		if modern {
			var r toolResult
			b.rpc.result(b.rpc.call("tools/call", modernParams(map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 5}})), &r)
			g = r.text()
			b.rpc.result(b.rpc.call("tools/call", modernParams(map[string]any{"name": "connection_status", "arguments": map[string]any{}})), &r)
			cs = r.text()
		} else {
			b.rpc.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "e2e", "version": "0"}}) // and no notifications/initialized
			g = b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5}).text()
			cs = b.rpc.toolCall("connection_status", map[string]any{}).text()
		}
		if strings.Contains(g, "channel events") || !strings.Contains(g, "Monitor") || !strings.Contains(g, " listen") {
			t.Errorf("modern %v: greeting %q; want the listen command, and no word of channel events", modern, g)
		}
		if strings.Contains(cs, `"voiceChannel"`) || strings.Contains(cs, "arrives by itself") || !strings.Contains(cs, "only the listen way") {
			t.Errorf("modern %v: connection_status %s; want no voiceChannel, and a note that voice comes the listen way", modern, cs)
		}
		if n := countAsks(p); n != 0 {
			t.Errorf("modern %v: the bridge asked voice.listen %d times with no loop to hear", modern, n)
		}
	}
}

// TestVoiceChannel_FollowerWithoutLoopClaimsNothing: a follower with the
// flag whose session runs no loop (2026-07-28) relays its agent's
// voice.listen as any call: the leader makes it no one consumer, so
// another's voice.listen at the leader is not refused in its name.
func TestVoiceChannel_FollowerWithoutLoopClaimsNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	p1, p2 := freePort(t), freePort(t)
	ports := []string{"--lazy", "--port", strconv.Itoa(p1) + "," + strconv.Itoa(p2)}
	leader := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true, args: ports})
	leader.rpc.initialize()
	leader.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.1})
	leader.port = p1
	leader.awaitListening()
	tab := channelTab(t, leader, secret, scripted(map[string]any{"ok": true, "heard": []any{}}))
	leader.awaitConnected(true)
	f := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true, args: append(ports, "--voice-channel")})
	f.port = p1
	var r toolResult
	f.rpc.result(f.rpc.call("tools/call", modernParams(map[string]any{"name": "wait_for_connection", "arguments": map[string]any{"timeoutSeconds": 5}})), &r)
	if !strings.Contains(r.text(), "Already connected") {
		t.Fatalf("follower wait_for_connection: %q", r.text())
	}
	f.rpc.result(f.rpc.call("tools/call", modernParams(map[string]any{"name": "voice.listen", "arguments": map[string]any{"timeoutSeconds": 1}})), &r)
	if !strings.Contains(r.text(), `"ok":true`) {
		t.Fatalf("the follower agent's voice.listen: %q; want the tab's answer", r.text())
	}
	body := map[string]any{"command": "voice.listen", "args": map[string]any{"timeoutSeconds": 1}, "timeoutMs": 1000}
	if _, d := ctlDo(t, p1, "POST", "/call", body, keyHeader(leader.session().Key), ""); strings.Contains(string(d), "voice_taken") || strings.Contains(string(d), "refused") {
		t.Errorf("voice.listen at the leader after the follower's relayed one: %s; want it asked of the tab, not refused in the follower's name", d)
	}
	if n := countAsks(tab); n != 2 {
		t.Errorf("the tab was asked voice.listen %d times, want 2: the follower agent's and the leader's caller's", n)
	}
}

// TestVoiceChannel_FollowerResumesAfterOwnerLeaves: of two followers with
// the flag, the second is told voice_taken while the first hears; when
// the first exits, the second asks again within seconds and hears, with
// the tab unchanged.
func TestVoiceChannel_FollowerResumesAfterOwnerLeaves(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/cfg"
	secret := newSecret()
	seedPairing(t, dir, map[string]any{testOrigin: pairingFor(secret)})
	p1, p2, p3 := freePort(t), freePort(t), freePort(t)
	ports := []string{"--lazy", "--port", strconv.Itoa(p1) + "," + strconv.Itoa(p2) + "," + strconv.Itoa(p3)}
	leader := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true, args: ports})
	leader.rpc.initialize()
	leader.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 0.1})
	leader.port = p1
	leader.awaitListening()
	channelTab(t, leader, secret, func(cmd string, args map[string]any) map[string]any {
		if cmd != "voice.listen" {
			return defaultHandler(cmd, args)
		}
		time.Sleep(200 * time.Millisecond) // the user speaks now and then
		return map[string]any{"ok": true, "heard": []any{map[string]any{"text": "hi", "atMs": 1}}}
	})
	leader.awaitConnected(true)
	follower := func() *bridge {
		f := startBridge(t, bridgeOpts{configDir: dir, port: -1, mcp: true, expectExit: true, args: append(ports, "--voice-channel")})
		f.port = p1
		f.rpc.initialize()
		f.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5})
		return f
	}
	isEvent := func(m rpcMsg) bool { return m.method() == channelMethod }
	first := follower()
	if _, _, ok := first.rpc.msgs.await(0, guard, isEvent); !ok {
		t.Fatal("the first follower heard nothing")
	}
	second := follower()
	g := second.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5}).text()
	if !strings.Contains(g, "pid "+strconv.Itoa(first.pid())) {
		t.Errorf("the second follower's greeting %q; want it to name the first, pid %d, as who hears", g, first.pid())
	}
	first.closeStdin()
	first.awaitExit()
	if _, _, ok := second.rpc.msgs.await(0, 20*time.Second, isEvent); !ok {
		t.Fatal("the second follower never heard after the first left, with the tab unchanged")
	}
}
