// Package bridge runs the bridge process: it binds the port, writes the
// session file, serves the page side and the control plane on that port,
// runs the MCP session on stdin/stdout, and decides when to exit
// (protocol.md §2.1, §2.7, §2.8, §4.1).
package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/control"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/mcp"
	"github.com/stitchslop/stitchslop-bridge/internal/page"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/security/fileperm"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

// DefaultPorts are scanned in order (§2.1); the page tries the same four.
var DefaultPorts = []int{8787, 8788, 8789, 8790}

type ExitError struct {
	Code int
	Err  error
	Hint string
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Config is what the command line decided.
type Config struct {
	Origin    string        // normalised
	Ports     []int         // tried in order; nil: DefaultPorts
	ConfigDir string        // where session files live, and pairing.json unless PairingDir is set
	Idle      time.Duration // no tab ever attached and no MCP client for this long: exit (§2.7); 0 never
	AgentIdle time.Duration // standalone exit after this long without an agent; 0 never
	Takeover  bool          // a new tab displaces a live one instead of being refused busy
	Lazy      bool          // listen on nothing until the MCP face asks (wait_for_connection, pair)
	Voice     bool          // --voice-channel: the MCP session hears the tab's voice itself (protocol.md §7.19)
	// Demo is the demo's bridge: its pairings are the demo's alone
	// (pairing.Store.Demo; THREAT_MODEL.md T17), and it stops when its
	// stdin ends, the pipe of the demo that started it.
	Demo bool
	// PairingDir, when set, holds pairing.json, its lock and the spent-token
	// ledger instead of ConfigDir: the demo's throwaway folder (T17).
	PairingDir string
	Token      string // bootstrap token, from the environment
	Stdin      io.Reader
	Stdout     io.Writer
	Log        *slog.Logger
}

// Timings are the process's clocks; tests shorten them (see hooks.go).
type Timings struct {
	Page page.Timings
	Idle time.Duration // no tab ever attached and no MCP client: exit (§2.7; Config.Idle)
	Call time.Duration // a page call unanswered this long fails (60 s)
	// Squat is how often a serving bridge looks again for other users'
	// listeners on the ports the tab dials (SquatCheckEvery).
	Squat time.Duration
}

// DefaultTimings are the production values.
var DefaultTimings = Timings{
	Page:  page.DefaultTimings,
	Call:  60 * time.Second,
	Squat: SquatCheckEvery,
}

// softMemoryLimit makes the bridge, idle between occasional large replies,
// collect garbage before the heap doubles. It is soft: a reply up to
// limits.PageFrame still works. GOMEMLIMIT overrides it.
const softMemoryLimit = 32 << 20

// Run runs the bridge until it has a reason to exit; nil is exit code 0.
func Run(ctx context.Context, cfg Config) error {
	t := DefaultTimings
	t.Idle = cfg.Idle
	testTimings(cfg.Log, &t)
	log := cfg.Log
	defer reportOnSignal(log)()
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	warn := func(msg string) { log.Warn(msg) }

	if err := fileperm.EnsureDir(cfg.ConfigDir, warn); err != nil {
		return &ExitError{Code: exitcode.NoCredential, Err: err}
	}
	pairingDir := cfg.ConfigDir
	if cfg.PairingDir != "" {
		pairingDir = cfg.PairingDir
		if err := fileperm.EnsureDir(pairingDir, warn); err != nil {
			return &ExitError{Code: exitcode.NoCredential, Err: err}
		}
	}
	store := pairing.New(pairingDir, log)
	store.Demo = cfg.Demo
	if err := fileperm.CheckFile(store.Path(), warn); err != nil {
		return &ExitError{Code: exitcode.NoCredential, Err: err}
	}
	if err := store.Check(); err != nil {
		return &ExitError{Code: exitcode.NoCredential, Err: err}
	}
	paired, err := store.Paired(cfg.Origin)
	if err != nil {
		return &ExitError{Code: exitcode.NoCredential, Err: err}
	}
	if cfg.Token != "" {
		tok, ok := sites.CleanToken(cfg.Token)
		if !ok {
			what := "does not hold a Stitch Slop token (tok_ and 6 to 64 lower-case hex digits)"
			if strings.ContainsAny(cfg.Token, "<> ") {
				what = "holds a placeholder, not a token"
			}
			return &ExitError{Code: exitcode.Usage, Err: errors.New("STITCHSLOP_TOKEN " + what + "; nothing was armed"),
				Hint: "copy the token (tok_…) from the Stitch Slop agent panel into STITCHSLOP_TOKEN, or start with --lazy and give it to the pair tool"}
		}
		cfg.Token = tok
	}
	if cfg.Token != "" {
		spent, err := store.Spent(cfg.Token)
		switch {
		case err != nil:
			// Fail closed: a token that cannot be checked is not offered.
			log.Error("the token in STITCHSLOP_TOKEN cannot be checked against the spent tokens, so it will not be accepted: " + err.Error())
			cfg.Token = ""
		case spent:
			log.Warn("the token in STITCHSLOP_TOKEN was already redeemed; tokens work once")
			cfg.Token = ""
		}
	}
	if cfg.Token == "" && !paired && !cfg.Lazy {
		return &ExitError{Code: exitcode.NoCredential,
			Err:  fmt.Errorf("no way to authenticate a tab: no unspent token in STITCHSLOP_TOKEN and no stored pairing for %s in %s", cfg.Origin, store.Path()),
			Hint: "copy the token from the Stitch Slop agent panel and run again with STITCHSLOP_TOKEN=<token> in the environment"}
	}

	b := &bridge{cfg: cfg, t: t, log: log, store: store, hub: hub.New(t.Call), sites: sites.New(cfg.Origin, cfg.Token),
		tried: &attempts.Log{}, serveErr: make(chan error, 1)}
	// Agent activity is a timestamp, not a wake-up: the agent-idle timer
	// reads it when it fires, so an MCP line or a control-plane request
	// costs one atomic store.
	b.touch()
	defer b.close()
	h := b.hub
	if cfg.Lazy {
		log.Info(fmt.Sprintf("--lazy: listening on nothing until an agent calls wait_for_connection or pair (site %s, pid %d)", cfg.Origin, os.Getpid()))
	} else {
		// Not ctx: binding does not block, and a signal that comes during
		// it is the main loop's to report, as every other one is.
		if _, err := b.Open(context.Background(), true, ""); err != nil {
			return err
		}
		if !paired {
			log.Info("waiting for a tab to redeem the one-time token")
		}
	}
	initialized := make(chan struct{})
	mcpSrv := &mcp.Server{Attempts: b.tried, PairedOrigins: b.pairedOrigins, Hub: h, Sites: b.sites, Pairing: store,
		Open: b.openForAgent, Relay: b.relayToken, Where: b.Where, ListenCommand: b.listenCommand, Log: log, Activity: b.touch,
		Host: b.hostStatus, OtherBridges: b.otherBridges, VoiceChannel: cfg.Voice,
		Initialized: func() { close(initialized) }}
	stdinDone := make(chan bool, 1)
	mcpCtx, cancelMCP := context.WithCancel(ctx)
	mcpStopped := make(chan struct{})
	defer func() {
		// A session still running (stdin open) ends its subscriptions
		// gracefully before the process exits.
		cancelMCP()
		<-mcpStopped
	}()
	go func() {
		defer close(mcpStopped)
		init, err := mcpSrv.Serve(mcpCtx, cfg.Stdin, cfg.Stdout)
		if err != nil {
			log.Warn("reading stdin failed", "err", err.Error())
		}
		stdinDone <- init
	}()

	// §2.7: a bridge no tab ever reached and no client owns exits. A lazy
	// one listens on nothing until an agent asks: it has no idle timer.
	idle := time.NewTimer(t.Idle)
	defer idle.Stop()
	if t.Idle == 0 || cfg.Lazy {
		idle.Stop()
	}
	attached := h.Attached()
	// §2.8: standalone, no agent for AgentIdle: exit even with a tab attached.
	var agentIdle <-chan time.Time
	var agentTimer *time.Timer
	if cfg.AgentIdle > 0 {
		agentTimer = time.NewTimer(cfg.AgentIdle)
		defer agentTimer.Stop()
		agentIdle = agentTimer.C
	}
	for {
		select {
		case <-ctx.Done():
			// The cause says which signal, or that stdout went away.
			why := "interrupted"
			if c := context.Cause(ctx); c != nil && c != context.Canceled {
				why = c.Error()
			}
			log.Info("stopping: " + why)
			return nil
		case err := <-b.serveErr:
			return &ExitError{Code: exitcode.CannotBind, Err: fmt.Errorf("serving 127.0.0.1:%d: %w", b.Port(), err)}
		case <-attached:
			attached = nil
			idle.Stop()
		case <-initialized:
			initialized = nil
			idle.Stop()
			if agentTimer != nil {
				agentTimer.Stop()
				agentIdle = nil
			}
		case init := <-stdinDone:
			if init {
				log.Info("stopping: the MCP client closed stdin (its session ended)")
				return nil
			}
			// A demo's bridge: its stdin is the demo's pipe, which ends
			// when the demo does, however it ended.
			if cfg.Demo {
				log.Info("stopping: the demo that started this bridge is gone (stdin ended)")
				return nil
			}
			// stdin ended before initialize: started in the background
			// (stdin on /dev/null); keep running standalone, unless lazy:
			// then nothing can ever ask it to listen.
			if cfg.Lazy {
				return &ExitError{Code: exitcode.NoCredential, Err: errors.New("--lazy waits for an MCP client to ask it to listen, and stdin ended before any client started a session"),
					Hint: "--lazy is for an agent's MCP configuration; to run the bridge from a shell, leave --lazy out"}
			}
		case <-idle.C:
			if !h.State().EverAttached {
				log.Info(fmt.Sprintf("stopping: no Stitch Slop tab connected within %v; start the bridge again when the tab is open", t.Idle))
				return nil
			}
		case <-agentIdle:
			if since := time.Since(time.Unix(0, b.lastActivity.Load())); since < cfg.AgentIdle {
				agentTimer.Reset(cfg.AgentIdle - since)
				continue
			}
			log.Info(fmt.Sprintf("stopping: no agent has used this bridge for %v (no control-plane request, no MCP message). The pairing for %s is kept, so starting again needs no token.", cfg.AgentIdle, cfg.Origin))
			return nil
		}
	}
}

// front routes what security/origin.Guard let through, for every request
// whatever its method or target: WebSocket upgrades to the page side, the
// rest to the control plane; each applies its own Origin rule.
type front struct {
	page    *page.Server
	control *control.Server
}

// guarded is front behind the one Host guard and the one set of security
// headers; a refused Host gets a bridge envelope, as every control-plane
// refusal does.
func guarded(f *front) http.Handler {
	return origin.Guard{Port: f.control.Port, Next: f, Refuse: func(w http.ResponseWriter, r *http.Request) {
		f.control.Log.Warn("refused a request (403): "+origin.ReasonHost, "host", origin.Clip(r.Host), "target", origin.Clip(r.RequestURI))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write(append(envelope.Bridge("forbidden", origin.ReasonHost), '\n'))
	}}
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if websocket.IsWebSocketUpgrade(r) {
		f.page.ServeHTTP(w, r)
		return
	}
	f.control.ServeHTTP(w, r)
}
