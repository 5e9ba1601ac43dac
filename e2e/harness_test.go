// Package e2e holds the black-box conformance tests of stitchslop-bridge
// against the wire protocol (protocol.md). Every test drives the built
// binary over real sockets, pipes and files: it plays the browser page (a
// WebSocket client), the MCP client (the child's stdin and stdout) and the
// shell (the CLI verbs). No package of this module is imported: header and
// field names are written here from the spec, so a misspelling in the
// implementation cannot test itself green.
//
// Run with:
//
//	go test -race ./e2e/
package e2e

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const (
	// testOrigin is the site the bridges under test admit.
	testOrigin = "https://www.stitchslop.com"
	// guard bounds every wait for an event; it is a failure guard, never a
	// synchronisation device.
	guard = 10 * time.Second
	// stderrPrefix starts every line the bridge writes to stderr.
	stderrPrefix = "stitchslop-bridge: "
	modulePath   = "github.com/stitchslop/stitchslop-bridge"
	// testHooksTag builds the test seams in: timings and ports from the
	// environment, the SIGUSR1 heap report.
	testHooksTag = "stitchslop_testhooks"
)

// binPath is the bridge binary TestMain builds once per run, and toolPath
// stitchslop, the program of the tools a person runs by hand, beside it as
// a release installs them.
var binPath, toolPath string

// toolVerbs are stitchslop's verbs.
var toolVerbs = []string{"demo", "setup", "doctor", "listen", "completion", "man"}

// valueFlags are the flags the tests give that take a value.
var valueFlags = []string{"--config-dir", "--port", "--origin", "--owner", "--shell", "--timeout", "--out", "--save", "--file", "--file-text", "--text-file", "--idle-minutes", "--agent-idle-minutes", "--exit-when-unused"}

// binFor is the binary whose verb args name: stitchslop for its verbs,
// the bridge for the rest.
func binFor(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case slices.Contains(valueFlags, a):
			i++
		case strings.HasPrefix(a, "-"):
		case slices.Contains(toolVerbs, a):
			return toolPath
		default:
			return binPath
		}
	}
	return binPath
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if runtime.GOOS == "windows" {
		// The suite drives the bridge with Unix signals (SIGTERM, SIGKILL),
		// checks Unix file modes and runs children under a shell umask.
		// The unit tests of every package still run on Windows.
		fmt.Fprintln(os.Stderr, "e2e: skipped on Windows: the black-box suite needs Unix signals and file modes")
		return 0
	}
	dir, err := os.MkdirTemp("", "stitchslop-e2e-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binPath = filepath.Join(dir, "stitchslop-bridge")
	// The test seams (internal/bridge/hooks.go) are compiled in only with
	// this tag, which no release build sets (TestSec_ReleaseBuildHasNoTestHooks).
	args := []string{"build", "-tags", testHooksTag}
	if raceEnabled {
		args = append(args, "-race")
	}
	toolPath = filepath.Join(dir, "stitchslop")
	for _, b := range [][2]string{{binPath, "./cmd/stitchslop-bridge"}, {toolPath, "./cmd/stitchslop"}} {
		args := append(slices.Clone(args), "-o", b[0], b[1])
		build := exec.Command("go", args...)
		build.Dir = ".."
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: go %s: %v\n%s", strings.Join(args, " "), err, out)
			return 1
		}
	}
	return m.Run()
}

// childEnv is the environment of every child: the test's own, minus HOME and
// anything of ours, with HOME pointing at a fresh directory so nothing
// touches the real ~/.stitchslop.
func childEnv(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "XDG_CONFIG_HOME" || k == "GORACE" || strings.HasPrefix(k, "STITCHSLOP_") {
			continue
		}
		env = append(env, kv)
	}
	// A -race child sleeps 1 s at exit by default so late reports can land;
	// every report is already on stderr by then, and the tests wait on exits.
	env = append(env, "HOME="+home, "GORACE=atexit_sleep_ms=50")
	return append(env, extra...)
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// heldPort listens on a port the OS picks and holds it until the test
// ends: unlike freePort then holdPort, no other test can take it between.
func heldPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("hold a port: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

// holdPort listens on 127.0.0.1:port until the test ends.
func holdPort(t *testing.T, port int) {
	t.Helper()
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("hold port %d: %v", port, err)
	}
	t.Cleanup(func() { l.Close() })
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// newToken returns a fresh bootstrap token in the page's format.
func newToken() string { return "tok_" + randHex(16) }

// newSecret returns a fresh pairing secret: 32 bytes, base64url.
func newSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// fingerprint is how a spent token is recorded: hex(SHA-256(token))[:32].
func fingerprint(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])[:32]
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ---------------------------------------------------------------------------
// stream: an append-only log that tests await on.

type stream[T any] struct {
	mu      sync.Mutex
	items   []T
	changed chan struct{}
	closed  bool
}

func newStream[T any]() *stream[T] { return &stream[T]{changed: make(chan struct{})} }

func (s *stream[T]) add(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, v)
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *stream[T]) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.changed)
		s.changed = make(chan struct{})
	}
}

func (s *stream[T]) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

func (s *stream[T]) all() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]T(nil), s.items...)
}

// await returns the first item at index >= from that matches (nil matches
// anything), and its index. ok is false when the timeout passes or the stream
// ends first.
func (s *stream[T]) await(from int, timeout time.Duration, match func(T) bool) (v T, idx int, ok bool) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		for i := from; i < len(s.items); i++ {
			if match == nil || match(s.items[i]) {
				v := s.items[i]
				s.mu.Unlock()
				return v, i, true
			}
		}
		from = max(from, len(s.items))
		closed, ch := s.closed, s.changed
		s.mu.Unlock()
		if closed {
			return v, -1, false
		}
		select {
		case <-ch:
		case <-timer.C:
			return v, -1, false
		}
	}
}

// lineLog is an io.Writer that keeps everything written and splits it into
// lines that can be awaited.
type lineLog struct {
	mu      sync.Mutex
	text    bytes.Buffer
	partial []byte
	lines   *stream[string]
	onLine  func(string)
	// gate, when set, holds every Write until it is closed: the reader of
	// the pipe stops, as a client that does not read stdout does.
	gate chan struct{}
}

func newLineLog(onLine func(string)) *lineLog {
	return &lineLog{lines: newStream[string](), onLine: onLine}
}

func (l *lineLog) Write(p []byte) (int, error) {
	if l.gate != nil {
		<-l.gate
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.Write(p)
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := string(l.partial[:i])
		l.partial = l.partial[i+1:]
		// Logged before it is handed on: a test that has awaited a
		// message then finds its line in the log too.
		l.lines.add(line)
		if l.onLine != nil {
			l.onLine(line)
		}
	}
	return len(p), nil
}

func (l *lineLog) finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		line := string(l.partial)
		l.partial = nil
		l.lines.add(line)
		if l.onLine != nil {
			l.onLine(line)
		}
	}
	l.lines.close()
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

// ---------------------------------------------------------------------------
// The bridge process.

type bridgeOpts struct {
	origin     string        // --origin; testOrigin when empty
	port       int           // --port; a free port when 0; no --port at all when -1
	configDir  string        // --config-dir; a fresh, not yet existing dir when empty
	token      string        // STITCHSLOP_TOKEN
	timings    string        // STITCHSLOP_TEST_TIMINGS
	args       []string      // further arguments
	mcp        bool          // stdin is a pipe the test drives; /dev/null otherwise
	openUmask  bool          // run under umask 000, so only explicit modes protect files
	expectExit bool          // do not await the listening line
	stdoutGate chan struct{} // when set, stdout is not read until it is closed
	env        []string      // added to the child's environment
	bin        string        // the binary to run; binPath when empty
}

type bridge struct {
	t         *testing.T
	cmd       *exec.Cmd
	port      int
	configDir string
	origin    string
	stderr    *lineLog
	stdout    *lineLog
	rpc       *rpcClient
	done      chan struct{}
	exitCode  int
}

var listeningRE = regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`)

// launch starts cmd as b's process (its stdout and stderr already set to
// b's logs) and closes b.done once it has exited; what names the start in
// a failure.
func (b *bridge) launch(cmd *exec.Cmd, what string) {
	b.t.Helper()
	if err := cmd.Start(); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	b.cmd = cmd
	go func() {
		cmd.Wait()
		b.stdout.finish()
		b.stderr.finish()
		b.exitCode = cmd.ProcessState.ExitCode()
		close(b.done)
	}()
	b.t.Cleanup(b.cleanup)
}

func startBridge(t *testing.T, o bridgeOpts) *bridge {
	t.Helper()
	b := &bridge{t: t, origin: o.origin, configDir: o.configDir, done: make(chan struct{}), exitCode: -1}
	if b.origin == "" {
		b.origin = testOrigin
	}
	if b.configDir == "" {
		b.configDir = filepath.Join(t.TempDir(), "config")
	}
	args := []string{"--origin", b.origin}
	switch {
	case o.port == 0:
		b.port = freePort(t)
	case o.port > 0:
		b.port = o.port
	}
	if b.port > 0 {
		args = append(args, "--port", strconv.Itoa(b.port))
	}
	args = append(args, "--config-dir", b.configDir)
	args = append(args, o.args...)
	var extra []string
	if o.token != "" {
		extra = append(extra, "STITCHSLOP_TOKEN="+o.token)
	}
	if o.timings != "" {
		extra = append(extra, "STITCHSLOP_TEST_TIMINGS="+o.timings)
	}
	extra = append(extra, o.env...)
	bin := cmp.Or(o.bin, binPath)
	cmd := exec.Command(bin, args...)
	if o.openUmask {
		// exec keeps the pid, so the child is still the bridge itself.
		cmd = exec.Command("/bin/sh", append([]string{"-c", `umask 000 && exec "$0" "$@"`, bin}, args...)...)
	}
	cmd.Env = childEnv(t.TempDir(), extra...)
	b.rpc = &rpcClient{t: t, msgs: newStream[rpcMsg](), bad: newStream[string]()}
	b.stdout = newLineLog(b.rpc.receive)
	b.stdout.gate = o.stdoutGate
	b.stderr = newLineLog(nil)
	cmd.Stdout, cmd.Stderr = b.stdout, b.stderr
	cmd.WaitDelay = 2 * time.Second
	if o.mcp {
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatalf("stdin pipe: %v", err)
		}
		b.rpc.w = w
	}
	b.launch(cmd, "start bridge")
	if !o.expectExit {
		b.awaitListening()
	}
	return b
}

func (b *bridge) pid() int { return b.cmd.Process.Pid }

func (b *bridge) cleanup() {
	select {
	case <-b.done:
	default:
		b.cmd.Process.Kill()
		select {
		case <-b.done:
		case <-time.After(guard):
			b.t.Errorf("bridge pid %d did not die after SIGKILL", b.pid())
			return
		}
	}
	checkStderr(b.t, b.stderr)
	for _, bad := range b.rpc.bad.all() {
		b.t.Errorf("bridge stdout line %q: got non-JSON-RPC, want only JSON-RPC 2.0 messages (§3.1)", bad)
	}
}

// checkStderr fails t if a bridge's stderr shows a crash or a race, or a
// line without the house prefix.
func checkStderr(t *testing.T, stderr *lineLog) {
	t.Helper()
	lines := stderr.lines.all()
	for _, line := range lines {
		if strings.Contains(line, "DATA RACE") || strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "fatal error:") {
			t.Errorf("bridge crashed or raced; stderr:\n%s", stderr)
			break
		}
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, stderrPrefix) {
			t.Errorf("bridge stderr line %q: got no prefix, want %q", line, stderrPrefix)
			break
		}
	}
}

// awaitListening waits for the listening line and returns it.
func (b *bridge) awaitListening() string {
	b.t.Helper()
	line, _, ok := b.stderr.lines.await(0, guard, listeningRE.MatchString)
	if !ok {
		b.t.Fatalf("bridge never said it was listening (exited: %v, code %d); stderr:\n%s", b.exited(), b.code(), b.stderr)
	}
	p, _ := strconv.Atoi(listeningRE.FindStringSubmatch(line)[1])
	if b.port == 0 {
		b.port = p
	} else if p != b.port {
		b.t.Fatalf("listening port: got %d, want %d", p, b.port)
	}
	return line
}

func (b *bridge) exited() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

func (b *bridge) code() int {
	if b.exited() {
		return b.exitCode
	}
	return -1
}

// awaitExit waits for the bridge to exit on its own and returns its code.
func (b *bridge) awaitExit() int {
	b.t.Helper()
	select {
	case <-b.done:
		return b.exitCode
	case <-time.After(guard):
		b.t.Fatalf("bridge did not exit within %v; stderr:\n%s", guard, b.stderr)
		return -1
	}
}

func (b *bridge) signal(sig syscall.Signal) {
	b.t.Helper()
	if err := b.cmd.Process.Signal(sig); err != nil {
		b.t.Fatalf("signal %v: %v", sig, err)
	}
}

// closeStdin ends the MCP client's side of stdio.
func (b *bridge) closeStdin() {
	b.t.Helper()
	if err := b.rpc.w.Close(); err != nil {
		b.t.Fatalf("close stdin: %v", err)
	}
}

func (b *bridge) mustRun() {
	b.t.Helper()
	if b.exited() {
		b.t.Fatalf("bridge exited with %d, want it running; stderr:\n%s", b.exitCode, b.stderr)
	}
}

// ---------------------------------------------------------------------------
// The MCP client: newline-delimited JSON-RPC 2.0 on the child's stdio.

type rpcMsg struct {
	raw    string
	fields map[string]json.RawMessage
	// batch holds the answers of a JSON-RPC batch (MCP 2025-03-26), a
	// line that is an array; fields is nil then.
	batch []map[string]json.RawMessage
}

func (m rpcMsg) has(k string) bool { _, ok := m.fields[k]; return ok }

func (m rpcMsg) method() string {
	var s string
	json.Unmarshal(m.fields["method"], &s)
	return s
}

func (m rpcMsg) isResponse() bool { return !m.has("method") && m.has("id") }

func (m rpcMsg) idIs(id int64) bool {
	raw, ok := m.fields["id"]
	return ok && string(bytes.TrimSpace(raw)) == strconv.FormatInt(id, 10)
}

// errCode returns the JSON-RPC error code, or 0 when the message is no error.
func (m rpcMsg) errCode() int {
	var e struct {
		Code int `json:"code"`
	}
	if raw, ok := m.fields["error"]; ok {
		json.Unmarshal(raw, &e)
	}
	return e.Code
}

type rpcClient struct {
	t    *testing.T
	w    io.WriteCloser
	wmu  sync.Mutex
	msgs *stream[rpcMsg]
	bad  *stream[string]
	next atomic.Int64
}

// receive takes one stdout line. Anything but a JSON-RPC 2.0 message is a
// §3.1 violation, reported when the bridge is cleaned up.
func (c *rpcClient) receive(line string) {
	if strings.HasPrefix(line, "[") {
		var batch []map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &batch) != nil || len(batch) == 0 ||
			slices.ContainsFunc(batch, func(f map[string]json.RawMessage) bool { return !validRPC(f) }) {
			c.bad.add(line)
			return
		}
		c.msgs.add(rpcMsg{raw: line, batch: batch})
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &fields); err != nil || !validRPC(fields) {
		c.bad.add(line)
		return
	}
	c.msgs.add(rpcMsg{raw: line, fields: fields})
}

func validRPC(f map[string]json.RawMessage) bool {
	var v string
	if json.Unmarshal(f["jsonrpc"], &v) != nil || v != "2.0" {
		return false
	}
	if m, ok := f["method"]; ok {
		return json.Unmarshal(m, &v) == nil
	}
	_, hasID := f["id"]
	_, hasResult := f["result"]
	_, hasError := f["error"]
	return hasID && hasResult != hasError
}

func (c *rpcClient) sendLine(line string) {
	c.t.Helper()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("write to bridge stdin: %v", err)
	}
}

func (c *rpcClient) request(method string, params any) int64 {
	c.t.Helper()
	id := c.next.Add(1)
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	c.sendLine(string(mustJSON(msg)))
	return id
}

func (c *rpcClient) notify(method string, params any) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	c.sendLine(string(mustJSON(msg)))
}

func (c *rpcClient) responseWithin(id int64, d time.Duration) rpcMsg {
	c.t.Helper()
	m, _, ok := c.msgs.await(0, d, func(m rpcMsg) bool { return m.isResponse() && m.idIs(id) })
	if !ok {
		c.t.Fatalf("no JSON-RPC response to id %d within %v", id, d)
	}
	return m
}

func (c *rpcClient) response(id int64) rpcMsg { c.t.Helper(); return c.responseWithin(id, guard) }

func (c *rpcClient) call(method string, params any) rpcMsg {
	c.t.Helper()
	return c.response(c.request(method, params))
}

// result decodes a successful response's result into v.
func (c *rpcClient) result(m rpcMsg, v any) {
	c.t.Helper()
	raw, ok := m.fields["result"]
	if !ok {
		c.t.Fatalf("response %s: got no result, want one", m.raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		c.t.Fatalf("response %s: %v", m.raw, err)
	}
}

// initialize runs the MCP handshake, notifications/initialized included.
func (c *rpcClient) initialize() {
	c.t.Helper()
	m := c.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "e2e", "version": "0"},
	})
	if !m.has("result") {
		c.t.Fatalf("initialize: got %s, want a result", m.raw)
	}
	c.notify("notifications/initialized", nil)
}

type toolResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (c *rpcClient) toolCallWithin(name string, args any, d time.Duration) toolResult {
	c.t.Helper()
	m := c.responseWithin(c.request("tools/call", map[string]any{"name": name, "arguments": args}), d)
	var r toolResult
	c.result(m, &r)
	return r
}

func (c *rpcClient) toolCall(name string, args any) toolResult {
	c.t.Helper()
	return c.toolCallWithin(name, args, guard)
}

// text joins the result's text blocks.
func (r toolResult) text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// envelope parses the page envelope out of the first text block: the JSON
// that follows an optional say line and a blank line.
func (r toolResult) envelope(t *testing.T) (say string, env map[string]any) {
	t.Helper()
	if len(r.Content) == 0 || r.Content[0].Type != "text" {
		t.Fatalf("tool result %+v: got no leading text block, want one", r)
	}
	text := r.Content[0].Text
	js := text
	if !strings.HasPrefix(text, "{") {
		var ok bool
		say, js, ok = strings.Cut(text, "\n\n")
		if !ok {
			t.Fatalf("tool result text %q: got no JSON envelope", text)
		}
	}
	if err := json.Unmarshal([]byte(js), &env); err != nil {
		t.Fatalf("tool result text %q: envelope is not JSON: %v", text, err)
	}
	return say, env
}

func (c *rpcClient) toolNames() []string {
	c.t.Helper()
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	c.result(c.call("tools/list", nil), &res)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

const listChanged = "notifications/tools/list_changed"

// bridgeTools are the bridge's own tools, listed whether or not a tab is
// attached (protocol.md §3.3 forbids inventing page tools; a bridge-owned
// tool that always answers is an extension the Stitch Slop team's bridge
// makes too). Page tools come and go on top of them.
var bridgeTools = []string{"wait_for_connection", "pair", "connection_status", "call_with_file", "call_to_files"}

// withBridgeTools returns names plus the bridge's own tools, sorted.
func withBridgeTools(names ...string) []string {
	return sortedNames(append(append([]string{}, bridgeTools...), names...))
}

// awaitListChanged waits for a list_changed notification at index >= from.
func (c *rpcClient) awaitListChanged(from int) int {
	c.t.Helper()
	_, i, ok := c.msgs.await(from, guard, func(m rpcMsg) bool { return m.method() == listChanged })
	if !ok {
		c.t.Fatalf("got no %s, want one", listChanged)
	}
	return i
}

// ---------------------------------------------------------------------------
// The page: a WebSocket client that sets Origin.

type frame struct {
	raw []byte
	m   map[string]any
	id  json.RawMessage
}

func (f frame) str(k string) string { s, _ := f.m[k].(string); return s }

type pageHandler func(command string, args map[string]any) map[string]any

type page struct {
	t       *testing.T
	conn    *websocket.Conn
	wmu     sync.Mutex
	frames  *stream[frame]
	pings   *stream[time.Time]
	gone    chan struct{}
	handler atomic.Pointer[pageHandler]
}

var wsDialer = &websocket.Dialer{HandshakeTimeout: 5 * time.Second}

func originHeader(origin string) http.Header {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return h
}

func dialWS(port int, h http.Header) (*websocket.Conn, *http.Response, error) {
	return wsDialer.Dial(fmt.Sprintf("ws://127.0.0.1:%d/", port), h)
}

// openPage dials the bridge as the page would. A silent page does not
// answer pings.
func openPage(t *testing.T, port int, silent bool) *page {
	t.Helper()
	return openPageFrom(t, port, testOrigin, silent)
}

// openPageFrom is openPage for a page of site.
func openPageFrom(t *testing.T, port int, site string, silent bool) *page {
	t.Helper()
	conn, resp, err := dialWS(port, originHeader(site))
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial page socket on port %d: %v (HTTP %d)", port, err, status)
	}
	return newPage(t, conn, silent)
}

func newPage(t *testing.T, conn *websocket.Conn, silent bool) *page {
	p := &page{t: t, conn: conn, frames: newStream[frame](), pings: newStream[time.Time](), gone: make(chan struct{})}
	conn.SetPingHandler(func(data string) error {
		p.pings.add(time.Now())
		if silent {
			return nil
		}
		err := conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		var ne net.Error
		if errors.Is(err, websocket.ErrCloseSent) || (errors.As(err, &ne) && ne.Timeout()) {
			return nil
		}
		return err
	})
	go p.read()
	t.Cleanup(func() {
		conn.Close()
		<-p.gone
	})
	return p
}

func (p *page) read() {
	defer close(p.gone)
	defer p.pings.close()
	defer p.frames.close()
	for {
		_, data, err := p.conn.ReadMessage()
		if err != nil {
			return
		}
		f := frame{raw: data}
		json.Unmarshal(data, &f.m)
		var fields map[string]json.RawMessage
		if json.Unmarshal(data, &fields) == nil {
			f.id = fields["id"]
		}
		if h := p.handler.Load(); h != nil {
			if cmd, ok := f.m["command"].(string); ok {
				args, _ := f.m["args"].(map[string]any)
				if reply := (*h)(cmd, args); reply != nil {
					p.reply(f, reply)
				}
			}
		}
		p.frames.add(f)
	}
}

func (p *page) serve(h pageHandler) { p.handler.Store(&h) }

func (p *page) send(v any) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return p.conn.WriteMessage(websocket.TextMessage, mustJSON(v))
}

func (p *page) mustSend(v any) {
	p.t.Helper()
	if err := p.send(v); err != nil {
		p.t.Fatalf("page send: %v", err)
	}
}

func (p *page) sendText(s string) {
	p.t.Helper()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.conn.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		p.t.Fatalf("page send: %v", err)
	}
}

// reply answers a command frame with fields plus the frame's own id.
func (p *page) reply(f frame, fields map[string]any) error {
	out := map[string]any{"id": f.id}
	for k, v := range fields {
		out[k] = v
	}
	return p.send(out)
}

// frameAt awaits the first frame at index >= from that matches.
func (p *page) frameAt(from int, match func(frame) bool) (frame, int) {
	p.t.Helper()
	f, i, ok := p.frames.await(from, guard, match)
	if !ok {
		p.t.Fatalf("page: got no matching frame (socket closed: %v); frames so far: %q", p.closed(), p.rawFrames())
	}
	return f, i
}

// command awaits the next command frame at index >= from.
func (p *page) command(from int) (frame, int) {
	p.t.Helper()
	return p.frameAt(from, func(f frame) bool { _, ok := f.m["command"]; return ok })
}

func (p *page) rawFrames() []string {
	var out []string
	for _, f := range p.frames.all() {
		out = append(out, string(f.raw))
	}
	return out
}

func (p *page) closed() bool {
	select {
	case <-p.gone:
		return true
	default:
		return false
	}
}

// awaitClosed waits for the bridge to close the socket.
func (p *page) awaitClosed() {
	p.t.Helper()
	select {
	case <-p.gone:
	case <-time.After(guard):
		p.t.Fatalf("page socket still open after %v, want it closed by the bridge", guard)
	}
}

// handshake sends the first frame (a string is sent as is) and returns the
// bridge's first reply.
func (p *page) handshake(first any) frame {
	p.t.Helper()
	if s, ok := first.(string); ok {
		p.sendText(s)
	} else {
		p.mustSend(first)
	}
	f, _ := p.frameAt(0, nil)
	return f
}

// awaitPings waits until the page has received n pings.
func (p *page) awaitPings(n int) {
	p.t.Helper()
	if _, _, ok := p.pings.await(n-1, guard, nil); !ok {
		p.t.Fatalf("page got %d pings, want at least %d", p.pings.len(), n)
	}
}

var defaultTools = []any{
	map[string]any{"name": "scene.describe", "description": "Describe the design.", "inputSchema": map[string]any{"type": "object"}},
	map[string]any{"name": "render.png", "description": "Render the design.", "inputSchema": map[string]any{"type": "object"}},
}

// defaultHandler plays a page that answers every command.
func defaultHandler(command string, args map[string]any) map[string]any {
	if command == "scene.describe" {
		return map[string]any{"ok": true, "say": "The design has 3 shapes.", "shapes": 3, "args": args}
	}
	return map[string]any{"ok": true, "command": command, "args": args}
}

func wantHello(t *testing.T, f frame, port int) {
	t.Helper()
	if f.str("hello") != "stitchslop-connector" {
		t.Fatalf("handshake reply %s: got no hello, want hello \"stitchslop-connector\"", f.raw)
	}
	if f.m["protocol"] != float64(1) || f.m["port"] != float64(port) {
		t.Errorf("hello %s: got protocol %v port %v, want 1 and %d", f.raw, f.m["protocol"], f.m["port"], port)
	}
}

func wantRefusal(t *testing.T, p *page, f frame, code string) {
	t.Helper()
	if f.str("error") != code {
		t.Fatalf("handshake reply %s: got error %q, want %q", f.raw, f.str("error"), code)
	}
	if _, ok := f.m["message"].(string); !ok {
		t.Errorf("refusal %s: got no message string, want one", f.raw)
	}
	if _, ok := f.m["hello"]; ok {
		t.Errorf("refusal %s carries hello", f.raw)
	}
	p.awaitClosed()
}

// connectPage attaches an answering page that sends defaultTools.
func connectPage(t *testing.T, b *bridge, cred map[string]any) (*page, frame) {
	t.Helper()
	return connectPageListing(t, b, cred, defaultTools)
}

// connectPageListing is connectPage with the page sending tools. A tab
// whose list is in is asked only for the tools in it: the bridge answers
// any other name with -32602.
func connectPageListing(t *testing.T, b *bridge, cred map[string]any, tools []any) (*page, frame) {
	t.Helper()
	p := openPage(t, b.port, false)
	p.serve(defaultHandler)
	hello := p.handshake(cred)
	wantHello(t, hello, b.port)
	p.mustSend(map[string]any{"tools": tools})
	return p, hello
}

// withTools is defaultTools and a tool of each name, taking any object.
func withTools(names ...string) []any {
	tools := append([]any{}, defaultTools...)
	for _, n := range names {
		tools = append(tools, map[string]any{"name": n, "description": "A test tool.", "inputSchema": map[string]any{"type": "object"}})
	}
	return tools
}

// ---------------------------------------------------------------------------
// Files: pairing.json and session-<port>.json.

type pairingEntry struct {
	Secret     string   `json:"secret"`
	Secrets    []string `json:"secrets"`
	CreatedAt  string   `json:"createdAt"`
	Protocol   int      `json:"protocol"`
	UsedTokens []string `json:"usedTokens"`
	// DemoSecrets are the secrets of a pairing the demo made, kept apart
	// so that no production bridge admits them (THREAT_MODEL T17).
	DemoSecrets []string `json:"demoSecrets"`
}

func readPairingRaw(t *testing.T, dir string) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "pairing.json"))
	if err != nil {
		t.Fatalf("read pairing.json: %v", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatalf("pairing.json %s: %v", data, err)
	}
	return top
}

func readPairing(t *testing.T, dir, origin string) pairingEntry {
	t.Helper()
	raw, ok := readPairingRaw(t, dir)[origin]
	if !ok {
		t.Fatalf("pairing.json: got no entry for %q", origin)
	}
	var e pairingEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("pairing.json entry %s: %v", raw, err)
	}
	return e
}

// awaitPairing polls pairing.json until the origin's entry satisfies match:
// the spec lets the token be spent just after hello is sent.
func awaitPairing(t *testing.T, dir, origin, what string, match func(pairingEntry) bool) pairingEntry {
	t.Helper()
	deadline := time.Now().Add(guard)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var e pairingEntry
		data, err := os.ReadFile(filepath.Join(dir, "pairing.json"))
		var top map[string]json.RawMessage
		if err == nil && json.Unmarshal(data, &top) == nil && json.Unmarshal(top[origin], &e) == nil && match(e) {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("pairing.json %s: got %+v, want %s", data, e, what)
		}
		<-tick.C
	}
}

// spent waits for token's fingerprint in the origin's usedTokens.
func spent(t *testing.T, dir, origin, token string) pairingEntry {
	t.Helper()
	return awaitPairing(t, dir, origin, "usedTokens holding "+fingerprint(token), func(e pairingEntry) bool {
		return contains(e.UsedTokens, fingerprint(token))
	})
}

// seedPairing writes pairing.json as another bridge would have left it.
func seedPairing(t *testing.T, dir string, content map[string]any) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pairing.json"), mustJSON(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func pairingFor(secrets ...string) map[string]any {
	return map[string]any{
		"secret": secrets[0], "secrets": secrets, "createdAt": "2026-11-02T09:14:55.120Z",
		"protocol": 1, "usedTokens": []string{},
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

type sessionFile struct {
	Port      int    `json:"port"`
	Key       string `json:"key"`
	Origin    string `json:"origin"`
	PID       int    `json:"pid"`
	Protocol  int    `json:"protocol"`
	StartedAt string `json:"startedAt"`
}

func sessionPath(dir string, port int) string {
	return filepath.Join(dir, fmt.Sprintf("session-%d.json", port))
}

// awaitFile waits for path to exist and hold a JSON document, and returns it.
func awaitFile(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(guard)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		data, err := os.ReadFile(path)
		if err == nil && json.Valid(data) {
			return data
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: got %v, want a JSON file within %v", path, err, guard)
		}
		<-tick.C
	}
}

func (b *bridge) session() sessionFile {
	b.t.Helper()
	var s sessionFile
	data := awaitFile(b.t, sessionPath(b.configDir, b.port))
	if err := json.Unmarshal(data, &s); err != nil {
		b.t.Fatalf("session file %s: %v", data, err)
	}
	return s
}

func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("stat %s: %v", path, err)
	}
	return fi.Mode().Perm()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ---------------------------------------------------------------------------
// The control plane, over plain HTTP.

var httpClient = &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 20 * time.Second}

// ctlRaw sends one HTTP request to the bridge's port. host overrides the
// Host header when not empty.
func ctlRaw(port int, method, path string, body any, hdr http.Header, host string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(mustJSON(body))
	}
	req, err := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), rd)
	if err != nil {
		return 0, nil, err
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if host != "" {
		req.Host = host
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

func ctlDo(t *testing.T, port int, method, path string, body any, hdr http.Header, host string) (int, []byte) {
	t.Helper()
	status, data, err := ctlRaw(port, method, path, body, hdr, host)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return status, data
}

func keyHeader(key string) http.Header {
	h := http.Header{}
	h.Set("x-stitchslop-key", key)
	return h
}

// ctl calls a control-plane route with the session key and decodes the JSON
// answer.
func (b *bridge) ctl(method, path string, body any) (int, map[string]any) {
	b.t.Helper()
	status, data := ctlDo(b.t, b.port, method, path, body, keyHeader(b.session().Key), "")
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		b.t.Fatalf("%s %s: HTTP %d, body %q is not a JSON object: %v", method, path, status, data, err)
	}
	return status, m
}

// awaitStatus polls /status until match holds, and returns that status.
func (b *bridge) awaitStatus(what string, match func(map[string]any) bool) map[string]any {
	b.t.Helper()
	deadline := time.Now().Add(guard)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		_, st := b.ctl("GET", "/status", nil)
		if match(st) {
			return st
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("/status: got %v, want %s", st, what)
		}
		<-tick.C
	}
}

// awaitConnected polls /status until connected is want.
func (b *bridge) awaitConnected(want bool) {
	b.t.Helper()
	b.awaitStatus(fmt.Sprintf("connected %v", want), func(st map[string]any) bool { return st["connected"] == want })
}

// ---------------------------------------------------------------------------
// The shell: CLI verbs as child processes.

type cliResult struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	return runCLIIn(t, "", args...)
}

func runCLIIn(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	return runCLIWith(t, cliInput{dir: dir}, args...)
}

// cliInput is what a CLI child gets besides its arguments.
type cliInput struct {
	dir   string   // working directory; the test's own when empty
	env   []string // added to childEnv
	stdin string
}

func runCLIWith(t *testing.T, in cliInput, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binFor(args), args...)
	cmd.Env = childEnv(t.TempDir(), in.env...)
	cmd.Dir = in.dir
	cmd.Stdin = strings.NewReader(in.stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return cliResult{code: cmd.ProcessState.ExitCode(), stdout: so.String(), stderr: se.String()}
}

// doc decodes stdout, which must hold exactly one JSON document.
func (r cliResult) doc(t *testing.T) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("CLI stdout %q: got no JSON object (%v); stderr: %s", r.stdout, err, r.stderr)
	}
	if dec.More() {
		t.Fatalf("CLI stdout %q: got more than one JSON document, want exactly one", r.stdout)
	}
	var rest json.RawMessage
	if err := dec.Decode(&rest); err != io.EOF {
		t.Fatalf("CLI stdout %q: got trailing data, want exactly one JSON document", r.stdout)
	}
	return m
}

func (b *bridge) cli(args ...string) cliResult {
	b.t.Helper()
	return runCLI(b.t, append([]string{"--config-dir", b.configDir, "--port", strconv.Itoa(b.port)}, args...)...)
}
