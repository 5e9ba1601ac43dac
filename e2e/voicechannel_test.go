package e2e

// The voice channel (protocol.md §7.19): with --voice-channel the
// initialize result declares Claude Code's claude/channel, and the bridge
// loops voice.listen itself, sending each utterance as one
// notifications/claude/channel, within a budget; it is voice.listen's one
// consumer. Without the flag nothing of it exists.

import (
	"encoding/json"
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
	if r := b.rpc.toolCall("voice.listen", map[string]any{"timeoutSeconds": 1}).text(); !strings.Contains(r, "refused") || !strings.Contains(r, who) {
		t.Errorf("the agent's own voice.listen: %q; want refused, naming %s", r, who)
	}
	n := 0
	for _, f := range p.frames.all() {
		if f.str("command") == "voice.listen" {
			n++
		}
	}
	if n != 1 {
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
