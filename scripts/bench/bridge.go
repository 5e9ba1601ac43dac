package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// origin is the site the bridge under test admits.
	origin = "https://www.stitchslop.com"
	// guard bounds every wait for something small (a start, a handshake, a
	// call); imageGuard bounds one image round trip.
	guard      = 10 * time.Second
	imageGuard = 60 * time.Second
)

// env is what every bridge process of a run shares.
type env struct {
	bin         string   // the bridge binary
	ref         []string // the reference bridge's command and leading arguments; empty when not measured
	pre         string   // an earlier build of the bridge (-pre); empty when not measured
	echoBin     string   // the stdio floor program
	minRelayBin string   // the minimal relay (scripts/bench/internal/minrelay)
	maxRSSBin   string   // runs a command and writes its peak RSS (scripts/bench/internal/maxrss)
	tmp         string   // the run's temp dir; everything else lives under it
	home        string   // HOME of every child
	secret      string   // the pairing secret seeded for origin
	dirs        atomic.Int64
}

// childEnv is this process's environment minus HOME and anything of the
// bridge's, with HOME pointing into the temp dir so that nothing touches the
// real ~/.stitchslop.
func (e *env) childEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "STITCHSLOP_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+e.home)
}

// newConfigDir makes a fresh config dir (0700) holding pairing.json (0600)
// with the run's secret for origin, as a bridge that had paired with the
// page would have left it.
func (e *env) newConfigDir() (string, error) {
	dir := filepath.Join(e.tmp, fmt.Sprintf("config-%d", e.dirs.Add(1)))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	pairing := map[string]any{origin: map[string]any{
		"secret": e.secret, "secrets": []string{e.secret}, "createdAt": "2026-11-02T09:14:55.120Z",
		"protocol": 1, "usedTokens": []string{},
	}}
	data, err := json.Marshal(pairing)
	if err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "pairing.json"), data, 0o600)
}

// newSecret returns a pairing secret in the page's format: 32 bytes,
// base64url.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// freePort returns a loopback port the OS handed out a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ---------------------------------------------------------------------------
// The bridge process, or the minimal relay's: both speak MCP on stdio and
// take a page on a loopback port.

type bridge struct {
	name      string // "bridge", "reference bridge", "earlier build" or "minimal relay", for messages
	e         *env
	argv      []string // the command and leading arguments it was started with
	cmd       *exec.Cmd
	port      int
	configDir string
	stdin     io.WriteCloser
	rpc       *rpcClient
	stderr    *tail
	exited    chan struct{} // closed once the process is reaped
	exitCode  int
	stopOnce  sync.Once
}

// startTimes is how long the bridge took, from just before exec, to say it
// was listening on stderr and to accept a TCP connection.
type startTimes struct {
	listeningLine time.Duration
	tcpConnect    time.Duration
}

// listeningRE matches the line a bridge writes on stderr once it listens:
// "listening on 127.0.0.1:PORT" (this one), "listening on
// ws://127.0.0.1:PORT" (the Stitch Slop team's).
var listeningRE = regexp.MustCompile(`listening on (?:ws://)?127\.0\.0\.1:(\d+)`)

// subject is a bridge the bench measures: ours, the reference bridge, or an
// earlier build of ours.
type subject struct {
	name   string   // for messages
	argv   []string // the command and leading arguments; the bench adds the rest
	prefix string   // of the names of its figures
}

func (e *env) subjects() []subject {
	s := []subject{{name: "bridge", argv: []string{e.bin}}}
	if len(e.ref) > 0 {
		s = append(s, subject{name: "reference bridge", argv: e.ref, prefix: "ref_"})
	}
	if e.pre != "" {
		s = append(s, subject{name: "earlier build", argv: []string{e.pre}, prefix: "pre_"})
	}
	return s
}

// startBridge runs s on a free port with a fresh config dir, and returns
// once it is listening.
func startBridge(e *env, s subject) (*bridge, startTimes, error) {
	port, err := freePort()
	if err != nil {
		return nil, startTimes{}, err
	}
	dir, err := e.newConfigDir()
	if err != nil {
		return nil, startTimes{}, err
	}
	return startChild(e, s.name, port, dir, s.argv, "--origin", origin, "--port", strconv.Itoa(port), "--config-dir", dir)
}

// startMinRelay runs the minimal relay on a free port and returns once it
// is listening.
func startMinRelay(e *env) (*bridge, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	b, _, err := startChild(e, "minimal relay", port, "", []string{e.minRelayBin}, "-port", strconv.Itoa(port))
	return b, err
}

// startChild starts argv followed by args, which is to listen on port and
// say so on stderr, and returns once it has.
func startChild(e *env, name string, port int, dir string, argv []string, args ...string) (*bridge, startTimes, error) {
	var st startTimes
	cmd := exec.Command(argv[0], append(slices.Clone(argv[1:]), args...)...)
	cmd.Env = e.childEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, st, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, st, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, st, err
	}
	b := &bridge{name: name, e: e, argv: argv, cmd: cmd, port: port, configDir: dir, stdin: stdin,
		rpc: newRPCClient(stdin), stderr: &tail{}, exited: make(chan struct{}), exitCode: -1}

	listening := make(chan time.Time, 1)
	connected := make(chan pollResult, 1)
	t0 := time.Now()
	go func() { connected <- pollConnect(port, t0, guard) }()
	if err := cmd.Start(); err != nil {
		return nil, st, err
	}
	var readers sync.WaitGroup
	readers.Go(func() { b.rpc.readLoop(stdout) })
	readers.Go(func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		seen := false
		for sc.Scan() {
			at := time.Now()
			if !seen && listeningRE.MatchString(sc.Text()) {
				seen = true
				listening <- at
			}
			b.stderr.add(sc.Text())
		}
		io.Copy(io.Discard, stderr) // a line over 1 MiB ends the scanner
	})
	go func() {
		readers.Wait()
		cmd.Wait()
		b.exitCode = cmd.ProcessState.ExitCode()
		close(b.exited)
	}()

	select {
	case at := <-listening:
		st.listeningLine = at.Sub(t0)
	case <-b.exited:
		return nil, st, fmt.Errorf("%s exited with %d before listening; stderr:\n%s", name, b.exitCode, b.stderr)
	case <-time.After(guard):
		b.kill()
		return nil, st, fmt.Errorf("%s did not say it was listening within %v; stderr:\n%s", name, guard, b.stderr)
	}
	pr := <-connected // pollConnect is itself bounded by guard
	if pr.err != nil {
		b.kill()
		return nil, st, pr.err
	}
	st.tcpConnect = pr.d
	return b, st, nil
}

type pollResult struct {
	d   time.Duration
	err error
}

// pollConnect dials 127.0.0.1:port in a tight loop, 100 µs apart, until a
// connection succeeds, and returns how long after t0 that was.
func pollConnect(port int, t0 time.Time, limit time.Duration) pollResult {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for time.Since(t0) < limit {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			d := time.Since(t0)
			c.Close()
			return pollResult{d: d}
		}
		time.Sleep(100 * time.Microsecond)
	}
	return pollResult{err: fmt.Errorf("no TCP connect to %s within %v", addr, limit)}
}

func (b *bridge) pid() int { return b.cmd.Process.Pid }

// kill ends the process at once and reaps it.
func (b *bridge) kill() {
	b.cmd.Process.Kill()
	select {
	case <-b.exited:
	case <-time.After(guard):
	}
}

// stop closes the bridge's stdin, which ends a bridge an MCP client has
// initialized (protocol.md §2.8), and kills it if it has not exited within
// guard. It reports a bridge that had to be killed or exited non-zero.
func (b *bridge) stop() error {
	var err error
	b.stopOnce.Do(func() {
		b.stdin.Close()
		select {
		case <-b.exited:
			if b.exitCode != 0 {
				err = fmt.Errorf("%s exited with %d after stdin closed; stderr:\n%s", b.name, b.exitCode, b.stderr)
			}
		case <-time.After(guard):
			b.kill()
			err = fmt.Errorf("%s still running %v after stdin closed; killed it", b.name, guard)
		}
	})
	return err
}

// mcpHandshake sends initialize and notifications/initialized.
func (b *bridge) mcpHandshake() error {
	r, _, err := b.rpc.roundTrip("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "stitchslop-bench", "version": "0"},
	}, guard)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(r.line, &m) != nil || m.Result == nil {
		return fmt.Errorf("initialize: got %s, want a result", r.line)
	}
	if err := b.rpc.notify("notifications/initialized"); err != nil {
		return err
	}
	// The bridge answers requests in order, so once a ping is answered it
	// has taken in notifications/initialized too, and will tell of the
	// page's tools.
	if _, _, err := b.rpc.roundTrip("ping", nil, guard); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

// awaitTool waits for notifications/tools/list_changed until tools/list
// holds name.
func (b *bridge) awaitTool(name string) error {
	deadline := time.Now().Add(guard)
	for time.Now().Before(deadline) {
		select {
		case <-b.rpc.listChanged:
		case <-time.After(time.Until(deadline)):
			return fmt.Errorf("no notifications/tools/list_changed within %v; stderr:\n%s", guard, b.stderr)
		}
		r, _, err := b.rpc.roundTrip("tools/list", nil, guard)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		var m struct {
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		json.Unmarshal(r.line, &m)
		for _, t := range m.Result.Tools {
			if t.Name == name {
				return nil
			}
		}
	}
	return fmt.Errorf("tools/list never held %q within %v", name, guard)
}

// shellCall runs `stitchslop-bridge --config-dir DIR --port P call COMMAND
// ARGS [MORE...]` (with the command this bridge was started with) against
// this bridge and returns its wall time, and with rss its peak RSS in MiB
// (through maxrss, which adds its own start to the time); exit code 0 is
// required.
func (b *bridge) shellCall(rss bool, command, args string, more ...string) (time.Duration, float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*guard)
	defer cancel()
	argv := append(slices.Clone(b.argv), "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "call", command, args)
	rssFile := filepath.Join(b.configDir, "maxrss")
	if rss {
		argv = append([]string{b.e.maxRSSBin, rssFile}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], more...)...)
	cmd.Env = b.e.childEnv()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, 0, fmt.Errorf("call %s %s: %v; stdout %q; stderr %q", command, args, err, out.String(), errOut.String())
	}
	if !rss {
		return d, 0, nil
	}
	kib, err := os.ReadFile(rssFile)
	if err != nil {
		return d, 0, err
	}
	n, err := strconv.ParseFloat(string(kib), 64)
	return d, n / 1024, err
}

// tail keeps the last lines of a child's stderr for error messages.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > 40 {
		t.lines = t.lines[1:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// ---------------------------------------------------------------------------
// The MCP client: one JSON-RPC 2.0 message a line on the bridge's stdio.

type rpcClient struct {
	w           io.Writer
	wmu         sync.Mutex
	next        atomic.Int64
	mu          sync.Mutex
	waiting     map[int64]chan rpcReply
	listChanged chan struct{} // one token per notifications/tools/list_changed, extras dropped
	done        chan struct{} // closed when stdout ends
}

// rpcReply is a response line and the moment it had been read whole.
type rpcReply struct {
	line []byte
	at   time.Time
}

func newRPCClient(w io.Writer) *rpcClient {
	return &rpcClient{w: w, waiting: map[int64]chan rpcReply{},
		listChanged: make(chan struct{}, 16), done: make(chan struct{})}
}

// readLoop reads stdout line by line and hands each response to the call
// waiting for its id. The time is taken as soon as a line is complete, so
// parsing it is not part of any figure.
func (c *rpcClient) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		at := time.Now()
		if err != nil {
			io.Copy(io.Discard, br)
			return
		}
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &head) != nil {
			continue // not JSON: the e2e suite catches that, not the bench
		}
		if head.Method == "notifications/tools/list_changed" {
			select {
			case c.listChanged <- struct{}{}:
			default:
			}
			continue
		}
		id, err := strconv.ParseInt(string(head.ID), 10, 64)
		if head.Method != "" || err != nil {
			continue
		}
		c.mu.Lock()
		ch := c.waiting[id]
		delete(c.waiting, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- rpcReply{line: line, at: at}
		}
	}
}

// requestLine is the line a request is sent as, newline included.
func requestLine(id int64, method string, params any) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

func (c *rpcClient) write(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(line)
	return err
}

func (c *rpcClient) notify(method string) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	return c.write(append(b, '\n'))
}

// roundTrip sends a request with a fresh id and waits at most timeout for
// its response. d runs from just before the request is written to the
// moment the whole response line has been read.
func (c *rpcClient) roundTrip(method string, params any, timeout time.Duration) (r rpcReply, d time.Duration, err error) {
	id := c.next.Add(1)
	line := requestLine(id, method, params)
	ch := make(chan rpcReply, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
	}()
	start := time.Now()
	if err := c.write(line); err != nil {
		return r, 0, fmt.Errorf("write to bridge stdin: %w", err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r = <-ch:
		return r, r.at.Sub(start), nil
	case <-c.done:
		return r, 0, errors.New("bridge closed stdout")
	case <-timer.C:
		return r, 0, fmt.Errorf("no response to %s id %d within %v", method, id, timeout)
	}
}

// toolResult is the result of a tools/call.
type toolResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// parseToolResult decodes a tools/call response, which must be a result
// with isError false.
func parseToolResult(line []byte) (toolResult, error) {
	var m struct {
		Result *toolResult      `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return toolResult{}, fmt.Errorf("tools/call response is not JSON: %v", err)
	}
	if m.Result == nil {
		return toolResult{}, fmt.Errorf("tools/call: got %.300s, want a result", line)
	}
	if m.Result.IsError || len(m.Result.Content) == 0 {
		return *m.Result, fmt.Errorf("tools/call: got %.300s, want content and isError false", line)
	}
	return *m.Result, nil
}
