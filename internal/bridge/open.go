package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/control"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/mcp"
	"github.com/stitchslop/stitchslop-bridge/internal/page"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/paths"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/credential"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
	"github.com/stitchslop/stitchslop-bridge/security/throttle"
)

// bridge is one running bridge: what every face shares, and its port once
// it listens. It listens at start, or with --lazy when the MCP face first
// asks (Open).
type bridge struct {
	cfg      Config
	t        Timings
	log      *slog.Logger
	store    *pairing.Store
	hub      *hub.Hub
	sites    *sites.Sites
	tried    *attempts.Log
	serveErr chan error // the HTTP server stopped on its own

	lastActivity atomic.Int64 // unix nanoseconds of the last agent request

	mu      sync.Mutex // guards the fields below; held for memory only
	opening *opening   // the attempt in progress or done; nil before the first
	leader  *leader    // the bridge followed (follow.go); nil when not following
	inherit int        // the port of a leader that went away, for the next attempt
	closed  bool
	srv     *http.Server
	page    *page.Server // the page side of srv, told to close its tabs at exit
	sess    session.File // the session file as written; Port 0 while not listening
	// stopWatch ends the look for squatters while serving (peer.go).
	stopWatch chan struct{}

	squats squats // other users' listeners on the ports the tab dials (peer.go)
}

// opening is one attempt to listen or follow; done is closed when it ends.
type opening struct {
	done chan struct{}
	err  error
}

// touch records agent activity (§2.8).
func (b *bridge) touch() { b.lastActivity.Store(time.Now().UnixNano()) }

// Port is the port the bridge listens on, 0 while it listens on nothing.
func (b *bridge) Port() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sess.Port
}

// Where says how the MCP face reaches a tab: "serving" on the bridge's own
// port, "follower" through the leader's on its port, or "idle" (port 0)
// while a lazy bridge has been asked for nothing yet.
func (b *bridge) Where() (mode string, port int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.sess.Port != 0:
		return "serving", b.sess.Port
	case b.leader != nil:
		return "follower", b.leader.sess.Port
	}
	return "idle", 0
}

// Open makes the bridge reach a tab, unless it already does, and returns
// the port the tab dials: a lazy bridge follows a live bridge serving the
// same site (unless own), else it binds. One attempt runs at a time on its
// own goroutine, so no lock is held across it and parallel callers never
// bind twice. site, when not "", is the site an agent named; it becomes
// the one this bridge is for (sites.Choose).
func (b *bridge) Open(ctx context.Context, own bool, site string) (int, error) {
	for {
		b.mu.Lock()
		switch {
		case b.sess.Port != 0:
			p := b.sess.Port
			b.mu.Unlock()
			if site != "" && site != b.sites.Served() && !b.hub.State().Connected {
				b.sites.Choose(site)
				b.switched(site)
			}
			return p, nil
		case b.leader != nil && !own && (site == "" || b.leader.sess.Origin == site):
			p := b.leader.sess.Port
			b.mu.Unlock()
			return p, nil
		}
		o := b.opening
		mine := o == nil || ended(o)
		if mine {
			o = &opening{done: make(chan struct{})}
			b.opening = o
			go func() {
				o.err = b.attempt(own, site)
				close(o.done)
			}()
		}
		b.mu.Unlock()
		select {
		case <-o.done:
			if mine && o.err != nil {
				return 0, o.err
			}
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func ended(o *opening) bool {
	select {
	case <-o.done:
		return true
	default:
		return false
	}
}

// attempt follows a leader or binds; Open runs one at a time. A port
// inherited from a leader that went away is tried first.
func (b *bridge) attempt(own bool, site string) error {
	b.mu.Lock()
	listening, inherit := b.sess.Port != 0, b.inherit
	var following string
	if b.leader != nil {
		following = b.leader.sess.Origin
	}
	b.inherit = 0
	b.mu.Unlock()
	if listening {
		return nil
	}
	if site != "" && site != b.sites.Served() {
		b.unfollow() // it follows a bridge of the site served until now
		following = ""
		b.sites.Choose(site)
	}
	if inherit != 0 {
		if _, err := b.listen([]int{inherit}); err == nil {
			return nil
		}
	}
	if !own && b.cfg.Lazy {
		if following != "" && following == b.sites.Served() {
			return nil
		}
		if l, ok := b.findLeader(); ok {
			b.unfollow()
			b.follow(l)
			return nil
		}
	}
	b.unfollow()
	_, err := b.listen(b.cfg.Ports)
	return err
}

// openForAgent is Open for the MCP face: a failure carries its hint.
func (b *bridge) openForAgent(ctx context.Context, own bool, site string) (int, error) {
	port, err := b.Open(ctx, own, site)
	var ee *ExitError
	if errors.As(err, &ee) && ee.Hint != "" {
		err = fmt.Errorf("%w. %s", err, ee.Hint)
	}
	return port, err
}

// listen binds the first free of ports (nil: the default four), writes the
// session file and starts serving the page side and the control plane.
func (b *bridge) listen(ports []int) (int, error) {
	cfg, log := b.cfg, b.log
	ours := ownBridges(cfg.ConfigDir)
	ln, port, skipped, err := listen(ports, ours, log)
	if err != nil {
		hint := busyHint(ports, ours, errors.As(err, new(*squatError)))
		return 0, &ExitError{Code: exitcode.CannotBind, Err: err, Hint: hint}
	}

	key, err := credential.New()
	if err != nil {
		ln.Close()
		return 0, &ExitError{Code: exitcode.NoCredential, Err: err}
	}
	sess := session.File{
		Port: port, Key: key, Origin: b.sites.Served(), PID: os.Getpid(),
		Protocol: version.Protocol, StartedAt: session.Timestamp(time.Now()),
	}
	if err := session.Write(cfg.ConfigDir, sess); err != nil {
		ln.Close()
		return 0, &ExitError{Code: exitcode.NoCredential, Err: err}
	}
	pageSrv := &page.Server{Attempts: b.tried, Port: port, Hub: b.hub, Pairing: b.store, Sites: b.sites, Switched: b.switched,
		Log: log, Timings: b.t.Page, Guesses: throttle.New(), Reserved: mcp.ReservedWords, Takeover: cfg.Takeover}
	ctlSrv := &control.Server{Attempts: b.tried, PairedOrigins: b.pairedOrigins, Key: key, Port: port, Sites: b.sites, Pairing: b.store,
		Hub: b.hub, Log: log, Activity: b.touch}
	srv := &http.Server{
		Handler:           guarded(&front{page: pageSrv, control: ctlSrv}),
		ReadHeaderTimeout: limits.HTTPReadHeaderTimeout,
		IdleTimeout:       limits.HTTPIdleTimeout,
		MaxHeaderBytes:    limits.HTTPMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// net/http answers "OPTIONS *" itself, 200 with any Host, before
		// any handler runs; every request must meet front's Host check.
		DisableGeneralOptionsHandler: true,
	}
	b.mu.Lock()
	if b.closed { // the bridge stopped while this bind was under way
		b.mu.Unlock()
		ln.Close()
		b.removeSession(sess)
		return 0, errors.New("the bridge is stopping")
	}
	b.srv, b.page, b.sess = srv, pageSrv, sess
	stop := make(chan struct{})
	b.stopWatch = stop
	b.mu.Unlock()
	go func() { b.serveErr <- srv.Serve(ln) }()

	log.Info(fmt.Sprintf("listening on 127.0.0.1:%d for %s (pid %d)", port, sess.Origin, sess.PID))
	// Squatters on the other ports the tab dials, now and while serving.
	b.seedSquatters(skipped, port)
	scan := scanList(cfg.Ports, port)
	if b.lookForSquatters(scan, port) {
		go b.watchSquatters(scan, port, stop)
	}
	log.Info("session file written", "path", session.Path(cfg.ConfigDir, port))
	return port, nil
}

// switched rewrites the session file for the site the bridge serves now,
// and says, on stderr and to the agent, when that is not the site it was
// started for (THREAT_MODEL T17).
func (b *bridge) switched(site string) {
	b.mu.Lock()
	b.sess.Origin = site
	sess := b.sess
	b.mu.Unlock()
	if n := strings.TrimSpace(b.sites.SwitchNotice()); n != "" {
		b.log.Warn(strings.ToLower(n[:1]) + n[1:])
	}
	b.publish()
	if err := session.Write(b.cfg.ConfigDir, sess); err != nil {
		b.log.Warn("could not rewrite the session file for the site now served", "err", err.Error())
	}
}

// close stops serving, tells an attached tab the bridge is going away
// (a close frame, 1001, rather than a dropped socket), and removes the
// session file, if it is still ours.
func (b *bridge) close() {
	b.unfollow()
	b.mu.Lock()
	b.closed = true
	srv, pg, sess := b.srv, b.page, b.sess
	if b.stopWatch != nil {
		close(b.stopWatch)
		b.stopWatch = nil
	}
	b.mu.Unlock()
	if srv != nil {
		srv.Close() // no new connections; the tab's socket is hijacked, so it stays open
		b.removeSession(sess)
		pg.Shutdown()
	}
}

func (b *bridge) removeSession(sess session.File) {
	if _, err := session.RemoveIfOurs(b.cfg.ConfigDir, sess.Port, sess.PID); err != nil {
		b.log.Warn("could not remove the session file", "err", err.Error())
	}
}

// listenCommand is the listen verb for the bridge on port, as a quoted
// shell command with --owner this process, so the listener ends with this
// agent session's bridge even when it follows another (protocol.md §7.6).
func (b *bridge) listenCommand(port int) string {
	cmd := shellQuote(listenProgram())
	if def, err := paths.DefaultConfigDir(); err != nil || filepath.Clean(def) != filepath.Clean(b.cfg.ConfigDir) {
		cmd += " --config-dir " + shellQuote(b.cfg.ConfigDir)
	}
	return cmd + " --port " + strconv.Itoa(port) + " listen --owner " + strconv.Itoa(os.Getpid())
}

// listenProgram is stitchslop's absolute path: beside this binary, where
// a release installs both; else, when none is there (a go run or go build
// of the bridge alone), the one on PATH; else the path beside all the same,
// which says where it belongs.
func listenProgram() string {
	name := "stitchslop"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe, err := os.Executable()
	if err != nil {
		return name
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	beside := filepath.Join(filepath.Dir(exe), name)
	if _, err := os.Stat(beside); err != nil {
		if p, err := exec.LookPath(name); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
		}
	}
	return beside
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (b *bridge) pairedOrigins() []string {
	o, err := b.store.PairedOrigins()
	if err != nil {
		b.log.Warn("cannot list the paired sites", "err", err.Error())
	}
	return o
}
