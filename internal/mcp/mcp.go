// Package mcp is the bridge's MCP face (protocol.md §3).
//
// Server is the dispatcher: it knows the tools and the hub, nothing of
// stdio; Session.Handle answers one JSON-RPC line through the session's
// Output. stdio.go is the transport: a reader and one writer goroutine per
// session fed by bounded queues; stdout carries nothing else, ever. Both
// eras of MCP are served, pinned by the client's first accepted request
// (eras.go).
//
// A tab call in flight is a map entry and a timer; a held tool
// (wait_for_connection, pair, the file tools) a goroutine, within
// MaxInFlight. Tool-list changes are a one-slot signal, so a page that
// floods tool lists while stdout is stalled grows nothing.
package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// Bounds of one session. A request past MaxInFlight gets an error, never a
// queue. A batch (MCP 2025-03-26) is answered as one line, its answers held
// until the last is ready: MaxBatch is as many as the stdio reader queues
// ahead of the writer for single lines (syncQueue).
const (
	MaxInFlight      = 256
	MaxSubscriptions = 16
	MaxBatch         = 64
)

const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	// codeTooBusy refuses a request over MaxInFlight; -32000..-32019 are
	// left to implementations by the 2026-07-28 revision.
	codeTooBusy = -32000
	// codeUnsupportedVersion is UnsupportedProtocolVersionError (2026-07-28).
	codeUnsupportedVersion = -32022
)

// ServerName is serverInfo.name, fixed by protocol.md §3.2.
const ServerName = "stitchslop-connector"

// TimeoutMetaKey is the _meta key of a tools/call's deadline in ms.
const TimeoutMetaKey = "com.stitchslop/timeoutMs"

// Instructions tell the model how the connection comes about.
const Instructions = "This server connects you to the embroidery design open in the user's Stitch Slop browser tab. " +
	"The tab attaches to this bridge on its own: the user has already switched the connection on, and there is nothing for them to press. " +
	"If no Stitch Slop tools are listed yet, call wait_for_connection; it blocks until the tab attaches and then describes the design. " +
	"If it times out, call it again. Only if it keeps timing out, ask the user whether the Allow agent connections switch is on in their Stitch Slop tab. " +
	"If the user gives you a token from the agent panel (tok_ and hex digits), call pair with it: it lets that tab pair and then waits like wait_for_connection. " +
	"Relay the `say` line of a result to the user; it is the app's own sentence."

// Server is the dispatcher shared by every session.
type Server struct {
	Hub     *hub.Hub
	Sites   *sites.Sites
	Pairing sites.Store
	// Open makes the bridge reach a tab if it does not yet (--lazy: follow
	// or bind; own always binds) and returns the port the tab dials. Where
	// says how it reaches a tab now: "serving", "follower" or "idle".
	Open func(ctx context.Context, own bool, site string) (int, error)
	// Relay gives a token pair armed to the bridge this one follows.
	Relay func(ctx context.Context, token, site string) error
	Where func() (mode string, port int)
	// ListenCommand is the shell command of listen for port (nil: none).
	ListenCommand func(port int) string
	// VoiceChannel is --voice-channel (channel.go).
	VoiceChannel bool
	// Host is the bridge followed, read now (false: not following), whose
	// attempts, refusals and listeners a follower reports.
	Host         func(ctx context.Context) (HostStatus, bool)
	OtherBridges func() []OtherBridge
	Log          *slog.Logger
	// Activity is called for every message, on the reader's path: cheap.
	Activity      func()
	Attempts      *attempts.Log
	PairedOrigins func() []string
	// Initialized is called once, when a client first opens a session in
	// either era: the bridge is then owned (protocol.md §2.7, §2.8).
	Initialized func()

	initOnce  sync.Once
	filesOnce sync.Once
	fileSem   chan struct{} // fileCalls slots
}

// Message is one outgoing JSON-RPC message as pieces written in order, the
// last ending in a newline: bytes this package encoded, then, in an image
// block, an envelope.Image's base64, which only the door makes, of
// canonical base64 that cannot end a string. The type leaves no other way
// to write bytes this package did not encode.
type Message []Piece

type Piece struct {
	Encoded []byte
	Image   envelope.Image
}

func one(b []byte) Message { return Message{{Encoded: b}} }

// Output is where a session's messages go; a transport implements it.
type Output interface {
	// Send queues m, blocking (pushing back on the reader) while backed up.
	Send(m Message)
	// SendHeld queues m for a request holding a slot, never blocking;
	// written runs once m is written (on the writer) or dropped, and not
	// for what the writer drains as the session ends.
	SendHeld(m Message, written func())
}

// Session is one client connection's state.
type Session struct {
	srv *Server
	out Output
	ctx context.Context
	end context.CancelFunc
	// kick has one slot: a subscription that missed a change before its
	// acknowledgement was written asks the writer to look again.
	kick    chan struct{}
	slots   chan struct{}  // held requests, given back once answered or dropped
	running sync.WaitGroup // the goroutines of held tools

	// initialized is closed at notifications/initialized: the voice channel
	// sends from then on.
	initialized chan struct{}

	// hearing is true while this session's voice loop owns the voice: only
	// then do the greeting and connection_status say voice arrives by
	// itself (protocol.md §7.19).
	hearing atomic.Bool

	batch *batch // the batch Handle is answering, or nil; Handle's goroutine only

	mu       sync.Mutex
	era      era
	version  string // legacy: the revision initialize negotiated
	ready    bool   // legacy: notifications/initialized arrived
	inflight map[string]*flight
	subs     map[string]*subscription
}

// flight is a request that waits: a page call or a held tool.
type flight struct {
	cancel    func() bool // stops the work; true if no answer will come
	cancelled bool
	batch     *batch // the batch it came in, or nil
}

func (srv *Server) NewSession(ctx context.Context, out Output) *Session {
	ctx, end := context.WithCancel(ctx)
	return &Session{
		srv: srv, out: out, ctx: ctx, end: end, initialized: make(chan struct{}),
		kick:     make(chan struct{}, 1),
		slots:    make(chan struct{}, MaxInFlight),
		inflight: map[string]*flight{},
		subs:     map[string]*subscription{},
	}
}

// Close ends the session, cancelling every request in flight (it returns
// how many) and answering nothing more.
func (s *Session) Close() int {
	// Ended under the lock, so a wait that returns on it finds itself
	// already taken here, and counted.
	s.mu.Lock()
	s.end()
	flights := s.inflight
	s.inflight = map[string]*flight{}
	var stops []*flight
	for _, f := range flights {
		f.cancelled = true
		if f.cancel != nil {
			stops = append(stops, f)
		}
	}
	s.mu.Unlock()
	for _, f := range stops {
		if f.cancel() {
			s.drop(f)
		}
	}
	return len(flights)
}

// Owned reports whether a client opened the session (§2.8).
func (s *Session) Owned() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.era != eraNone
}

type request struct {
	id     []byte // raw; nil for a notification
	method string
	params []byte // raw; nil when absent
	// Read from params by dispatch: whether it is an object, and a
	// tools/call's name and arguments, raw.
	object     bool
	name, args []byte
}

var null = []byte("null")

// Handle answers one line, a message or a batch (MCP 2025-03-26), from one
// goroutine: requests that wait answer later through SendHeld, the rest
// before it returns.
func (s *Session) Handle(line []byte) {
	if s.srv.Activity != nil {
		s.srv.Activity()
	}
	line = bytes.TrimSpace(line)
	if !gate.Valid(line) {
		s.fail(null, codeParse, "parse error: the line is not valid JSON")
		return
	}
	if line[0] == '[' {
		s.handleBatch(line)
		return
	}
	s.handleMessage(line)
}

func (s *Session) handleMessage(msg []byte) {
	r, ok := s.parse(msg)
	if !ok {
		return
	}
	if r.id == nil {
		s.notification(r)
		return
	}
	s.dispatch(r)
}

// parse checks one message's JSON-RPC envelope and answers what is wrong. A
// response is ignored, whatever its id: the bridge asks nothing, and two
// peers must never trade errors about each other's errors.
func (s *Session) parse(msg []byte) (request, bool) {
	if msg[0] != '{' {
		s.fail(null, codeInvalidRequest, "invalid request: expected a JSON-RPC object")
		return request{}, false
	}
	var r request
	var version, method []byte
	hasID, isResponse := false, false
	gate.Each(msg, func(k string, v []byte) bool {
		switch k {
		case "jsonrpc":
			version = v
		case "id":
			hasID, r.id = true, v
		case "method":
			method = v
		case "params":
			r.params = v
		case "result", "error":
			isResponse = true
		}
		return true
	})
	if method == nil && hasID && isResponse {
		return request{}, false // a response to nothing we asked; ignore
	}
	id := r.id
	if !hasID {
		id = null
	} else if !validID(id) {
		// JSON-RPC 2.0 answers a request whose id cannot be used with id
		// null; MCP allows a string or an integer only, never null.
		s.fail(null, codeInvalidRequest, "invalid request: id must be a string or an integer (MCP allows no null id); nothing was done")
		return request{}, false
	}
	m, isString := gate.String(method)
	if method == nil || !isString {
		s.fail(id, codeInvalidRequest, "invalid request: method must be a string")
		return request{}, false
	}
	if string(version) != `"2.0"` {
		s.fail(id, codeInvalidRequest, `invalid request: jsonrpc must be "2.0"`)
		return request{}, false
	}
	r.method = m
	if !hasID {
		r.id = nil
	}
	return r, true
}

// validID reports whether raw is an MCP request id: a string or an integer.
func validID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		_, ok := gate.String(raw)
		return ok
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (s *Session) notification(r request) {
	switch r.method {
	case "notifications/initialized":
		s.mu.Lock()
		first := !s.ready && s.era == eraLegacy
		s.ready = s.era == eraLegacy
		ready := s.ready
		s.mu.Unlock()
		if first {
			if s.srv.VoiceChannel && s.ctx.Err() == nil {
				// Before close, so that a greeting asked after this
				// notification already reads the session as hearing.
				s.srv.Hub.SetVoiceOwner(os.Getpid())
				s.hearing.Store(true)
			}
			close(s.initialized)
		}
		// The tab's tools may have arrived between initialize and now,
		// when no notification could be sent: announce them once.
		if ready && len(s.srv.Hub.State().Tools) > 0 {
			select {
			case s.kick <- struct{}{}:
			default:
			}
		}
	case "notifications/cancelled":
		id := gate.Get(r.params, "requestId")
		if id != nil {
			s.cancel(id)
		}
	default:
	}
}

// cancel ends the request id if in flight: its answer is never written
// (MCP's cancellation rule), and the hub drops a late page reply.
func (s *Session) cancel(id []byte) {
	k := string(id)
	s.mu.Lock()
	f := s.inflight[k]
	if f != nil {
		f.cancelled = true
		delete(s.inflight, k)
	}
	sub := s.subs[k]
	delete(s.subs, k)
	var stop func() bool
	if f != nil {
		stop = f.cancel
	}
	s.mu.Unlock()
	if stop != nil && stop() {
		s.drop(f)
	}
	if sub != nil {
		s.srv.Log.Info("the client ended a subscription", "id", string(id))
	}
}

// begin takes a held slot for id and records it in flight, or answers
// and reports false (at the bound, or the id in use).
func (s *Session) begin(id []byte, f *flight) bool {
	select {
	case s.slots <- struct{}{}:
	default:
		s.fail(id, codeTooBusy, "too many requests in flight: at most "+strconv.Itoa(MaxInFlight)+" may wait at once; retry when one has been answered")
		return false
	}
	k := string(id)
	s.mu.Lock()
	_, dup := s.inflight[k]
	if !dup {
		_, dup = s.subs[k]
	}
	if !dup {
		s.inflight[k] = f
	}
	s.mu.Unlock()
	if dup {
		s.release()
		s.fail(id, codeInvalidRequest, "invalid request: a request with this id is still in flight")
		return false
	}
	if s.batch != nil {
		f.batch = s.batch
		s.batch.hold()
	}
	return true
}

func (s *Session) release() { <-s.slots }

// drop ends a flight that will never be answered.
func (s *Session) drop(f *flight) {
	if f.batch != nil {
		s.settle(f.batch)
		return
	}
	s.release()
}

// finish answers f with build's Message, unless cancelled or ended.
func (s *Session) finish(id []byte, f *flight, build func() Message) {
	k := string(id)
	s.mu.Lock()
	cancelled := f.cancelled
	if s.inflight[k] == f {
		delete(s.inflight, k)
	}
	s.mu.Unlock()
	if cancelled || s.ctx.Err() != nil {
		s.drop(f)
		return
	}
	m := s.guarded(id, build)
	if f.batch != nil {
		f.batch.add(m)
		s.settle(f.batch)
		return
	}
	s.out.SendHeld(m, s.release)
}

// guarded turns a panic in build into an internal error: a page's reply
// shapes what build reads. The panic's value may quote the reply, so it is
// neither logged nor answered.
func (s *Session) guarded(id []byte, build func() Message) (m Message) {
	defer func() {
		if recover() != nil {
			s.srv.Log.Error("could not build the answer to a call from the tab's reply; the call was answered with an internal error")
			m = one(errorResponse(id, codeInternal, "internal error: the bridge could not build the answer from the tab's reply, so nothing of it was passed on; try again", nil))
		}
	}()
	return build()
}

func (s *Session) setCancel(f *flight, cancel func() bool) {
	s.mu.Lock()
	f.cancel = cancel
	s.mu.Unlock()
}

func (s *Session) send(m Message) {
	if s.batch != nil {
		s.batch.add(m)
		return
	}
	s.out.Send(m)
}

func (s *Session) reply(id, result []byte) { s.send(one(response(id, result))) }

func (s *Session) fail(id []byte, code int, msg string) {
	s.send(one(errorResponse(id, code, msg, nil)))
}

// response is {"jsonrpc":"2.0","id":ID,"result":RESULT} and a newline.
func response(id, result []byte) []byte {
	b := make([]byte, 0, len(result)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, "}\n"...)
}

func errorResponse(id []byte, code int, msg string, data any) []byte {
	e := struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{code, msg, data}
	eb, _ := gate.Marshal(e)
	b := make([]byte, 0, len(eb)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, eb...)
	return append(b, "}\n"...)
}

// callTimeout reads the caller's deadline from _meta, if any.
func callTimeout(meta []byte) (time.Duration, string) {
	v := gate.Get(meta, TimeoutMetaKey)
	if v == nil {
		return 0, ""
	}
	ms, ok := gate.Int(v)
	lo, hi := hub.MinCallTimeout.Milliseconds(), hub.MaxCallTimeout.Milliseconds()
	if !ok || ms < lo || ms > hi {
		return 0, "invalid params: _meta[\"" + TimeoutMetaKey + "\"] must be a whole number of milliseconds from " +
			strconv.FormatInt(lo, 10) + " to " + strconv.FormatInt(hi, 10) + ", got " + strconv.Quote(string(v))
	}
	return time.Duration(ms) * time.Millisecond, ""
}
