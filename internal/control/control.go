// Package control is the control plane (protocol.md §4.2-4.3): plain HTTP on
// the page's port, for shells and agents that do not speak MCP. Every route
// needs the session key from the 0600 session file; any request carrying an
// Origin header is refused before the key is looked at, since only web pages
// send one.
package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/credential"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// KeyHeader carries the session key.
const KeyHeader = "x-stitchslop-key"

// ListenerHeader marks a request of the listen verb with its pid
// (protocol.md §7.16): a listener, not an agent's use (ServeHTTP).
const ListenerHeader = "x-stitchslop-listener"

// VoiceOwnerHeader carries the pid of a follower bridge whose session hears
// the tab's voice itself (--voice-channel, protocol.md §7.19): its
// voice.listen claims the one consumer's place (hub.Hub.ClaimVoice).
const VoiceOwnerHeader = "x-stitchslop-voice-owner"

// Bounds of POST /wait, in seconds.
const (
	WaitDefault = 120
	WaitMin     = 1
	WaitMax     = 600
)

// Server answers the control-plane routes.
type Server struct {
	Key  string
	Port int
	Hub  *hub.Hub
	// Sites is the site served and where POST /pair arms a token; Pairing
	// says whether a token is spent and a site paired.
	Sites   *sites.Sites
	Pairing sites.Store
	// PairedOrigins lists every site with a stored pairing; the served
	// site is paired when it is among them.
	PairedOrigins func() []string
	Attempts      *attempts.Log
	Activity      func() // called for every authenticated request but a listener's: an agent is here
	Log           *slog.Logger
}

type route struct {
	method string
	serve  func(*Server, http.ResponseWriter, *http.Request)
}

var routes = map[string]route{
	"/status": {http.MethodGet, (*Server).status},
	"/tools":  {http.MethodGet, (*Server).tools},
	"/wait":   {http.MethodPost, (*Server).wait},
	"/call":   {http.MethodPost, (*Server).call},
	"/pair":   {http.MethodPost, (*Server).pair},
}

// ServeHTTP answers one request that is not a WebSocket upgrade: the
// control-plane routes, and 426 for anything else.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Origin before the key (§4.3); the Host is origin.Guard's, in front.
	if status, reason := origin.CheckControl(r); status != 0 {
		s.Log.Warn("refused a control-plane request ("+strconv.Itoa(status)+"): "+reason, "path", origin.Clip(r.URL.Path))
		writeRaw(w, status, envelope.Bridge("forbidden", reason))
		return
	}
	rt, ok := routes[r.URL.Path]
	if !ok {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "this port speaks WebSocket to the Stitch Slop tab", http.StatusUpgradeRequired)
		return
	}
	if !credential.Equal(r.Header.Get(KeyHeader), s.Key) {
		writeRaw(w, http.StatusUnauthorized, envelope.Bridge("unauthorized", "The session key is missing or wrong; the session file may be stale."))
		return
	}
	if r.Method != rt.method {
		w.Header().Set("Allow", rt.method)
		writeRaw(w, http.StatusMethodNotAllowed, envelope.Bridge("method_not_allowed", r.URL.Path+" takes "+rt.method))
		return
	}
	// A request is agent activity when it starts and when it ends: an agent
	// blocked in a long /wait is still there (protocol.md §2.8). A listen
	// process is not an agent: it polls for as long as its owner lives, and
	// counting it would keep an unused bridge up for ever.
	if pid, ok := listenerPID(r.Header.Get(ListenerHeader)); ok {
		s.Hub.NoteListener(pid)
	} else {
		s.Activity()
		defer s.Activity()
	}
	rt.serve(s, w, r)
}

// listenerPID takes a positive pid below 2^31, digits only (base 10 takes
// no sign, space or underscore); anything else counts as an agent's.
func listenerPID(v string) (int, bool) {
	pid, err := strconv.ParseUint(v, 10, 31)
	if err != nil || pid == 0 {
		return 0, false
	}
	return int(pid), true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := gate.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"ok":false,"error":"internal"}`)
	}
	writeRaw(w, status, b)
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	// The length, so that a client holds a reply of an image in one
	// buffer of its size rather than growing one (internal/client.Do).
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte("\n"))
}

// decode reads a JSON object body of at most limits.ControlBody bytes. An
// empty body is an empty object.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limits.ControlBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeRaw(w, http.StatusRequestEntityTooLarge, envelope.Bridge("too_large", "The request body is over the limit."))
		} else {
			writeRaw(w, http.StatusBadRequest, envelope.Bridge("bad_request", "Could not read the request body."))
		}
		return false
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		b = []byte("{}")
	}
	if err := DecodeBody(b, v); err != nil {
		writeRaw(w, http.StatusBadRequest, envelope.Bridge("bad_request", err.Error()))
		return false
	}
	return true
}

// WaitRequest is the body of POST /wait.
type WaitRequest struct {
	Seconds *float64 `json:"seconds"`
}

// duration is how long the wait lasts: Seconds clamped to WaitMin..WaitMax,
// WaitDefault when absent.
func (w WaitRequest) duration() time.Duration {
	secs := float64(WaitDefault)
	if w.Seconds != nil {
		secs = min(max(*w.Seconds, WaitMin), WaitMax)
	}
	return time.Duration(secs * float64(time.Second))
}

// CallRequest is the body of POST /call. TimeoutMs, when given, is the
// page call's deadline (hub.MinCallTimeout to hub.MaxCallTimeout); the
// hub's default applies otherwise.
type CallRequest struct {
	Command   string          `json:"command"`
	Args      json.RawMessage `json:"args"`
	TimeoutMs *float64        `json:"timeoutMs"`
}

func (c CallRequest) timeout() time.Duration {
	if c.TimeoutMs == nil {
		return 0
	}
	return time.Duration(*c.TimeoutMs) * time.Millisecond
}

// DecodeBody parses a control-plane request body into a WaitRequest or
// CallRequest and checks it.
func DecodeBody(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return errors.New("the request body is not a valid JSON object")
	}
	switch v := v.(type) {
	case *CallRequest:
		if v.Command == "" {
			return errors.New(`"command" is required`)
		}
		if a := strings.TrimSpace(string(v.Args)); a != "" && a != "null" && !strings.HasPrefix(a, "{") {
			return errors.New(`"args" must be a JSON object`)
		}
		lo, hi := float64(hub.MinCallTimeout.Milliseconds()), float64(hub.MaxCallTimeout.Milliseconds())
		if ms := v.TimeoutMs; ms != nil && (*ms != math.Trunc(*ms) || *ms < lo || *ms > hi) {
			return fmt.Errorf(`"timeoutMs" must be a whole number of milliseconds from %.0f to %.0f`, lo, hi)
		}
	case *WaitRequest:
		if v.Seconds != nil && !(*v.Seconds >= 0) {
			return errors.New(`"seconds" must be a number of seconds`)
		}
	}
	return nil
}

func (s *Server) toolNames() []string {
	names := []string{}
	for _, t := range s.Hub.State().Tools {
		names = append(names, t.Name)
	}
	return names
}

// Status is the answer of GET /status, in protocol.md §4.2's order.
type Status struct {
	OK            bool               `json:"ok"`
	Connected     bool               `json:"connected"`
	Port          int                `json:"port"`
	Origin        string             `json:"origin"`
	Protocol      int                `json:"protocol"`
	PID           int                `json:"pid"`
	Paired        bool               `json:"paired"`
	Tools         []string           `json:"tools"`
	DroppedTools  []toollist.Dropped `json:"droppedTools,omitempty"`
	PairedOrigins []string           `json:"pairedOrigins"`
	ArmedOrigins  []string           `json:"armedOrigins"` // sites with an unspent token armed (pair)
	Squatters     []hub.Squatter     `json:"squatters"`    // other users' listeners on the ports the tab dials
	// Listeners are the pids of the listen processes polling this bridge
	// (hub.Listeners); AttachedBy is how the attached tab got in, "token"
	// or "pairing", null with no tab.
	Listeners  []int   `json:"listeners"`
	AttachedBy *string `json:"attachedBy"`
	attempts.Snapshot
	Message string `json:"message"`
	// Bridge is which binary this is (docs/protocol.md §7.18), as the hello says.
	Bridge version.Identity `json:"bridge"`
}

func (s *Server) status(w http.ResponseWriter, _ *http.Request) {
	st := s.Hub.State()
	msg := "No Stitch Slop tab is connected yet; it attaches on its own while its Allow agent connections switch is on."
	if st.Connected {
		msg = "A Stitch Slop tab is connected."
	}
	paired := s.PairedOrigins()
	served := s.Sites.Served()
	var by *string
	if st.Connected && st.AttachedBy != "" {
		by = &st.AttachedBy
	}
	writeJSON(w, http.StatusOK, Status{
		OK: true, Connected: st.Connected, Port: s.Port, Origin: served,
		Protocol: version.Protocol, PID: os.Getpid(), Paired: slices.Contains(paired, served),
		Tools: s.toolNames(), DroppedTools: st.Dropped, PairedOrigins: paired, ArmedOrigins: s.Sites.ArmedSites(),
		Squatters: st.Squatters, Listeners: s.Hub.Listeners(), AttachedBy: by, Snapshot: s.Attempts.Snapshot(), Message: msg,
		Bridge: version.Self(version.HashWait),
	})
}

func (s *Server) tools(w http.ResponseWriter, _ *http.Request) {
	st := s.Hub.State()
	if !st.Connected {
		writeRaw(w, http.StatusOK, envelope.Bridge(hub.CodeNotConnected, hub.NotConnectedMessage))
		return
	}
	tools := st.Tools
	if tools == nil {
		tools = []toollist.Tool{} // attached, list not sent yet
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "tools": tools})
}

func (s *Server) wait(w http.ResponseWriter, r *http.Request) {
	var req WaitRequest
	if !decode(w, r, &req) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), req.duration())
	defer cancel()
	before := s.Attempts.Snapshot()
	if !s.Hub.Wait(ctx) {
		writeRaw(w, http.StatusOK, envelope.Bridge("timeout", "No Stitch Slop tab attached within the wait. "+attempts.Explain(s.Attempts.Snapshot(), before)))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "connected": true, "port": s.Port, "origin": s.Sites.Served(), "tools": s.toolNames(), "message": "A Stitch Slop tab is connected."})
}

// PairRequest is the body of POST /pair: a token from the agent panel of
// the tab at Origin ("" for the origin the bridge was started with).
type PairRequest struct {
	Token  string `json:"token"`
	Origin string `json:"origin"`
}

// pair arms a token for one allowed site (sites.Pair). It answers at once;
// the tab, which keeps dialling, redeems the token on its next attempt.
func (s *Server) pair(w http.ResponseWriter, r *http.Request) {
	var req PairRequest
	if !decode(w, r, &req) {
		return
	}
	p, err := s.Sites.Pair(s.Pairing, req.Token, req.Origin)
	if err != nil {
		code := "failed"
		switch {
		case errors.Is(err, sites.ErrBadToken):
			code = "bad_token"
		case errors.Is(err, sites.ErrNotAllowed):
			code = "origin_not_allowed"
		case errors.Is(err, sites.ErrSpent):
			code = "spent_token"
		}
		s.Log.Warn("refused a token from the control plane: " + code)
		writeRaw(w, http.StatusBadRequest, envelope.Bridge(code, err.Error()))
		return
	}
	connected := s.Hub.State().Connected && s.Sites.Served() == p.Site
	msg := "The token is armed for " + p.Site + "; its tab redeems it the next time it dials (within seconds while its Allow agent connections switch is on)."
	switch {
	case !p.Armed:
		msg = "That token was already redeemed, but " + p.Site + " has a stored pairing, which its tab uses instead; nothing was armed."
	case connected:
		msg = "A tab of " + p.Site + " is already connected; the token is armed but not needed now, and stays unspent."
	}
	s.Log.Info("armed a token from the control plane", "site", p.Site)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "origin": p.Site, "armed": p.Armed, "connected": connected, "message": msg})
}

func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	var req CallRequest
	if !decode(w, r, &req) {
		return
	}
	pid, claim := listenerPID(r.Header.Get(VoiceOwnerHeader))
	if claim && pid == os.Getpid() {
		// Only a follower may claim: this process's own session holds
		// its place in the hub, never by a claim (hub.Hub.SetVoiceOwner).
		writeRaw(w, http.StatusBadRequest, envelope.Bridge("bad_request", VoiceOwnerHeader+" names this bridge itself; only a bridge that follows this one may claim the voice."))
		return
	}
	if claim && req.Command == hub.VoiceCommand && s.Hub.ClaimVoice(pid) {
		writeRaw(w, http.StatusOK, s.Hub.CallVoice(r.Context(), req.Args, req.timeout()).Bytes())
		return
	}
	writeRaw(w, http.StatusOK, s.Hub.Call(r.Context(), req.Command, req.Args, req.timeout()).Bytes())
}
