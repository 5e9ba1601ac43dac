// Package page is the page-facing side of the bridge (protocol.md §2): the
// WebSocket upgrade with its origin check, the first-frame handshake, pairing,
// the busy and takeover rules, and one reader and one writer goroutine per
// attached page with the heartbeat.
package page

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
	"github.com/stitchslop/stitchslop-bridge/security/throttle"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// Timings are the page side's clocks; tests shorten them.
type Timings struct {
	Ping  time.Duration // a ping every Ping (§2.9: 30 s)
	Dead  time.Duration // no frame or pong for Dead: the page is gone (§2.9: 90 s)
	Stale time.Duration // silent this long, an incumbent no longer blocks a new tab (75 s; must be less than Dead)
	Auth  time.Duration // the handshake frame must arrive within Auth (10 s)
}

var DefaultTimings = Timings{
	Ping:  30 * time.Second,
	Dead:  90 * time.Second,
	Stale: 75 * time.Second,
	Auth:  limits.AuthTimeout,
}

// Server handles WebSocket upgrades from the sites the bridge admits.
type Server struct {
	Port    int // the bound port, reported in hello
	Hub     *hub.Hub
	Pairing *pairing.Store
	Sites   *sites.Sites
	// Switched is called, before the tab is attached, when a tab of another
	// site than the one served authenticates (the session file names it).
	Switched func(site string)
	Log      *slog.Logger
	Timings  Timings
	// Guesses bounds failed credential checks (T5): each check takes a
	// unit first, and a right credential gives it back.
	Guesses  *throttle.Budget
	Attempts *attempts.Log
	// Takeover lets a new tab displace a live one (--takeover, §2.6).
	Takeover bool
	// Reserved are the bridge's own tool names and titles
	// (mcp.ReservedWords): a page tool named or titled like one is dropped
	// or loses its title (T8).
	Reserved []string

	mu sync.Mutex // guards the fields below; held for memory only
	// waiting are the sockets yet to send their first frame, oldest first,
	// at most limits.MaxUnauthSockets.
	waiting []*waiter
	live    []*conn // attached tabs (and one being displaced), for Shutdown
	closing bool    // Shutdown has begun: nothing new is served
}

type hello struct {
	Hello         string `json:"hello"`
	Protocol      int    `json:"protocol"`
	Port          int    `json:"port"`
	PairingSecret string `json:"pairingSecret,omitempty"`
	// Bridge says which binary this is (docs/protocol.md §7.18).
	Bridge version.Identity `json:"bridge"`
}

type refusal struct {
	Error   string `json:"error"`
	Busy    bool   `json:"busy,omitzero"`
	Message string `json:"message"`
}

var upgrader = websocket.Upgrader{
	HandshakeTimeout: limits.HandshakeTimeout,
	// ServeHTTP checks the origin before the upgrade; gorilla's same-origin
	// default would wrongly refuse the real site.
	CheckOrigin: func(*http.Request) bool { return true },
}

// ServeHTTP checks the Origin of r, an upgrade security/origin.Guard let
// through, upgrades it and serves the page until it leaves.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	site, status, reason := origin.CheckUpgrade(r, s.admits)
	s.Attempts.Attempt() // a tab (or a page) dialled this bridge by its name: origin.Guard let it through
	if status != 0 {
		from := origin.Clip(r.Header.Get("Origin"))
		served := s.Sites.Served()
		s.Log.Warn("refused a connection ("+strconv.Itoa(status)+"): "+reason,
			"origin", from, "host", origin.Clip(r.Host), "serving", served)
		switch n := origin.Normalize(from); {
		case s.Sites.Allowed(n) && !s.Pairing.Demo && s.Pairing.DemoPaired(n):
			s.Attempts.Refuse(attempts.DemoPairing, from, demoRefused(n))
		case s.Sites.Allowed(n):
			// A site this bridge may serve: named, quoted once, with the
			// fix. Any other site's words never reach the agent.
			s.Attempts.Refuse(attempts.Site, from, "A tab from "+gate.Quote(n)+" was refused: this bridge serves "+served+
				", and that site has no stored pairing and no token here. If you opened Stitch Slop there yourself, pair it: give the pair tool (or `stitchslop-bridge pair --origin "+n+
				"`) a token from that tab's agent panel.")
		default:
			s.Attempts.RefuseElsewhere()
		}
		http.Error(w, reason, status)
		return
	}
	wt := s.await()
	ws, err := upgrader.Upgrade(holding{w}, r, nil)
	if err != nil {
		s.stopWaiting(wt) // none when wt is nil
		return            // the upgrader has answered
	}
	if wt == nil || !s.upgraded(wt, ws) {
		ws.Close()
		return
	}
	if c := s.handshake(ws, wt, site); c != nil {
		s.serve(c)
	}
}

// waiter is a socket waiting for its first frame, counted from before its
// upgrade is answered; ws is set once it is.
type waiter struct {
	ws     *websocket.Conn
	closed bool // evicted, or shut down, before ws was set: close ws once it is
}

// await counts a socket about to be upgraded as waiting. With
// limits.MaxUnauthSockets waiting, the oldest is closed to make room: a tab
// sends its handshake at once, so idle sockets can delay a tab by one
// round trip, never lock it out. It returns nil once Shutdown has begun.
func (s *Server) await() *waiter {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil
	}
	var evicted *waiter
	if len(s.waiting) >= limits.MaxUnauthSockets {
		// Marked under the lock, its ws is never set later (upgraded).
		evicted = s.waiting[0]
		s.waiting = slices.Delete(s.waiting, 0, 1)
		evicted.closed = true
	}
	wt := &waiter{}
	s.waiting = append(s.waiting, wt)
	s.mu.Unlock()
	if evicted != nil {
		s.Log.Warn(fmt.Sprintf("closed the oldest of %d sockets that sent no handshake, to make room for a new one", limits.MaxUnauthSockets))
		if evicted.ws != nil {
			evicted.ws.NetConn().Close() // its handshake read fails and it is cleaned up there
		}
	}
	return wt
}

// upgraded sets wt's socket, or reports false (the caller closes ws) when
// wt was evicted or shut down meanwhile.
func (s *Server) upgraded(wt *waiter, ws *websocket.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if wt.closed {
		return false
	}
	wt.ws = ws
	return true
}

// stopWaiting takes wt off the waiting list, so it cannot be evicted.
func (s *Server) stopWaiting(wt *waiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting = slices.DeleteFunc(s.waiting, func(w *waiter) bool { return w == wt })
}

const shutdownWait = 2 * time.Second

// Shutdown ends the page side: waiting sockets are closed, and each tab is
// sent a close frame (1001, going away) so it knows the bridge stopped
// rather than crashed, for at most shutdownWait. Later upgrades are closed
// at once.
func (s *Server) Shutdown() {
	s.mu.Lock()
	s.closing = true
	var waiting []*websocket.Conn
	for _, wt := range s.waiting {
		wt.closed = true // one still being upgraded is closed by its handler
		if wt.ws != nil {
			waiting = append(waiting, wt.ws)
		}
	}
	s.waiting = nil
	conns := slices.Clone(s.live)
	s.mu.Unlock()
	for _, ws := range waiting {
		ws.NetConn().Close()
	}
	timeout := time.After(shutdownWait)
	for _, c := range conns {
		c.setReason(errors.New("the bridge is stopping"))
		c.Close()
	}
	for _, c := range conns {
		select {
		case <-c.finished:
		case <-timeout:
			return
		}
	}
}

func (s *Server) refuse(ws *websocket.Conn, f refusal) {
	b, _ := gate.Marshal(f)
	if write(ws, websocket.TextMessage, b, writeWait) == nil {
		write(ws, websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, f.Error), closeWait)
	}
	ws.Close()
}

// Credentials are what a tab's first frame offers (§2.3).
type Credentials struct {
	Token  string
	Secret string
}

// ParseFirstFrame reads a handshake frame, through the door as every frame
// (a name given twice is refused): a JSON object with a token, a secret or
// both; a member that is not a string counts as absent.
func ParseFirstFrame(b []byte) (Credentials, error) {
	f, err := envelope.Decode(b)
	if err != nil {
		return Credentials{}, errors.New("the first frame is not a JSON object, or names a member twice")
	}
	tok, _ := f.String("token")
	sec, _ := f.String("secret")
	return Credentials{Token: tok, Secret: sec}, nil
}

// admits decides at the upgrade which sites may dial: the one served, and
// an allowed site with a stored pairing or an armed token.
func (s *Server) admits(site string) bool {
	if site == s.Sites.Served() {
		return true
	}
	if !s.Sites.Allowed(site) {
		return false
	}
	if s.Sites.HasTokens(site) {
		return true
	}
	paired, err := s.Pairing.Paired(site)
	if err != nil {
		s.Log.Error("cannot read the pairing file", "err", err.Error())
	}
	return paired
}

// handshake reads the first frame of a tab of site and admits it (the
// attached connection) or refuses it (nil).
func (s *Server) handshake(ws *websocket.Conn, wt *waiter, site string) *conn {
	ws.SetReadLimit(limits.PreAuthFrame)
	ws.SetReadDeadline(time.Now().Add(s.Timings.Auth))
	_, first, err := ws.ReadMessage()
	s.stopWaiting(wt)
	if err != nil {
		if errors.Is(err, websocket.ErrReadLimit) {
			s.Log.Warn("closed a connection whose first frame was over the limit", "limit_bytes", limits.PreAuthFrame)
		} else {
			s.Log.Warn("closed a connection that sent no handshake", "reason", err.Error())
		}
		ws.Close()
		return nil
	}
	cr, err := ParseFirstFrame(first)
	if err != nil {
		s.Log.Warn("refused a connection: its first frame is not a JSON object")
		s.refuse(ws, refusal{Error: "bad_json", Message: "The first frame must be a JSON object with a token or a secret."})
		return nil
	}
	tok, sec := cr.Token, cr.Secret
	if ok, started := s.Guesses.Take(); !ok {
		if started {
			s.Log.Warn(fmt.Sprintf("refusing tab handshakes unchecked (rate_limited): more than %d wrong credentials, then %d a second; a tab gets in again a moment after the guessing stops", throttle.Burst, throttle.PerSecond))
		}
		s.Attempts.Refuse(attempts.RateLimited, site, "Too many wrong credentials were tried on this bridge just now; the tab is let in again a moment after they stop.")
		s.refuse(ws, refusal{Error: "rate_limited", Message: "Too many wrong credentials were tried on this bridge just now. The tab will get in again in a moment."})
		return nil
	}

	secretOK, err := s.Pairing.VerifySecret(site, sec)
	tokenOK, spent := false, false
	if !secretOK && tok != "" && s.Sites.Armed(site, tok) {
		var serr error
		spent, serr = s.Pairing.Spent(tok)
		tokenOK, err = serr == nil && !spent, errors.Join(err, serr)
	}
	if err != nil {
		s.Log.Error("cannot read the pairing file or the spent-token file", "err", err.Error())
	}
	if !secretOK && !tokenOK {
		s.refuseCredential(ws, site, cr, spent)
		return nil
	}
	s.Guesses.Refund()

	c := newConn(ws, s.Timings)
	displaced, err := s.Hub.Reserve(c, s.Takeover)
	if errors.Is(err, hub.ErrBusy) {
		s.Log.Warn("refused a second tab: busy (another tab is attached and live)")
		s.Attempts.Refuse(attempts.Busy, site, "Another tab is attached to this bridge. Close it, or start another bridge for this tab.")
		s.refuse(ws, refusal{Error: "busy", Busy: true, Message: "This connector is already serving another Stitch Slop tab. Close the other tab, or start another bridge for this one."})
		return nil
	}
	if displaced != nil {
		why := "because this one stopped answering"
		if displaced.Reachable() {
			why = "because the bridge was started with --takeover"
		}
		s.Log.Warn("a new tab takes over and the attached one is told it was displaced (" + why + ")")
		b, _ := gate.Marshal(map[string]any{"displaced": true, "message": "Another Stitch Slop tab took over this agent connection, " + why + "."})
		displaced.Send(b)
		displaced.Close()
	}
	// The slot is ours; redeeming the token (file I/O) happens outside the
	// hub's lock. In the bridge's first moments the hello waits for the
	// identity's hash at most version.HashWait.
	h := hello{Hello: "stitchslop-connector", Protocol: version.Protocol, Port: s.Port, Bridge: version.Self(version.HashWait)}
	if tokenOK {
		h.PairingSecret, err = s.Pairing.Redeem(site, tok)
	}
	if err == nil {
		b, _ := gate.Marshal(h)
		err = c.Send(b)
	}
	if err != nil {
		s.Hub.Release(c)
		switch {
		case errors.Is(err, pairing.ErrSpent):
			s.Log.Warn("refused a tab: bad_credential: its token was redeemed a moment ago by another bridge")
			s.Attempts.Refuse(attempts.SpentToken, site, "The tab's token was redeemed a moment ago by another bridge; tokens work once. Open the Stitch Slop agent panel for a fresh token.")
			s.refuse(ws, refusal{Error: "bad_credential", Message: "This token was already used; tokens work once. Reopen the Stitch Slop agent panel for a fresh one."})
			return nil
		case tokenOK && h.PairingSecret == "": // Redeem failed, not the hello
			s.Log.Error("could not store the new pairing, so the tab was refused: " + err.Error())
		default:
			s.Log.Error("could not admit the tab", "err", err.Error())
		}
		s.refuse(ws, refusal{Error: "internal", Message: "The bridge could not store the pairing; see its log."})
		return nil
	}
	// The slot is reserved: the served site changes for one tab at a time.
	if prev := s.Sites.Serve(site); prev != site {
		s.Log.Info("now serving another site", "site", site, "before", prev)
		if s.Switched != nil {
			s.Switched(site)
		}
	}
	s.Hub.Commit(c)
	how, by := "stored pairing", hub.ByPairing
	if tokenOK {
		how, by = "token (now spent; pairing stored in "+s.Pairing.Path()+")", hub.ByToken
	}
	s.Hub.SetAttachedBy(c, by)
	s.Log.Info("tab connected", "origin", site, "by", how)
	return c
}

// demoRefused is the fix for a tab refused for its demo pairing
// (THREAT_MODEL.md T17): only a demo bridge admits one, since once the demo
// is gone any local program can serve its loopback origin.
func demoRefused(site string) string {
	return "A tab from " + gate.Quote(site) + " was refused: its pairing was made by `stitchslop demo`, and only a demo bridge admits it (once the demo is gone, any local program can serve that address). Run the demo again to use its page, or pair the real Stitch Slop site."
}

// refuseCredential refuses a tab whose credentials cr admit nothing; spent
// says its token was armed but redeemed.
func (s *Server) refuseCredential(ws *websocket.Conn, site string, cr Credentials, spent bool) {
	why, reason, fix := "no stored pairing or unspent token matches", attempts.WrongPairing, "The tab's stored pairing does not match this bridge's (paired with another bridge or config dir, or unpaired). Open the Stitch Slop agent panel for a fresh token and give it to the bridge."
	switch {
	case !s.Pairing.Demo && s.Pairing.DemoSecret(site, cr.Secret):
		why, reason, fix = "its pairing is one the demo made, which only a demo admits", attempts.DemoPairing, demoRefused(site)
	case spent:
		why, reason, fix = "its token was already redeemed (tokens work once)", attempts.SpentToken, "The tab offered a token that was already used; tokens work once. Open the Stitch Slop agent panel for a fresh token."
	case cr.Token == "" && cr.Secret == "":
		why = "its first frame carried neither a token nor a secret"
	case cr.Token != "":
		// A paired site refused is wrong_pairing whatever token came with
		// it; only an unpaired site's token is unknown_token.
		if paired, err := s.Pairing.Paired(site); err != nil || !paired {
			reason, fix = attempts.UnknownToken, "The tab offered a token this bridge was not given. Start the bridge with that token in STITCHSLOP_TOKEN (or pair it), or open the agent panel for a fresh one."
		}
	}
	s.Log.Warn("refused a tab: bad_credential: " + why)
	s.Attempts.Refuse(reason, site, fix)
	s.refuse(ws, refusal{Error: "bad_credential", Message: "This bridge does not recognise the tab's pairing or token. Reopen the Stitch Slop agent panel for a fresh token; tokens work once."})
}

// serve reads the attached page's frames until it leaves, each through the
// door (envelope.DecodeTools): a reply reaches its call as the Reply the
// door made; a tool list's value is read by toollist.Sanitize as the door
// meets it.
func (s *Server) serve(c *conn) {
	s.mu.Lock()
	if s.closing {
		c.Close() // the writer sends the close frame and ends
	} else {
		s.live = append(s.live, c)
	}
	s.mu.Unlock()
	go c.writeLoop()
	// A frame that makes the reader panic ends this tab's connection, not
	// the bridge; the cleanup below answers the calls waiting on it.
	defer func() {
		if recover() != nil {
			s.Log.Error("a frame from the tab could not be handled; the tab was disconnected")
		}
	}()
	defer func() {
		s.mu.Lock()
		s.live = slices.DeleteFunc(s.live, func(l *conn) bool { return l == c })
		s.mu.Unlock()
		c.Close()
		s.Hub.Detach(c)
		s.Log.Info("tab disconnected", "reason", c.reason())
	}()
	c.ws.SetReadLimit(limits.PageFrame)
	var list toollist.List // each tools frame's, made by the door's reader
	tools := toollist.Sanitize(&list, s.Reserved)
	for {
		msg, err := c.readMessage()
		if err != nil {
			c.setReason(err)
			return
		}
		c.heard()
		frame, err := envelope.DecodeTools(msg, tools)
		if err != nil && s.answerBadReply(c, err) {
			s.Log.Warn("refused a reply from the tab: " + err.Error())
			continue
		}
		if err != nil {
			s.Log.Warn("ignored a frame from the tab: " + err.Error())
			continue
		}
		id := frame.Get("id")
		switch {
		case !gate.IsNull(id):
			n, isInt := gate.Int(id)
			if !isInt || !s.Hub.Deliver(c, n, frame) {
				s.Log.Warn("ignored a reply nobody is waiting for (late, cancelled or unknown id)")
			}
		case frame.Get("tools") != nil:
			for _, d := range list.Dropped {
				// An invalid name comes Go-quoted for the JSON report; the logger
				// quotes it itself.
				name := d.Name
				if u, err := strconv.Unquote(name); err == nil {
					name = u
				}
				s.Log.Warn("dropped a tool from the tab's list", "tool", name, "reason", d.Reason)
			}
			s.Hub.SetTools(c, list.Tools, list.Dropped)
			s.Log.Info("tab sent its tool list", "tools", len(list.Tools))
		}
	}
}

// CodeBadReply answers a call whose reply the door (envelope.Decode)
// refused.
const CodeBadReply = "bad_reply"

// answerBadReply fails now, rather than at its timeout, the waiting call a
// refused frame replies to, by the id the door read before the fault
// (envelope.Refused). The tab may answer any call it was sent, so all it
// chooses here is which one fails now.
func (s *Server) answerBadReply(c *conn, why error) bool {
	var ref *envelope.Refused
	if !errors.As(why, &ref) {
		return false
	}
	n, isInt := ref.ID, ref.HasID
	what := "had member names the bridge does not read (one given twice, too long, or holding an invisible character), or too many"
	if !errors.Is(why, envelope.ErrBadNames) {
		what = "was not one valid JSON object"
	}
	return isInt && s.Hub.Deliver(c, n, envelope.Own(CodeBadReply,
		"The Stitch Slop tab's reply "+what+", so the bridge did not read it. This is a fault in the page; try again, or reload the tab."))
}

// readChunk is the reusable buffer a frame is read into first. A longer
// frame (an image) continues in a buffer sized from the previous long one,
// as renders come back at much the same size, and doubled while it fills
// up to exportPast; one far too large is copied down, so no frame keeps
// more than twice its size alive.
const readChunk = 32 << 10

// exportPast is the size past which a frame is an export, not a render
// (an 8 MiB image is an 11 MB frame): rather than double again, its buffer
// is made the frame limit's size at once. The OS gives a fresh buffer's
// pages only as they are written, so a 60 MB frame costs about 60 MB and
// the buffers before it, where doubling cost 128 MB (issue 34 item 3).
const exportPast = 16 << 20

// collectBefore is the size of a long frame after which the garbage
// collector runs before the next long frame is allocated: the previous one
// is garbage by then, so the process holds one long frame, not two or three.
const collectBefore = 4 << 20

// readMessage reads one frame of at most limits.PageFrame bytes, the read
// limit serve sets.
func (c *conn) readMessage() ([]byte, error) {
	_, r, err := c.ws.NextReader()
	if err != nil {
		return nil, err
	}
	if c.scratch == nil {
		c.scratch = make([]byte, readChunk)
	}
	n, err := io.ReadFull(r, c.scratch)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return append([]byte(nil), c.scratch[:n]...), nil
	}
	if err != nil {
		return nil, err
	}
	if c.lastLong >= collectBefore {
		runtime.GC()
	}
	// One byte over the limit leaves room to read the end of a frame at
	// the limit.
	buf := make([]byte, n, min(max(4*readChunk, c.lastLong+c.lastLong/8), limits.PageFrame+1))
	copy(buf, c.scratch)
	for {
		if len(buf) == cap(buf) {
			size := 2 * cap(buf)
			if size > exportPast && cap(buf) <= limits.PageFrame {
				size = limits.PageFrame + 1
			}
			grown := make([]byte, len(buf), size)
			copy(grown, buf)
			buf = grown
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	c.lastLong = len(buf)
	if 2*len(buf) < cap(buf) {
		buf = append([]byte(nil), buf...)
	}
	return buf, nil
}
