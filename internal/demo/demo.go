// Package demo runs `stitchslop demo`: a bridge started as a child with
// --demo (start.go), and an embedded stand-in Stitch Slop tab (static/)
// served on a loopback port the OS picks each run, whose origin only this
// bridge admits. Each load of the page gets a one-time token of its own
// over a same-origin request, never in a URL or on a command line, so any
// browser the person opens attaches while the demo runs. The page server
// listens through peercred.Listen, so another user's process cannot fetch
// a token. The demo's bridge keeps its pairings in a folder of their own
// that goes with the demo, so the config dir's pairing.json is never
// touched (THREAT_MODEL.md T17).
package demo

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha512"
	"embed"
	"encoding/base64"
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
	"path/filepath"
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
	"github.com/stitchslop/stitchslop-bridge/security/fileperm"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
	"github.com/stitchslop/stitchslop-bridge/security/throttle"
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

// tokenRetryAfter is what /demo/token asks the page to wait, in seconds,
// while the bridge is not listening yet.
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
	// their own inside the checked config dir, removed when the demo stops
	// (pairingFolder).
	pairDir, err := pairingFolder(o.ConfigDir, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := os.RemoveAll(pairDir); err != nil {
			log.Warn("could not remove the demo's pairing folder " + pairDir + ": " + err.Error())
		}
		// The bridge removed its session file by now.
		if fresh {
			removeDir(o.ConfigDir, log)
		}
	}()
	// The page server is peer-checked like the bridge (T17): another
	// user's process that asks for /demo/token is closed out unread. Its
	// port is the OS's pick, new each run, so the page's origin is this
	// run's alone: nothing another local user planted in the browser for
	// an origin earlier (a service worker, a cached script) is at it.
	ln, err := peercred.Listen("127.0.0.1:0", log)
	if err != nil {
		return fmt.Errorf("demo: cannot listen for the page: %w", err)
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
	st, err := buildState(files, pagePort, ports, &tokens{first: first}, log)
	if err != nil {
		ln.Close()
		return err
	}
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
	return runErr
}

// pairingFolder makes the demo bridge's pairing folder inside the checked
// config dir, where, unlike a shared temporary directory, no other user
// can put a link in its place. It first sweeps dead demos' folders.
func pairingFolder(configDir string, log *slog.Logger) (string, error) {
	if err := fileperm.EnsureDir(configDir, func(msg string) { log.Warn(msg) }); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	sweep(configDir, log)
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", errors.New("demo: no randomness for its pairing folder: " + err.Error())
	}
	dir := filepath.Join(configDir, pairingPrefix+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(b))
	if err := os.Mkdir(dir, fileperm.DirMode); err != nil {
		return "", fmt.Errorf("demo: cannot make a folder for its pairings: %w", err)
	}
	return dir, nil
}

// pairingPrefix is followed by the pid of the demo that made the folder.
const pairingPrefix = "demo-"

// sweep removes the pairing folders of killed demos, whose pid is not a
// live process; a reused pid keeps its folder.
func sweep(configDir string, log *slog.Logger) {
	entries, err := os.ReadDir(configDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), pairingPrefix)
		pidText, tail, ok2 := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || !ok2 || tail == "" || err != nil || pid <= 0 || !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		if pid == os.Getpid() || session.Alive(pid) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(configDir, e.Name())); err != nil {
			log.Warn("could not remove the pairing folder a killed demo left, " + e.Name() + ": " + err.Error())
			continue
		}
		log.Info("removed the pairing folder a killed demo left", "folder", e.Name())
	}
}

// removeDir removes the config dir the demo created only when empty:
// another bridge may have started on it since (an agent registered with the
// demo's line).
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
	ui.Hint(log, "the page's address is new each run, and with it the line above: run `claude mcp remove stitchslop-demo` before adding it for another run")
	ui.Hint(log, "the page attaches from any browser you open it in while the demo runs (each load pairs with a token of its own)")
	ui.Hint(log, "Ctrl-C stops the demo; its pairings are kept in a folder of their own in the config dir, which goes with it")
}

// armTimeout bounds arming one load's token at the demo's own bridge,
// which answers POST /pair from memory.
const armTimeout = 5 * time.Second

// tokens hands each load of the page a one-time token of its own, armed
// through POST /pair, so whichever browser loaded the page first (a link
// preview, a headless screenshot) locks no other out.
type tokens struct {
	mu    sync.Mutex
	first string                                        // "" once handed out
	arm   func(ctx context.Context, token string) error // nil until connect
}

// connect finds the demo's bridge by its session file, as the shell verbs do.
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

// state is the page server.
type state struct {
	files      fs.FS
	page       []byte // index.html, with each file's integrity filled in
	pagePort   int
	site       string // the page's origin
	tokens     *tokens
	mint       *throttle.Budget // the loads that may be given a fresh token
	log        *slog.Logger
	ports      []int        // the bridge's port list, which the page may dial
	bridgePort atomic.Int64 // 0 until the bridge listens
}

func buildState(files fs.FS, pagePort int, ports []int, t *tokens, log *slog.Logger) (*state, error) {
	page, err := withIntegrity(files)
	if err != nil {
		return nil, err
	}
	return &state{files: files, page: page, pagePort: pagePort, site: "http://127.0.0.1:" + strconv.Itoa(pagePort),
		ports: ports, tokens: t, mint: throttle.New(), log: log}, nil
}

// subresources are the files index.html loads, each with a placeholder
// for its hash: the browser runs or applies a file only if its bytes are
// the ones the demo serves this run (Subresource Integrity), so no copy
// another program left in the browser's cache can stand in for it.
var subresources = []string{"app.js", "style.css"}

func withIntegrity(files fs.FS) ([]byte, error) {
	page, err := fs.ReadFile(files, "index.html")
	if err != nil {
		return nil, err
	}
	for _, name := range subresources {
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		sum := sha512.Sum384(b)
		hole := []byte(`integrity="{{` + name + `}}"`)
		if bytes.Count(page, hole) != 1 {
			return nil, errors.New("demo: index.html does not load " + name + " with an integrity placeholder")
		}
		page = bytes.Replace(page, hole, []byte(`integrity="sha384-`+base64.StdEncoding.EncodeToString(sum[:])+`"`), 1)
	}
	return page, nil
}

func (s *state) listening(port int) { s.bridgePort.Store(int64(port)) }

// dialOrder is the ports the page dials: the bridge's own first, then the
// rest of its list.
func (s *state) dialOrder(bridgePort int) []int {
	out := []int{bridgePort}
	for _, p := range s.ports {
		if p != bridgePort {
			out = append(out, p)
		}
	}
	return out
}

// guarded is s behind origin.Guard, serving only 127.0.0.1 (Literal): the
// bridge admits the page's origin as 127.0.0.1 only, so localhost is sent
// there.
func (s *state) guarded() http.Handler {
	return origin.Guard{Port: s.pagePort, CSP: csp(s.ports), Literal: true, Next: s}
}

// TokenHeader is the header the page's script sends with its request for a
// token, and /demo/token refuses a request without it. A page of another
// site cannot send it (a custom header makes its request one that the
// browser first asks the server about, and the server never agrees), so
// the refusal holds in a browser that sends no Sec-Fetch-Site too.
const TokenHeader = "X-Stitchslop-Demo"

// ServeHTTP runs behind security/origin.Guard (guarded).
func (s *state) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// A site that opened the demo in a window of its own keeps no handle on
	// it (it cannot reload or navigate it), and no other site may embed or
	// read an answer of this server.
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/demo/token":
		s.serveToken(w, r)
	case "/":
		// Whatever this origin's storage and cache hold was put there by
		// no load of this run (the origin is new each run): it goes,
		// service workers included, before the page runs.
		h.Set("Clear-Site-Data", `"cache", "storage"`)
		h.Set("Content-Type", "text/html; charset=utf-8")
		http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(s.page))
	case "/index.html":
		http.Redirect(w, r, "/", http.StatusMovedPermanently)
	case "/app.js", "/style.css":
		http.FileServer(http.FS(s.files)).ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// serveToken answers the page's own script with this load's token and the
// ports to dial. It refuses another site's request, and more tokens than a
// person's loads need, since a flood would push the person's own out of
// the few armed per site. A program of the same user can get one, as it
// may drive the bridge anyway (THREAT_MODEL.md T17).
func (s *state) serveToken(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	fetchSite := r.Header.Get("Sec-Fetch-Site")
	from := r.Header.Get("Origin")
	if r.Header.Get(TokenHeader) != "1" || fetchSite != "" && fetchSite != "same-origin" || from != "" && from != s.site {
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
	if ok, started := s.mint.Take(); !ok {
		if started && s.log != nil {
			s.log.Warn("the demo's page is asked for tokens faster than a person loads it; it refuses them for a while")
		}
		h.Set("Retry-After", tokenRetryAfter)
		w.WriteHeader(http.StatusTooManyRequests)
		json.NewEncoder(w).Encode(map[string]string{"error": "rate_limited", "message": "too many loads of the page at once; it asks again in a moment"})
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

func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", errors.New("demo: no randomness for a token: " + err.Error())
	}
	return "tok_" + hex.EncodeToString(b), nil
}
