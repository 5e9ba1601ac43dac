// Package demo runs `stitchslop demo`: a bridge (the stitchslop-bridge
// binary, started as a child with --demo; start.go), and on another
// loopback port an embedded stand-in Stitch Slop tab (static/, plain
// HTML, JS and CSS) whose origin only this bridge admits. The tab dials
// the bridge's port first, then the rest of the bridge's list (8787..8790
// unless --port says otherwise), and pairs like the real app, with a
// one-time token the demo makes for each load of the page and hands to it
// over a same-origin request (/demo/token, answered once the bridge
// listens), never in a URL or on a command line: any browser the person
// opens the page in attaches while the demo runs. The page's
// Content-Security-Policy lets it open WebSockets to exactly those ports.
// The page server listens through peercred.Listen, as the bridge does, so
// another user's process cannot fetch a token. The demo's bridge keeps its
// pairings in a throwaway folder that nothing else reads and that goes
// with the demo: the config dir's pairing.json is never written or
// trimmed, whether the demo stops cleanly or is killed (THREAT_MODEL.md
// T17). Its session file is in the config dir, as every bridge's is, so
// the shell verbs and an agent's --lazy bridge find it.
package demo

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/bridge"
	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/control"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/setup"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
)

//go:embed static
var static embed.FS

// Options are what the command line decided.
type Options struct {
	// Bridge is the stitchslop-bridge binary the demo starts, an absolute
	// path: the same one its hints name for the shell verbs and an agent.
	Bridge    string
	ConfigDir string
	// DefaultConfigDir says ConfigDir is the default (~/.stitchslop), so
	// the hints leave --config-dir out; when it is false they name it.
	DefaultConfigDir bool
	Ports            []int // the bridge's; nil: 8787..8790
	Log              *slog.Logger
	// Stderr gets the bridge's own lines, as they come (nil: os.Stderr).
	Stderr io.Writer
	// Ready, when set, is called with the page's URL and the bridge's
	// port once both listen (tests wait on it).
	Ready func(pageURL string, bridgePort int)
}

// PagePort is where the demo serves its page when it can. A fixed port
// gives the page a fixed origin, so an agent registered with the line the
// demo prints finds the demo again on the next run. It is none of the
// four ports the tab dials. A test hook.
var PagePort = 8780

// tokenRetryAfter is what /demo/token asks the page to wait, in seconds,
// while the bridge is not listening yet (the page retries sooner on its
// own; the header is for anything else that reads it).
const tokenRetryAfter = "1"

// csp allows the page its own files, data: images (its renders) and
// WebSockets to exactly the ports it may dial, nothing else: no inline
// script or style, no eval, no other site.
func csp(ports []int) string {
	var ws strings.Builder
	for _, p := range ports {
		ws.WriteString(" ws://127.0.0.1:" + strconv.Itoa(p))
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'" + ws.String() + "; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// Run serves the demo until ctx ends.
func Run(ctx context.Context, o Options) error {
	log := o.Log
	// A config dir the demo creates is the demo's to remove again.
	_, err := os.Lstat(o.ConfigDir)
	fresh := errors.Is(err, fs.ErrNotExist)
	// The demo's pairings, apart from every other bridge's: a folder of
	// its own, 0700, removed when the demo stops. A demo killed with
	// SIGKILL leaves it in the temporary directory, where no bridge looks.
	pairDir, err := os.MkdirTemp("", "stitchslop-demo-")
	if err != nil {
		return fmt.Errorf("demo: cannot make a folder for its pairing: %w", err)
	}
	defer func() {
		if err := os.RemoveAll(pairDir); err != nil {
			log.Warn("could not remove the demo's pairing folder " + pairDir + ": " + err.Error())
		}
	}()
	// The page server is peer-checked like the bridge (T17): another
	// user's process that asks for /demo/token is closed out unread.
	want := PagePort
	if p := hookedPagePort(); p > 0 {
		want = p
	}
	ln, err := peercred.Listen("127.0.0.1:"+strconv.Itoa(want), log)
	if err != nil {
		// Taken (another demo, say): any free port does, but the page's
		// origin, and with it the MCP line printed below, is then this
		// run's alone.
		log.Warn(fmt.Sprintf("port %d is taken; the page gets another port, and the agent line below holds for this run only", want))
		if ln, err = peercred.Listen("127.0.0.1:0", log); err != nil {
			return fmt.Errorf("demo: cannot listen for the page: %w", err)
		}
	}
	pagePort := ln.Addr().(*net.TCPAddr).Port
	site := "http://127.0.0.1:" + strconv.Itoa(pagePort)
	// The bridge starts with one token armed (it needs a way in for a
	// tab); the first load of the page gets it, and each later load one
	// the demo arms then (tokens).
	first, err := newToken()
	if err != nil {
		ln.Close()
		return err
	}
	files, _ := fs.Sub(static, "static")
	ports := o.Ports
	if len(ports) == 0 {
		ports = bridge.DefaultPorts
	}
	st := &state{files: files, pagePort: pagePort, ports: ports, tokens: &tokens{first: first}}
	srv := &http.Server{
		Handler:           st.guarded(),
		ReadHeaderTimeout: limits.HTTPReadHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go srv.Serve(ln)
	defer srv.Close()

	runErr := runBridge(ctx, o, site, first, pairDir, func(port, pid int) {
		if err := st.tokens.connect(o.ConfigDir, port, pid, site); err != nil {
			log.Warn("the demo cannot arm a token for each load of its page (only the first load attaches): " + err.Error())
		}
		st.listening(port)
		tell(log, site, port, o)
		ready(o, site, port)
	})
	// The bridge removed its session file; the pairing folder goes in the
	// deferred RemoveAll.
	if fresh {
		removeDir(o.ConfigDir, log)
	}
	return runErr
}

// removeDir removes the config dir the demo created, when the bridge has
// left it empty: another bridge may have started on it since (an agent
// registered with the demo's line), and what is not the demo's is never
// removed.
func removeDir(dir string, log *slog.Logger) {
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Info("the demo created " + dir + "; it now holds more than the demo wrote, so it is kept")
	}
}

func ready(o Options, site string, port int) {
	if o.Ready != nil {
		o.Ready(site+"/", port)
	}
}

// tell says on stderr what to open and what to try.
func tell(log *slog.Logger, site string, port int, o Options) {
	exe := o.Bridge
	dir := ""
	if !o.DefaultConfigDir && o.ConfigDir != "" {
		dir = " --config-dir " + setup.QuotePosix(o.ConfigDir)
	}
	at := dir + " --port " + strconv.Itoa(port)
	bin := setup.QuotePosix(exe)
	ui.Hint(log, "open "+site+"/ in a browser: a stand-in Stitch Slop tab that attaches to this bridge on its own")
	// Under go run, exe is a copy in the build cache (or a work directory
	// go run removes): every line names the binary setup.LastingBinary
	// builds instead, after the command that builds it.
	cwd, _ := os.Getwd()
	if l, ok := setup.LastingBinary(exe, cwd); ok {
		if build, err := setup.Line(setup.Posix, l.Build...); err == nil {
			ui.Hint(log, "first build a binary that stays (this one is go run's, in the build cache): "+build)
			bin = setup.QuotePosix(l.Path)
		}
	}
	ui.Hint(log, "then, from another terminal:")
	for _, c := range []string{
		"call scene.describe",
		`call shape.move '{"id":"s2","dx":60,"dy":0}'`,
		"call scene.render --out demo.png",
		"call design.export --save .",
		"status",
	} {
		ui.Hint(log, "  "+bin+at+" "+c)
	}
	ui.Hint(log, "or from an agent, in a new session: claude mcp add stitchslop-demo -- "+bin+" --lazy --origin "+site+dir)
	ui.Hint(log, "the page attaches from any browser you open it in while the demo runs (each load pairs with a token of its own)")
	ui.Hint(log, "Ctrl-C stops the demo; its pairings were kept in a folder of their own, which goes with it")
}

// armTimeout bounds arming one load's token at the demo's own bridge,
// which answers POST /pair from memory.
const armTimeout = 5 * time.Second

// tokens hands each load of the page a one-time token of its own, so that
// whichever browser loaded the page first (a link preview, a headless
// screenshot) locks no other out: the first load gets the token the bridge
// started with, each later one a fresh token armed then through the
// bridge's control plane (POST /pair), the way a shell arms one. A site
// keeps its newest sites.MaxTokens armed; a load whose token was pushed out
// before it was redeemed is refused once and asks again (app.js).
type tokens struct {
	mu    sync.Mutex
	first string                                        // "" once handed out
	arm   func(ctx context.Context, token string) error // nil until connect
}

// connect finds the demo's bridge, process pid, on port by its session
// file in dir, as the shell verbs do, and arms later loads' tokens there
// for site.
func (t *tokens) connect(dir string, port, pid int, site string) error {
	sess, err := session.Read(session.Path(dir, port))
	if err != nil {
		return err
	}
	if sess.PID != pid {
		return fmt.Errorf("the session file for port %d is another process's", port)
	}
	c := client.New(sess)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.arm = func(ctx context.Context, token string) error {
		_, err := c.Do(ctx, client.Request{Method: http.MethodPost, Path: "/pair",
			Body: control.PairRequest{Token: token, Origin: site}, Timeout: armTimeout})
		return err
	}
	return nil
}

// next is the token for one load of the page.
func (t *tokens) next(ctx context.Context) (string, error) {
	t.mu.Lock()
	tok, arm := t.first, t.arm
	t.first = ""
	t.mu.Unlock()
	if tok != "" {
		return tok, nil
	}
	if arm == nil {
		return "", errors.New("the demo cannot arm another token")
	}
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	if err := arm(ctx, tok); err != nil {
		return "", err
	}
	return tok, nil
}

// state is the page server: its files, the tokens it hands each load, and
// the port the bridge listens on once it does.
type state struct {
	files      fs.FS
	pagePort   int
	tokens     *tokens
	ports      []int        // the bridge's port list, which the page may dial
	bridgePort atomic.Int64 // 0 until the bridge listens
}

func (s *state) listening(port int) { s.bridgePort.Store(int64(port)) }

// dialOrder is the ports the page dials, in order: the bridge's own first
// (found at once even when --port pins an unusual one), then the rest of
// its list, as the real tab walks 8787..8790.
func (s *state) dialOrder(bridgePort int) []int {
	out := []int{bridgePort}
	for _, p := range s.ports {
		if p != bridgePort {
			out = append(out, p)
		}
	}
	return out
}

// guarded is the page server's handler: s behind the one Host guard and the
// one set of security headers, with the page's own Content-Security-Policy.
// The guard serves only requests that name the server 127.0.0.1 (Literal):
// the bridge admits the page's origin as 127.0.0.1 only, so the same page
// opened as localhost, which would be refused at the upgrade, is sent
// there; a request that names another host (a rebinding page) is refused.
func (s *state) guarded() http.Handler {
	return origin.Guard{Port: s.pagePort, CSP: csp(s.ports), Literal: true, Next: s}
}

// ServeHTTP serves the page's files and its token, behind
// security/origin.Guard (guarded).
func (s *state) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/demo/token":
		s.serveToken(w, r)
	case "/", "/index.html", "/app.js", "/style.css":
		http.FileServer(http.FS(s.files)).ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// serveToken answers the page's own scripts with a one-time token of this
// load's own (tokens) and the ports to dial, once the bridge listens. A
// fetch from another site says so in Sec-Fetch-Site and is refused before
// a token is made (CORS would keep the answer from it anyway); a program
// of the same user sends no Sec-Fetch-Site and may get one, as it may
// drive the bridge through its session file (THREAT_MODEL.md T17).
func (s *state) serveToken(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if v := r.Header.Get("Sec-Fetch-Site"); v != "" && v != "same-origin" {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	h.Set("Content-Type", "application/json")
	port := int(s.bridgePort.Load())
	if port == 0 {
		h.Set("Retry-After", tokenRetryAfter)
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]string{"error": "starting", "message": "the demo's bridge is not listening yet"})
		return
	}
	tok, err := s.tokens.next(r.Context())
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]string{"error": "no_token", "message": "the demo could not arm a token for this page; see the demo's terminal"})
		return
	}
	h.Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(struct {
		Token string `json:"token"`
		Port  int    `json:"port"`
		Ports []int  `json:"ports"`
	}{tok, port, s.dialOrder(port)})
}

// newToken makes a one-time token for the demo's page.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", errors.New("demo: no randomness for a token: " + err.Error())
	}
	return "tok_" + hex.EncodeToString(b), nil
}
