package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/control"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/mcp"
	"github.com/stitchslop/stitchslop-bridge/internal/page"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/credential"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
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
	opening *opening   // the bind in progress or done; nil before the first
	closed  bool
	srv     *http.Server
	sess    session.File // the session file as written; Port 0 while not listening
}

// opening is one attempt to listen; done is closed when it ends.
type opening struct {
	done chan struct{}
	port int
	err  error
}

// touch records agent activity (protocol.md §2.8).
func (b *bridge) touch() { b.lastActivity.Store(time.Now().UnixNano()) }

// Port is the port the bridge listens on, 0 while it listens on nothing.
func (b *bridge) Port() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sess.Port
}

// Open makes the bridge listen, unless it already does, and returns its
// port. Callers that come while a bind is under way wait for that one: the
// bridge never binds twice. After a failed bind the next call tries again.
// The bind runs on its own goroutine, so no lock is held across it.
func (b *bridge) Open(ctx context.Context) (int, error) {
	b.mu.Lock()
	o := b.opening
	if o == nil || failed(o) {
		o = &opening{done: make(chan struct{})}
		b.opening = o
		go func() {
			o.port, o.err = b.listen()
			close(o.done)
		}()
	}
	b.mu.Unlock()
	select {
	case <-o.done:
		return o.port, o.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func failed(o *opening) bool {
	select {
	case <-o.done:
		return o.err != nil
	default:
		return false
	}
}

// openForAgent is Open for the MCP face: a failure carries its hint.
func (b *bridge) openForAgent(ctx context.Context) (int, error) {
	port, err := b.Open(ctx)
	var ee *ExitError
	if errors.As(err, &ee) && ee.Hint != "" {
		err = fmt.Errorf("%w. %s", err, ee.Hint)
	}
	return port, err
}

// listen binds the port, writes the session file and starts serving the
// page side and the control plane on it.
func (b *bridge) listen() (int, error) {
	cfg, log := b.cfg, b.log
	ln, port, err := listen(cfg.Ports)
	var squat *squatError
	switch {
	case errors.As(err, &squat):
		return 0, &ExitError{Code: ExitCannotBind, Err: err,
			Hint: "stop that process, or ask whoever runs it to; `lsof -nP -iTCP:8787-8790 -sTCP:LISTEN` (as root) names it. Then start the bridge again"}
	case err != nil:
		return 0, &ExitError{Code: ExitCannotBind, Err: err,
			Hint: "another bridge may still be running; `lsof -nP -iTCP:8787-8790 -sTCP:LISTEN` lists what holds the ports"}
	}
	ln = &ownUserOnly{Listener: ln, log: log, sameUser: peercred.SameUser}

	key, err := credential.New()
	if err != nil {
		ln.Close()
		return 0, &ExitError{Code: ExitNoCredential, Err: err}
	}
	sess := session.File{
		Port: port, Key: key, Origin: b.sites.Served(), PID: os.Getpid(),
		Protocol: version.Protocol, StartedAt: session.Timestamp(time.Now()),
	}
	if err := session.Write(cfg.ConfigDir, sess); err != nil {
		ln.Close()
		return 0, &ExitError{Code: ExitNoCredential, Err: err}
	}
	pageSrv := &page.Server{Attempts: b.tried, Port: port, Hub: b.hub, Pairing: b.store, Sites: b.sites, Switched: b.switched,
		Log: log, Timings: b.t.Page, Guesses: throttle.New(), Reserved: mcp.ReservedTools, Takeover: cfg.Takeover}
	ctlSrv := &control.Server{Attempts: b.tried, PairedOrigins: b.pairedOrigins, Key: key, Port: port, Sites: b.sites, Pairing: b.store,
		Hub: b.hub, Log: log, Activity: b.touch}
	srv := &http.Server{
		Handler:           &front{page: pageSrv, control: ctlSrv},
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
	b.srv, b.sess = srv, sess
	b.mu.Unlock()
	go func() { b.serveErr <- srv.Serve(ln) }()

	log.Info(fmt.Sprintf("listening on 127.0.0.1:%d for %s (pid %d)", port, sess.Origin, sess.PID))
	log.Info("session file written", "path", session.Path(cfg.ConfigDir, port))
	return port, nil
}

// switched rewrites the session file for the site the bridge serves now.
func (b *bridge) switched(site string) {
	b.mu.Lock()
	b.sess.Origin = site
	sess := b.sess
	b.mu.Unlock()
	if err := session.Write(b.cfg.ConfigDir, sess); err != nil {
		b.log.Warn("could not rewrite the session file for the site now served", "err", err.Error())
	}
}

// close stops serving and removes the session file, if it is still ours.
func (b *bridge) close() {
	b.mu.Lock()
	b.closed = true
	srv, sess := b.srv, b.sess
	b.mu.Unlock()
	if srv != nil {
		srv.Close()
		b.removeSession(sess)
	}
}

func (b *bridge) removeSession(sess session.File) {
	if _, err := session.RemoveIfOurs(b.cfg.ConfigDir, sess.Port, sess.PID); err != nil {
		b.log.Warn("could not remove the session file", "err", err.Error())
	}
}

// pairedOrigins lists the sites with a stored pairing.
func (b *bridge) pairedOrigins() []string {
	o, err := b.store.PairedOrigins()
	if err != nil {
		b.log.Warn("cannot list the paired sites", "err", err.Error())
	}
	return o
}
