// Package demo runs `stitchslop-bridge demo`: a bridge, and on another
// loopback port an embedded stand-in Stitch Slop tab (static/, plain
// HTML, JS and CSS) whose origin only this bridge admits. The tab dials
// 8787..8790 and pairs like the real app, with a one-time token the demo
// makes and hands to the page over a same-origin request, never in a URL
// or on a command line. Stopping the demo stops both and removes the
// demo's pairing; the spent token's fingerprint stays spent, as every
// spent token does.
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

	"github.com/stitchslop/stitchslop-bridge/internal/bridge"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

//go:embed static
var static embed.FS

// Options are what the command line decided.
type Options struct {
	ConfigDir string
	Ports     []int // the bridge's; nil: 8787..8790
	Log       *slog.Logger
	// Ready, when set, is called with the page's URL and the bridge's
	// port once both listen (tests wait on it).
	Ready func(pageURL string, bridgePort int)
}

// csp allows the page its own files and the four bridge ports, nothing
// else.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self' ws://127.0.0.1:8787 ws://127.0.0.1:8788 ws://127.0.0.1:8789 ws://127.0.0.1:8790; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Run serves the demo until ctx ends.
func Run(ctx context.Context, o Options) error {
	log := o.Log
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo: cannot listen for the page: %w", err)
	}
	pagePort := ln.Addr().(*net.TCPAddr).Port
	site := "http://127.0.0.1:" + strconv.Itoa(pagePort)
	token, err := newToken()
	if err != nil {
		ln.Close()
		return err
	}
	files, _ := fs.Sub(static, "static")
	srv := &http.Server{
		Handler:           pageHandler(files, pagePort, token),
		ReadHeaderTimeout: limits.HTTPReadHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go srv.Serve(ln)
	defer srv.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bridgeDone := make(chan error, 1)
	// No agent speaks MCP to the demo's bridge (agents drive it through
	// its control plane, or follow it with --lazy), so its stdin is a pipe
	// that ends only with the demo: at EOF a bridge exits (§2.8).
	stdin, noAgent := io.Pipe()
	context.AfterFunc(ctx, func() { noAgent.Close() })
	go func() {
		bridgeDone <- bridge.Run(ctx, bridge.Config{
			Origin: site, Ports: o.Ports, ConfigDir: o.ConfigDir, Token: token,
			Stdin: stdin, Stdout: io.Discard, Log: log,
			Listening: func(port int) { tell(log, site, port, o.ConfigDir); ready(o, site, port) },
		})
	}()
	var runErr error
	select {
	case runErr = <-bridgeDone:
	case <-ctx.Done():
		runErr = <-bridgeDone
	}
	// What the demo wrote: the session file (the bridge removed it) and
	// the pairing of the demo's page.
	if _, err := pairing.New(o.ConfigDir, log).Unpair(site); err != nil {
		log.Warn("could not remove the demo's pairing", "err", err.Error())
	}
	return runErr
}

func ready(o Options, site string, port int) {
	if o.Ready != nil {
		o.Ready(site+"/", port)
	}
}

// tell says on stderr what to open and what to try.
func tell(log *slog.Logger, site string, port int, dir string) {
	exe, err := os.Executable()
	if err != nil {
		exe = "stitchslop-bridge"
	}
	p := strconv.Itoa(port)
	at := " --port " + p
	if dir != "" {
		at = " --config-dir " + quote(dir) + at
	}
	bin := quote(exe)
	ui.Hint(log, "open "+site+"/ in a browser: a stand-in Stitch Slop tab that attaches to this bridge on its own")
	ui.Hint(log, "then, from another terminal:")
	for _, c := range []string{
		"call scene.describe",
		`call shape.move '{"id":"s1","dx":60,"dy":0}'`,
		"call scene.render --out demo.png",
		"status",
	} {
		ui.Hint(log, "  "+bin+at+" "+c)
	}
	ui.Hint(log, "or from an agent, in a new session: claude mcp add stitchslop-demo -- "+bin+" --lazy --origin "+site)
	ui.Hint(log, "Ctrl-C stops the demo and removes its pairing")
}

// quote quotes s for a POSIX shell when it needs it.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pageHandler serves the page's files and its token, to requests that name
// this server as 127.0.0.1 or localhost with its port (a rebinding page is
// refused, as on the bridge).
func pageHandler(files fs.FS, port int, token string) http.Handler {
	fileServer := http.FileServer(http.FS(files))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		if !origin.HostAllowed(r.Host, port) {
			http.Error(w, "host not allowed", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		switch r.URL.Path {
		case "/demo/token":
			// Only the page's own scripts may read it (a fetch from another
			// site says so in Sec-Fetch-Site, and CORS keeps the answer from
			// it anyway).
			if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
			h.Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]string{"token": token})
		case "/", "/index.html", "/app.js", "/style.css":
			fileServer.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// newToken makes the demo's one-time token.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", errors.New("demo: no randomness for a token: " + err.Error())
	}
	return "tok_" + hex.EncodeToString(b), nil
}
