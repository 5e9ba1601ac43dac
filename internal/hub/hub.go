// Package hub ties the one attached page to its callers (the MCP face, the
// control plane): its connection, its tool list and the calls waiting for a
// reply.
//
// Its lock guards memory only: no file or network I/O, no call back into a
// caller. A call in flight is a map entry with a timer, not a goroutine, so
// many calls cost memory and nothing else.
package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// Conn is an authenticated page connection, as the hub needs it.
type Conn interface {
	// Send queues a frame, waiting only while the queue is full and never
	// past a write's deadline; an error means the page is being closed.
	Send(frame []byte) error
	// Close closes the connection; the page side then calls Detach.
	Close()
	// Reachable reports whether the page is live: socket open and heard
	// from recently (protocol.md §2.6).
	Reachable() bool
}

// Error codes of envelopes the bridge answers with itself.
const (
	CodeNotConnected = "not_connected"
	CodeTimeout      = "timeout"
	CodeDisconnected = "disconnected"
	CodeCancelled    = "cancelled"
)

const NotConnectedMessage = "No Stitch Slop tab is connected to this bridge yet. Call wait_for_connection (or run `stitchslop-bridge wait`): the tab attaches on its own while its Allow agent connections switch is on; there is nothing for the user to press. (To try the bridge without a Stitch Slop account, `stitchslop demo` serves a stand-in tab.)"

// Bounds of a caller-set deadline for one page call.
const (
	MinCallTimeout = time.Second
	MaxCallTimeout = 10 * time.Minute
)

// ErrBusy is Reserve's refusal while another page is attached or admitted.
var ErrBusy = errors.New("another tab is attached")

// Hub is safe for concurrent use.
type Hub struct {
	callTimeout time.Duration

	mu           sync.Mutex
	conn         Conn
	reserved     Conn // a tab between Reserve and Commit
	tools        []toollist.Tool
	args         map[string][]string // tool -> argument names, from tools
	dropped      []toollist.Dropped
	pending      map[int64]*pending
	nextID       int64
	attached     chan struct{} // closed while a page is attached
	changed      chan struct{} // closed at the next attach or detach
	everAttached bool
	watchers     map[chan struct{}]struct{}
	squatters    []Squatter
	notice       string
	attachedBy   string            // how the attached tab got in (SetAttachedBy)
	listeners    map[int]time.Time // listen pids, and when each was last heard (NoteListener)
	voiceSelf    int               // this process's pid while its own session alone asks voice.listen (SetVoiceOwner); 0 none
	voiceOwner   int               // a follower bridge whose session alone asks voice.listen (ClaimVoice), while voiceSelf is 0; 0 none
	voiceSeen    time.Time         // the follower owner's last ask (ClaimVoice)
}

// pending is a call waiting for the page's reply. Whichever of Deliver, the
// timer, Detach or cancel removes it from the map decides how it ends.
type pending struct {
	conn    Conn
	command string
	done    func(reply envelope.Reply)
	timer   *time.Timer
}

// New returns a hub whose calls time out after callTimeout by default.
func New(callTimeout time.Duration) *Hub {
	return &Hub{
		callTimeout: callTimeout,
		pending:     map[int64]*pending{},
		attached:    make(chan struct{}),
		changed:     make(chan struct{}),
		watchers:    map[chan struct{}]struct{}{},
		listeners:   map[int]time.Time{},
	}
}

// Watch returns a channel signalled when the tool list arrives, changes or
// goes; its one slot collapses changes, as a watcher only re-reads the list.
func (h *Hub) Watch() (changed <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.watchers[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.watchers, ch)
		h.mu.Unlock()
	}
}

func (h *Hub) notifyLocked() {
	for ch := range h.watchers {
		select {
		case ch <- struct{}{}:
		default: // a signal is already waiting
		}
	}
}

// Reserve claims the attachment slot for c before its credential is
// redeemed, so redemption (file I/O) runs outside the lock while no second
// tab can slip in. An unreachable incumbent (any, with --takeover) is
// detached, its calls failed, and returned as displaced for the caller to
// tell and close. Commit or Release follows every successful Reserve.
func (h *Hub) Reserve(c Conn, takeover bool) (displaced Conn, err error) {
	h.mu.Lock()
	if h.reserved != nil || h.conn != nil && h.conn.Reachable() && !takeover {
		h.mu.Unlock()
		return nil, ErrBusy
	}
	displaced, h.reserved = h.conn, c
	failed := h.detachLocked(displaced)
	h.mu.Unlock()
	fail(failed)
	return displaced, nil
}

// Commit makes the reserved c the attached page.
func (h *Hub) Commit(c Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reserved != c {
		return
	}
	h.reserved, h.conn, h.everAttached = nil, c, true
	close(h.attached)
	h.changedLocked()
}

// changedLocked wakes everyone waiting on Next.
func (h *Hub) changedLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// Next returns a channel closed at the next attach or detach; taken before
// the state is read, so no change slips between the two.
func (h *Hub) Next() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// Release gives up c's reservation: its admission failed.
func (h *Hub) Release(c Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reserved == c {
		h.reserved = nil
	}
}

// Detach forgets c if attached: its tools go, its calls fail at once.
func (h *Hub) Detach(c Conn) {
	h.mu.Lock()
	failed := h.detachLocked(c)
	h.mu.Unlock()
	fail(failed)
}

// fail ends the calls of a page that is gone; the caller holds no lock.
func fail(calls []*pending) {
	for _, p := range calls {
		p.done(bridgeEnv(CodeDisconnected, "The Stitch Slop tab disconnected before it answered."))
	}
}

// detachLocked returns c's pending calls for the caller to fail unlocked.
func (h *Hub) detachLocked(c Conn) []*pending {
	if h.conn != c || c == nil {
		return nil
	}
	h.conn, h.attachedBy = nil, ""
	h.attached = make(chan struct{})
	h.changedLocked()
	// Every pending call is c's: Start adds one only for the attached page.
	failed := slices.Collect(maps.Values(h.pending))
	for _, p := range failed {
		p.timer.Stop()
	}
	clear(h.pending)
	hadTools := h.tools != nil
	h.tools, h.dropped, h.args = nil, nil, nil
	if hadTools {
		h.notifyLocked()
	}
	return failed
}

// SetTools records the tool list c sent. Watchers are woken (and an MCP
// client told tools/list_changed) only when it differs from c's last: a
// page that resends its list changes nothing an agent lists.
func (h *Hub) SetTools(c Conn, tools []toollist.Tool, dropped []toollist.Dropped) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn != c {
		return
	}
	if tools == nil {
		tools = []toollist.Tool{}
	}
	same := h.tools != nil && slices.EqualFunc(h.tools, tools, sameTool)
	h.tools, h.dropped, h.args = tools, dropped, argNames(tools)
	if !same {
		h.notifyLocked()
	}
}

// sameTool compares tools as tools/list writes them: the same list sent
// again writes the same bytes (toollist.Sanitize).
func sameTool(a, b toollist.Tool) bool { return bytes.Equal(a.JSON, b.JSON) }

// Deliver hands c's reply to the call waiting for id, on the caller's
// goroutine; false when nobody waits for it (late, cancelled, never asked).
func (h *Hub) Deliver(c Conn, id int64, reply envelope.Reply) bool {
	h.mu.Lock()
	p, ok := h.pending[id]
	if !ok || p.conn != c {
		h.mu.Unlock()
		return false
	}
	delete(h.pending, id)
	h.mu.Unlock()
	p.timer.Stop()
	p.done(reply)
	return true
}

// Snapshot is the hub's state at one moment.
type Snapshot struct {
	Connected    bool
	EverAttached bool
	// Listed says the attached tab has sent its tool list, maybe empty.
	Listed  bool
	Tools   []toollist.Tool
	Dropped []toollist.Dropped
	// Squatters are other users' listeners on the ports the tab dials.
	Squatters []Squatter
	// Notice is what the agent must be told about the bridge itself, in
	// plain words, each sentence led by a space; "" when nothing is amiss.
	Notice string
	// AttachedBy is ByToken or ByPairing, "" when not (yet) known.
	AttachedBy string
}

// Squatter is a socket of another user listening where a tab of ours may
// dial (THREAT_MODEL T10): it would be offered the tab's secret.
type Squatter struct {
	Address string `json:"address"`       // "127.0.0.1", "::1", "0.0.0.0" or "::"
	Port    int    `json:"port"`          // one of the ports the tab dials
	UID     *int   `json:"uid,omitempty"` // its owner, where the system names a uid
}

// SetPeers records Snapshot.Squatters and Snapshot.Notice.
func (h *Hub) SetPeers(squatters []Squatter, notice string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.squatters, h.notice = append([]Squatter{}, squatters...), notice
}

func (h *Hub) State() Snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Snapshot{
		Connected:    h.conn != nil,
		EverAttached: h.everAttached,
		Listed:       h.tools != nil,
		Tools:        append([]toollist.Tool(nil), h.tools...),
		Dropped:      append([]toollist.Dropped(nil), h.dropped...),
		Squatters:    append([]Squatter{}, h.squatters...),
		Notice:       h.notice,
		AttachedBy:   h.attachedBy,
	}
}

// Running reports whether a call of command waits for the page's reply.
func (h *Hub) Running(command string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.pending {
		if p.command == command {
			return true
		}
	}
	return false
}

// ArgNames returns the sorted property names of tool name's input schema,
// worked out once per list, and whether the page lists the tool.
func (h *Hub) ArgNames(name string) ([]string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	names, ok := h.args[name]
	return names, ok
}

func argNames(tools []toollist.Tool) map[string][]string {
	m := make(map[string][]string, len(tools))
	for _, t := range tools {
		m[t.Name] = t.Args
	}
	return m
}

// Wait blocks until a page is attached (true) or ctx ends (false).
func (h *Hub) Wait(ctx context.Context) bool {
	select {
	case <-h.Attached():
		return true
	case <-ctx.Done():
		return false
	}
}

// Attached returns a channel closed once a page is attached.
func (h *Hub) Attached() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.attached
}

// Start sends command with args (a JSON object sent as it came; empty is
// {}) to the page; done gets the reply exactly once unless cancel reports
// true first: the bridge's own ok:false envelope when there is no page, it
// leaves, or it does not answer within timeout (0: the hub's default). done
// runs on the reader's, a timer's or the caller's goroutine: it must not block.
func (h *Hub) Start(command string, args json.RawMessage, timeout time.Duration, done func(reply envelope.Reply)) (cancel func() bool) {
	return h.start(command, args, timeout, done, false)
}

// start is Start; owner is voice.listen's one consumer (CallVoice).
func (h *Hub) start(command string, args json.RawMessage, timeout time.Duration, done func(reply envelope.Reply), owner bool) (cancel func() bool) {
	if gate.IsNull(args) {
		args = json.RawMessage(`{}`)
	}
	if timeout <= 0 {
		timeout = h.callTimeout
	}
	h.mu.Lock()
	c := h.conn
	if command == VoiceCommand && !owner {
		if by := h.voiceOwnerLocked(); by != 0 {
			h.mu.Unlock()
			done(bridgeEnv(CodeVoiceTaken, "What the user says goes to the agent session of the bridge with pid "+strconv.Itoa(by)+" by itself (--voice-channel, protocol.md §7.19); it is voice.listen's one consumer, so nothing else may ask: start no listener, and answer the user with voice.say."))
			return func() bool { return false }
		}
	}
	if c == nil {
		h.mu.Unlock()
		done(bridgeEnv(CodeNotConnected, NotConnectedMessage))
		return func() bool { return false }
	}
	h.nextID++
	id := h.nextID
	p := &pending{conn: c, command: command, done: done}
	h.pending[id] = p
	p.timer = time.AfterFunc(timeout, func() {
		if h.take(id) {
			done(bridgeEnv(CodeTimeout, "The Stitch Slop tab did not answer "+command+" within "+timeout.String()+". It may be busy or asleep; try again."))
		}
	})
	h.mu.Unlock()
	cancel = func() bool {
		if !h.take(id) {
			return false
		}
		p.timer.Stop()
		return true
	}
	if err := c.Send(requestFrame(id, command, args)); err != nil && cancel() {
		done(bridgeEnv(CodeDisconnected, "The Stitch Slop tab could not take the command: "+err.Error()))
	}
	return cancel
}

// take removes the pending call id (never reused); who takes it ends it.
func (h *Hub) take(id int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.pending[id]
	delete(h.pending, id)
	return ok
}

// requestFrame builds {"id":N,"command":"…","args":{…}} (protocol.md §2.5).
func requestFrame(id int64, command string, args []byte) []byte {
	b := make([]byte, 0, 40+len(command)+len(args))
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"command":`...)
	b = gate.AppendString(b, command)
	b = append(b, `,"args":`...)
	b = append(b, args...)
	return append(b, '}')
}

// Call is Start for a caller that waits; ctx ending first is "cancelled".
func (h *Hub) Call(ctx context.Context, command string, args json.RawMessage, timeout time.Duration) envelope.Reply {
	return h.call(ctx, command, args, timeout, false)
}

// VoiceCommand is the tab's voice.listen (protocol.md §7.16); CodeRefused
// is the tab's refusal of it, CodeVoiceTaken the bridge's to all but its
// one consumer (§7.19): distinct, as that place may come free without the
// tab changing.
const (
	VoiceCommand   = "voice.listen"
	CodeRefused    = "refused"
	CodeVoiceTaken = "voice_taken"
)

// SetVoiceOwner makes this bridge's session (pid, this process's) the one
// consumer of voice.listen (CallVoice): every other call of it is refused
// naming pid, so no one steals the user's words, until SetVoiceOwner(0).
// A follower's claim it finds is ended.
func (h *Hub) SetVoiceOwner(pid int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.voiceSelf, h.voiceOwner, h.voiceSeen = pid, 0, time.Time{}
}

// VoiceOwner is the pid SetVoiceOwner set, or 0 (protocol.md §7.19).
func (h *Hub) VoiceOwner() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.voiceSelf
}

// ClaimVoice makes the session of pid, a follower asking through the
// control plane, voice.listen's one consumer unless this process's session
// or another live follower is; it reports whether pid owns it now. A claim
// lapses after ListenerSilence without an ask, or when pid is gone.
func (h *Hub) ClaimVoice(pid int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.voiceSelf != 0 {
		return false
	}
	if by := h.voiceOwnerLocked(); by != 0 && by != pid {
		return false
	}
	h.voiceOwner, h.voiceSeen = pid, time.Now()
	return true
}

func (h *Hub) voiceOwnerLocked() int {
	if h.voiceSelf != 0 {
		return h.voiceSelf
	}
	if h.voiceOwner != 0 && (time.Since(h.voiceSeen) > ListenerSilence || !listenerAlive(h.voiceOwner)) {
		h.voiceOwner, h.voiceSeen = 0, time.Time{}
	}
	return h.voiceOwner
}

// CallVoice is Call of voice.listen by its owner (SetVoiceOwner).
func (h *Hub) CallVoice(ctx context.Context, args json.RawMessage, timeout time.Duration) envelope.Reply {
	return h.call(ctx, VoiceCommand, args, timeout, true)
}

func (h *Hub) call(ctx context.Context, command string, args json.RawMessage, timeout time.Duration, owner bool) envelope.Reply {
	ch := make(chan envelope.Reply, 1)
	cancel := h.start(command, args, timeout, func(r envelope.Reply) { ch <- r }, owner)
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		if cancel() {
			return bridgeEnv(CodeCancelled, "The call was cancelled before the tab answered.")
		}
		return <-ch
	}
}

func bridgeEnv(code, msg string) envelope.Reply { return envelope.Own(code, msg) }
