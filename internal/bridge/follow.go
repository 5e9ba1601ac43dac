package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/control"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/mcp"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
)

// Sharing one tab between agent sessions (protocol.md §7.13): a
// lazy bridge asked to reach a tab first looks for a live bridge serving
// the same site, and follows it instead of taking a second port. The
// leader's tab then appears in this bridge's hub as a leader connection
// (a hub.Conn whose frames go to the leader's control plane), so the MCP
// face works unchanged. When the leader exits, the follower binds the
// port it held, and the tab comes back by its stored pairing.

// followPoll is how often a follower asks its leader whether it and its
// tab are still there, as the reference bridge does.
const followPoll = 3 * time.Second

// probeTimeout bounds one /status or /tools request to a leader: it
// answers them from memory.
const probeTimeout = 5 * time.Second

// leader is the bridge followed.
type leader struct {
	sess   session.File
	c      *client.Client
	ctx    context.Context // ends when following ends
	cancel context.CancelFunc
	done   chan struct{} // closed when the follow loop has returned
}

// leaderStatus is the part of a leader's GET /status a follower reads
// (protocol.md §7.7).
type leaderStatus struct {
	OK         bool     `json:"ok"`
	Connected  bool     `json:"connected"`
	Origin     string   `json:"origin"`
	Tools      []string `json:"tools"`
	AttachedBy string   `json:"attachedBy"`
	Listeners  []int    `json:"listeners"`
	attempts.Snapshot
}

func (l *leader) status(ctx context.Context) (leaderStatus, error) {
	var st leaderStatus
	b, err := l.c.Do(ctx, client.Request{Method: "GET", Path: "/status", Timeout: probeTimeout})
	if err != nil {
		return st, err
	}
	if err := envelope.Into(b, &st); err != nil { // the door, for an answer of a known shape
		return st, fmt.Errorf("its /status answer is %w", err)
	}
	return st, nil
}

// hostStatus is the MCP face's view of the leader, false when not
// following or when it does not answer.
func (b *bridge) hostStatus(ctx context.Context) (mcp.HostStatus, bool) {
	b.mu.Lock()
	l := b.leader
	b.mu.Unlock()
	if l == nil {
		return mcp.HostStatus{}, false
	}
	st, err := l.status(ctx)
	if err != nil || !st.OK {
		return mcp.HostStatus{}, false
	}
	return mcp.HostStatus{Port: l.sess.Port, PID: l.sess.PID, Connected: st.Connected, AttachedBy: st.AttachedBy,
		Listeners: st.Listeners, Attempts: st.Snapshot.Taken(time.Now())}, true
}

// otherBridges lists the live bridges on the config dir other than this
// process (mcp.Server.OtherBridges): a leader followed is one of them.
func (b *bridge) otherBridges() []mcp.OtherBridge {
	live, _, err := session.List(b.cfg.ConfigDir)
	out := []mcp.OtherBridge{}
	if err != nil {
		return out
	}
	for _, f := range live {
		if f.File.PID == os.Getpid() {
			continue
		}
		out = append(out, mcp.OtherBridge{Port: f.File.Port, Origin: f.File.Origin, PID: f.File.PID})
	}
	return out
}

// findLeader returns a live bridge serving this bridge's site, its port
// proven held by its process.
func (b *bridge) findLeader() (session.File, bool) {
	live, _, err := session.List(b.cfg.ConfigDir)
	if err != nil {
		return session.File{}, false
	}
	site := b.sites.Served()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	for _, f := range live {
		if f.File.Origin != site || f.File.Protocol != 1 {
			continue
		}
		l := &leader{sess: f.File, c: client.New(f.File)}
		if st, err := l.status(ctx); err == nil && st.OK && st.Origin == site {
			return f.File, true
		}
	}
	return session.File{}, false
}

func (b *bridge) follow(sess session.File) {
	ctx, cancel := context.WithCancel(context.Background())
	l := &leader{sess: sess, c: client.New(sess), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	b.mu.Lock()
	b.leader = l
	b.mu.Unlock()
	b.log.Info(fmt.Sprintf("following the bridge on port %d (pid %d), which serves %s, instead of taking a second port", sess.Port, sess.PID, sess.Origin))
	go b.followLoop(l)
}

// unfollow stops following, if the bridge does; the leader's tab is
// detached here.
func (b *bridge) unfollow() {
	b.mu.Lock()
	l := b.leader
	b.leader = nil
	b.mu.Unlock()
	if l != nil {
		l.cancel()
		<-l.done
	}
}

// followLoop mirrors the leader's tab into the hub until following ends or
// the leader is gone; then it takes the leader's port over.
func (b *bridge) followLoop(l *leader) {
	conn := &leaderConn{b: b, l: l}
	defer close(l.done)
	defer b.hub.Detach(conn)
	attached := false
	var tools []byte // the leader's /tools as last mirrored
	tick := time.NewTimer(0)
	defer tick.Stop()
	for {
		var st leaderStatus
		var err error
		if attached {
			select {
			case <-tick.C:
			case <-l.ctx.Done():
				return
			}
			st, err = l.status(l.ctx)
		} else {
			st, err = l.wait(l.ctx)
		}
		if l.ctx.Err() != nil {
			return
		}
		if err != nil || !st.OK || st.Origin != l.sess.Origin {
			why := "it serves another site now"
			if err != nil {
				why = err.Error()
			}
			b.log.Info(fmt.Sprintf("the bridge followed on port %d is gone (%s); taking its port over", l.sess.Port, why))
			go b.takeOver(l)
			return
		}
		switch {
		case st.Connected && !attached:
			if _, err := b.hub.Reserve(conn, false); err == nil {
				b.hub.Commit(conn)
				attached = true
			}
		case !st.Connected && attached:
			b.hub.Detach(conn)
			attached, tools = false, nil
		}
		// The list is asked for at each poll: a tool's description or
		// schema may change while the names stay.
		if attached {
			if body, err := b.mirrorTools(conn, tools); err == nil {
				tools = body
			}
		}
		tick.Reset(followPoll)
	}
}

// wait is a /wait of followPoll on the leader, read as its status.
func (l *leader) wait(ctx context.Context) (leaderStatus, error) {
	b, err := l.c.Do(ctx, client.Request{Method: "POST", Path: "/wait",
		Body: map[string]any{"seconds": followPoll.Seconds()}, Timeout: followPoll + probeTimeout})
	if err != nil {
		return leaderStatus{}, err
	}
	var w struct {
		OK    bool     `json:"ok"`
		Error string   `json:"error"`
		Tools []string `json:"tools"`
	}
	if err := envelope.Into(b, &w); err != nil {
		return leaderStatus{}, fmt.Errorf("its /wait answer is %w", err)
	}
	if !w.OK && w.Error != "timeout" {
		return leaderStatus{}, fmt.Errorf("its /wait answered %q", w.Error)
	}
	return leaderStatus{OK: true, Connected: w.OK, Origin: l.sess.Origin, Tools: w.Tools}, nil
}

// mirrorTools copies the leader's tool list into the hub, sanitised again
// (the leader is another process), unless it is last, the answer mirrored
// before; it returns the answer.
func (b *bridge) mirrorTools(conn *leaderConn, last []byte) ([]byte, error) {
	body, err := conn.l.c.Do(conn.l.ctx, client.Request{Method: "GET", Path: "/tools", Timeout: probeTimeout})
	if err != nil || bytes.Equal(body, last) {
		return body, err
	}
	var list toollist.List
	if _, err := envelope.DecodeTools(body, toollist.Sanitize(&list, mcp.ReservedWords)); err != nil { // the door, as for a tab's frame
		b.log.Warn(fmt.Sprintf("ignored the tool list of the bridge followed on port %d: it is not a valid JSON object", conn.l.sess.Port))
		return nil, errors.New("the leader's tool list is not a valid JSON object")
	}
	b.hub.SetTools(conn, list.Tools, list.Dropped)
	return body, nil
}

// takeOver binds the port the leader held, now that it has gone, as an
// Open attempt of its own (so it never races another bind). If another
// follower was quicker, this one follows that one instead.
func (b *bridge) takeOver(l *leader) {
	b.mu.Lock()
	if b.leader != l { // unfollowed meanwhile
		b.mu.Unlock()
		return
	}
	b.leader = nil
	b.inherit = l.sess.Port
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*probeTimeout)
	defer cancel()
	if _, err := b.Open(ctx, false, ""); err != nil {
		b.log.Warn("could not take over from the bridge that went away; the next wait_for_connection tries again", "err", err.Error())
	}
}

// relayToken arms token for site at the leader too, when following: its
// port is the one the tab dials.
func (b *bridge) relayToken(ctx context.Context, token, site string) error {
	b.mu.Lock()
	l := b.leader
	b.mu.Unlock()
	if l == nil {
		return nil
	}
	_, err := l.c.Do(ctx, client.Request{Method: "POST", Path: "/pair",
		Body: map[string]string{"token": token, "origin": site}, Timeout: probeTimeout})
	return err
}

// leaderConn is the leader's tab as the hub sees it: each frame the hub
// sends becomes a POST /call to the leader, and its answer is delivered
// as the tab's reply.
type leaderConn struct {
	b *bridge
	l *leader
}

// leaderCallTimeout is the longest there is: this bridge's hub keeps the
// caller's own deadline.
const leaderCallTimeout = hub.MaxCallTimeout

func (c *leaderConn) Send(frame []byte) error {
	id, ok := gate.Int(gate.Get(frame, "id"))
	command, ok2 := gate.String(gate.Get(frame, "command"))
	if !ok || !ok2 {
		return errors.New("not a command frame")
	}
	ms := float64(leaderCallTimeout.Milliseconds())
	body := control.CallRequest{Command: command, Args: gate.Get(frame, "args"), TimeoutMs: &ms}
	go func() {
		// Whatever the leader answered, this goroutine answers the call:
		// a panic on its bytes is a bad_reply, not the bridge's end.
		defer func() {
			if recover() != nil {
				c.b.hub.Deliver(c, id, envelope.Own(codeBadReply, fmt.Sprintf("The bridge could not read the answer of the bridge on port %d that serves the tab, so it was not passed on.", c.l.sess.Port)))
			}
		}()
		req := client.Request{Method: "POST", Path: "/call", Body: body, Timeout: leaderCallTimeout + probeTimeout}
		if c.b.cfg.Voice && command == hub.VoiceCommand && c.b.hub.VoiceOwner() == os.Getpid() {
			// The voice channel's asks only: the leader makes this session
			// the one consumer (protocol.md §7.19).
			req.Listener, req.VoiceOwner = os.Getpid(), os.Getpid()
		}
		body, err := c.l.c.Do(c.l.ctx, req)
		var env envelope.Reply
		if err == nil {
			env, err = envelope.Decode(body) // the door, as for a tab's frame
			if err != nil {
				c.b.log.Warn(fmt.Sprintf("refused a reply from the bridge followed on port %d: it is not a valid JSON object", c.l.sess.Port))
				env = envelope.Own(codeBadReply, fmt.Sprintf("The bridge on port %d that serves the tab answered with something that is not a valid JSON object with each member named once (a raw control character in a string, a name given twice, or not JSON at all), so it was not passed on.", c.l.sess.Port))
			}
		} else {
			env = envelope.Own(hub.CodeDisconnected, fmt.Sprintf("The bridge on port %d that serves the tab did not answer: %v", c.l.sess.Port, err))
		}
		c.b.hub.Deliver(c, id, env)
	}()
	return nil
}

// codeBadReply is the error of a leader's reply the door refused, as it
// refuses a tab's frame: the leader is another process.
const codeBadReply = "bad_reply"

// Close does nothing: no tab can displace the leader's here, since a
// follower listens on nothing, and calls in flight end with following.
func (c *leaderConn) Close() {}

// Reachable: the follow loop detaches the leader's tab when it goes.
func (c *leaderConn) Reachable() bool { return true }
