package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// An era is how a connection speaks MCP, pinned by the first request the
// session accepts:
//
//   - legacy (2025-11-25 and earlier): initialize, then
//     notifications/initialized; list changes are unsolicited
//     notifications after that.
//   - modern (2026-07-28): no handshake; every request carries its version
//     and the client's capabilities in params._meta; results carry
//     resultType; list changes go only to subscriptions/listen streams.
//
// A request that fails (an unsupported version, say) pins nothing, so a
// dual-era client may retry in the other era. Before anything is pinned, a
// request without the modern _meta is answered as the 2025 era answers it;
// server/discover is then a malformed request (-32602), on which a
// dual-era client falls back to initialize (the revision's stdio probe).
type era int

const (
	eraNone era = iota
	eraLegacy
	eraModern
)

// ModernVersion is the current revision this server speaks.
const ModernVersion = "2026-07-28"

// LegacyVersions are the 2025-era revisions initialize negotiates, newest
// first: the client's choice is echoed when it is one of them, otherwise
// the newest is answered.
var LegacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID  = "io.modelcontextprotocol/subscriptionId"
)

var serverInfo, _ = gate.Marshal(map[string]string{
	"name":    ServerName,
	"version": fmt.Sprintf("%s (wire protocol %d)", version.Short(), version.Protocol),
})

// modernHead opens every 2026-07-28 result: resultType, and the server's
// identity in _meta, which the revision asks for on each result.
var modernHead = []byte(`{"resultType":"complete","_meta":{"` + metaServerInfo + `":` + string(serverInfo) + `}`)

func finishResult(obj []byte, modern bool) []byte {
	if !modern {
		return obj
	}
	b := make([]byte, 0, len(modernHead)+len(obj)+1)
	b = append(b, modernHead...)
	if len(obj) > 2 {
		b = append(b, ',')
	}
	return append(b, obj[1:]...)
}

func (s *Session) dispatch(r request) {
	// One reading of params: _meta (the first given) for every method, a
	// tools/call's name and arguments (the last given) on the way.
	var meta []byte
	r.object = gate.Each(r.params, func(k string, v []byte) bool {
		switch k {
		case "_meta":
			if meta == nil {
				meta = v
			}
		case "name":
			r.name = v
		case "arguments":
			r.args = v
		}
		return true
	})
	s.mu.Lock()
	e := s.era
	s.mu.Unlock()
	if e == eraLegacy || (e == eraNone && (r.method == "initialize" || gate.Get(meta, metaProtocolVersion) == nil)) {
		s.legacy(r, meta)
		return
	}
	s.modern(r, meta)
}

func (s *Session) legacy(r request, meta []byte) {
	switch r.method {
	case "server/discover":
		s.mu.Lock()
		pinned, v := s.era == eraLegacy, s.version
		s.mu.Unlock()
		if pinned {
			s.fail(r.id, codeInvalidRequest, "invalid request: this connection opened with initialize and speaks MCP "+v+
				"; server/discover belongs to MCP "+ModernVersion+", which a new connection can speak")
			return
		}
		// Here before any era only for want of the version in _meta:
		// server/discover exists, so this is a malformed request to it.
		s.fail(r.id, codeInvalidParams, `invalid params: server/discover needs params._meta with "`+metaProtocolVersion+
			`" (a protocol version string) and "`+metaClientCaps+`" (an object), as every MCP `+ModernVersion+
			" request does; a 2025-era client opens with initialize instead")
	case "initialize":
		s.initialize(r)
	case "ping":
		s.reply(r.id, []byte("{}"))
	case "tools/list":
		s.reply(r.id, s.toolList(false))
	case "tools/call":
		s.toolsCall(r, meta, false)
	default:
		s.fail(r.id, codeMethodNotFound, "method not found: "+r.method)
	}
}

func (s *Session) pin(e era) {
	s.mu.Lock()
	first := s.era == eraNone
	if first {
		s.era = e
	}
	s.mu.Unlock()
	if first && s.srv.Initialized != nil {
		s.srv.initOnce.Do(s.srv.Initialized)
	}
}

func (s *Session) initialize(r request) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(r.params, &p)
	pv := LegacyVersions[0]
	for _, v := range LegacyVersions {
		if p.ProtocolVersion == v {
			pv = v
		}
	}
	s.pin(eraLegacy)
	s.mu.Lock()
	if s.era == eraLegacy {
		s.version = pv
	}
	s.mu.Unlock()
	b, _ := gate.Marshal(map[string]any{
		"protocolVersion": pv,
		"capabilities":    s.srv.capabilities(),
		"serverInfo":      json.RawMessage(serverInfo),
		"instructions":    s.srv.instructions(),
	})
	s.reply(r.id, b)
}

func (s *Session) modern(r request, meta []byte) {
	v, ok := gate.String(gate.Get(meta, metaProtocolVersion))
	if !ok {
		s.fail(r.id, codeInvalidParams, `invalid params: params._meta["`+metaProtocolVersion+`"] is required (a protocol version string) in MCP `+ModernVersion)
		return
	}
	if v != ModernVersion {
		// supported names what a request with _meta can use, as
		// server/discover does; the 2025 revisions are reached another
		// way, which the message says.
		s.send(one(errorResponse(r.id, codeUnsupportedVersion, unsupportedMessage, map[string]any{
			"supported": modernVersions,
			"requested": v,
		})))
		return
	}
	if caps := gate.Get(meta, metaClientCaps); len(caps) == 0 || caps[0] != '{' {
		s.fail(r.id, codeInvalidParams, `invalid params: params._meta["`+metaClientCaps+`"] is required (an object) in MCP `+ModernVersion)
		return
	}
	switch r.method {
	case "server/discover":
		s.pin(eraModern)
		s.reply(r.id, discoverResult)
	case "tools/list":
		s.pin(eraModern)
		s.reply(r.id, s.toolList(true))
	case "tools/call":
		s.pin(eraModern)
		s.toolsCall(r, meta, true)
	case "subscriptions/listen":
		s.pin(eraModern)
		s.listen(r)
	case "initialize":
		s.fail(r.id, codeInvalidRequest, "invalid request: this connection speaks MCP "+ModernVersion+", which has no initialize; send requests with params._meta instead")
	default:
		s.fail(r.id, codeMethodNotFound, "method not found: "+r.method+" (MCP "+ModernVersion+")")
	}
}

// modernVersions are the revisions a request may name in _meta: both
// server/discover's supportedVersions and -32022's supported list, so a
// client that retries with a listed version is served.
var modernVersions = []string{ModernVersion}

// unsupportedMessage is -32022's message: the 2025 revisions are served
// too, but only on a connection that opens with initialize.
var unsupportedMessage = "Unsupported protocol version: requests with params._meta speak MCP " + ModernVersion +
	" here; for " + strings.Join(LegacyVersions, ", ") + ", open the connection with initialize instead"

// discoverResult answers server/discover. Its cache hints match tools/list:
// the tools it advertises come and go with the tab, so nothing is cached.
var discoverResult = func() []byte {
	b, _ := gate.Marshal(map[string]any{
		"supportedVersions": modernVersions,
		"capabilities":      map[string]any{"tools": map[string]any{"listChanged": true}},
		"instructions":      Instructions,
		"ttlMs":             0,
		"cacheScope":        "private",
	})
	return finishResult(b, true)
}()

type subscription struct {
	id     []byte
	tools  bool // toolsListChanged was asked for and is honoured
	acked  bool // the acknowledgement has been written
	missed bool // a change came before the acknowledgement was written
}

// listen opens a subscription. The acknowledgement is its first message;
// a change that comes before it is written is delivered right after it.
func (s *Session) listen(r request) {
	filter := gate.Get(r.params, "notifications")
	if filter != nil && filter[0] != '{' {
		s.fail(r.id, codeInvalidParams, "invalid params: notifications must be an object")
		return
	}
	sub := &subscription{id: r.id, tools: string(gate.Get(filter, "toolsListChanged")) == "true"}
	k := string(r.id)
	s.mu.Lock()
	_, dup := s.subs[k]
	if !dup {
		_, dup = s.inflight[k]
	}
	full := len(s.subs) >= MaxSubscriptions
	if !dup && !full {
		s.subs[k] = sub
	}
	s.mu.Unlock()
	switch {
	case dup:
		s.fail(r.id, codeInvalidRequest, "invalid request: a request with this id is still in flight")
		return
	case full:
		s.fail(r.id, codeTooBusy, fmt.Sprintf("too many subscriptions: at most %d may be open at once", MaxSubscriptions))
		return
	}
	honoured := []byte(`{}`)
	if sub.tools {
		honoured = []byte(`{"toolsListChanged":true}`)
	}
	ack := subNotification("notifications/subscriptions/acknowledged", r.id, honoured)
	s.out.SendHeld(one(ack), func() {
		s.mu.Lock()
		sub.acked = true
		missed := sub.missed
		s.mu.Unlock()
		if missed {
			select {
			case s.kick <- struct{}{}:
			default:
			}
		}
	})
}

// subNotification is a notification on subscription id, with notifications
// (the acknowledged filter) when given.
func subNotification(method string, id, notifications []byte) []byte {
	b := make([]byte, 0, 160)
	b = append(b, `{"jsonrpc":"2.0","method":"`...)
	b = append(b, method...)
	b = append(b, `","params":{"_meta":{"`+metaSubscriptionID+`":`...)
	b = append(b, id...)
	b = append(b, '}')
	if notifications != nil {
		b = append(b, `,"notifications":`...)
		b = append(b, notifications...)
	}
	return append(b, "}}\n"...)
}

var legacyListChanged = []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n")

// Changes returns the signals a writer turns into list-change
// notifications: the hub's tool-list signal and the session's own kick.
func (s *Session) Changes() <-chan struct{} { return s.kick }

// ListChanged returns the notifications one tool-list change makes: one
// for a 2025-era client that has sent notifications/initialized, one per
// subscription that asked for toolsListChanged.
func (s *Session) ListChanged() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return nil
	}
	var out []Message
	if s.era == eraLegacy && s.ready {
		out = append(out, one(legacyListChanged))
	}
	for _, sub := range s.subs {
		switch {
		case !sub.tools:
		case !sub.acked:
			sub.missed = true
		default:
			out = append(out, one(subNotification("notifications/tools/list_changed", sub.id, nil)))
		}
	}
	return out
}

// EndSubscriptions answers every open subscription with its completion
// result, the graceful end the revision asks of a server that shuts down.
func (s *Session) EndSubscriptions() {
	s.mu.Lock()
	subs := s.subs
	s.subs = map[string]*subscription{}
	s.mu.Unlock()
	for _, sub := range subs {
		obj := []byte(`{"resultType":"complete","_meta":{"` + metaServerInfo + `":` + string(serverInfo) +
			`,"` + metaSubscriptionID + `":` + string(sub.id) + `}}`)
		s.out.SendHeld(one(response(sub.id, obj)), nil)
	}
}
