package e2e

// Interoperability with a real MCP client: the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), spawning the built binary over
// stdio exactly as an MCP host would, in each of the two eras it speaks.
//
// The SDK picks the era from ClientSessionOptions.ProtocolVersion:
//   - below 2026-07-28 it sends initialize with that version and
//     notifications/initialized, then list changes arrive unsolicited;
//   - at 2026-07-28 it probes with server/discover, carries
//     io.modelcontextprotocol/protocolVersion and clientCapabilities in every
//     request's _meta, and opens subscriptions/listen for tool list changes.
//     On an error from server/discover it silently falls back to initialize,
//     so the modern test checks the wire, not only that calls succeed.
//
// A tap on the transport records every message in both directions, so the
// tests can assert what the SDK itself does not check (resultType,
// subscriptionId, ttlMs).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	sdkLegacyVersion = "2025-11-25"
	sdkModernVersion = "2026-07-28"

	keyProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	keyClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	keyServerInfo      = "io.modelcontextprotocol/serverInfo"
	keySubscriptionID  = "io.modelcontextprotocol/subscriptionId"

	methodDiscover     = "server/discover"
	methodListen       = "subscriptions/listen"
	methodAcknowledged = "notifications/subscriptions/acknowledged"
)

// ---------------------------------------------------------------------------
// The tap: every JSON-RPC message between the SDK and the bridge.

// wireMsg is one message as it crossed stdio; out is true for the client's.
type wireMsg struct {
	out    bool
	raw    string
	fields map[string]json.RawMessage
}

func (m wireMsg) has(k string) bool { _, ok := m.fields[k]; return ok }

func (m wireMsg) method() string {
	var s string
	json.Unmarshal(m.fields["method"], &s)
	return s
}

func (m wireMsg) isRequest() bool      { return m.has("method") && m.has("id") }
func (m wireMsg) isNotification() bool { return m.has("method") && !m.has("id") }
func (m wireMsg) isResponse() bool     { return !m.has("method") && m.has("id") }

// field returns the raw JSON at a path of object keys, or nil.
func (m wireMsg) field(path ...string) json.RawMessage {
	return rawAt(mustJSON(m.fields), path...)
}

func rawAt(raw json.RawMessage, path ...string) json.RawMessage {
	for _, k := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		var ok bool
		if raw, ok = obj[k]; !ok {
			return nil
		}
	}
	return raw
}

// sameJSON reports whether two JSON texts hold the same value (so the
// number 2 and the string "2" differ).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprintf("%T %v", x, x) == fmt.Sprintf("%T %v", y, y)
}

func jsonString(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

type tapTransport struct {
	inner mcp.Transport
	log   *stream[wireMsg]
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, log: t.log}, nil
}

type tapConn struct {
	mcp.Connection
	log *stream[wireMsg]
}

func (c *tapConn) record(out bool, msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		data = []byte(fmt.Sprintf("%q", err.Error()))
	}
	m := wireMsg{out: out, raw: string(data)}
	json.Unmarshal(data, &m.fields)
	c.log.add(m)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.record(false, msg)
	}
	return msg, err
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	// Recorded before it is written, so a request always precedes its
	// response in the log.
	c.record(true, msg)
	return c.Connection.Write(ctx, msg)
}

// ---------------------------------------------------------------------------
// The bridge under an SDK client.

type sdkBridge struct {
	t           *testing.T
	cmd         *exec.Cmd
	cs          *mcp.ClientSession
	port        int
	secret      string
	stderr      *lineLog
	wire        *stream[wireMsg]
	listChanged *stream[*mcp.ToolListChangedRequest]
	closed      bool
}

// startSDKBridge runs the binary as an MCP host would, paired in advance
// with a seeded secret, and connects the SDK client asking for version.
func startSDKBridge(t *testing.T, version string) *sdkBridge {
	t.Helper()
	// TerminateDuration is how long Close waits for an exit on stdin EOF
	// before it signals: the guard, so that a slow exit is a failure.
	return startSDKBridgeOver(t, version, func(cmd *exec.Cmd) mcp.Transport {
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: guard}
	})
}

// startSDKBridgeOver is startSDKBridge with the SDK's transport to the
// bridge's process made by over (its wire is tapped either way).
func startSDKBridgeOver(t *testing.T, version string, over func(cmd *exec.Cmd) mcp.Transport) *sdkBridge {
	t.Helper()
	configDir := filepath.Join(t.TempDir(), "config")
	b := &sdkBridge{
		t: t, port: freePort(t), secret: newSecret(), stderr: newLineLog(nil),
		wire: newStream[wireMsg](), listChanged: newStream[*mcp.ToolListChangedRequest](),
	}
	seedPairing(t, configDir, map[string]any{testOrigin: pairingFor(b.secret)})
	b.cmd = exec.Command(binPath, "--origin", testOrigin, "--port", strconv.Itoa(b.port), "--config-dir", configDir)
	b.cmd.Env = childEnv(t.TempDir())
	b.cmd.Stderr = b.stderr
	b.cmd.WaitDelay = 2 * time.Second
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-go-sdk", Version: "0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(_ context.Context, req *mcp.ToolListChangedRequest) { b.listChanged.add(req) },
	})
	transport := &tapTransport{inner: over(b.cmd), log: b.wire}
	ctx, cancel := sdkCtx()
	defer cancel()
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		if b.cmd.Process != nil {
			b.cmd.Process.Kill()
		}
		t.Fatalf("SDK Connect asking for %s: %v\nwire:\n%s\nstderr:\n%s", version, err, b.wireText(), b.stderr)
	}
	b.cs = cs
	t.Cleanup(b.cleanup)
	if _, _, ok := b.stderr.lines.await(0, guard, listeningRE.MatchString); !ok {
		t.Fatalf("bridge never said it was listening; stderr:\n%s", b.stderr)
	}
	return b
}

func (b *sdkBridge) cleanup() {
	if !b.closed {
		b.cs.Close()
		b.closed = true
	}
	b.stderr.finish()
	checkStderr(b.t, b.stderr)
}

// closeSession closes the session as an MCP host does (stdin EOF, then a
// wait of TerminateDuration, then SIGTERM) and reports how it went.
func (b *sdkBridge) closeSession(t *testing.T) {
	t.Helper()
	start := time.Now()
	err := b.cs.Close()
	took := time.Since(start)
	b.closed = true
	if err != nil {
		t.Errorf("closing the SDK session: %v; stderr:\n%s", err, b.stderr)
	}
	if took >= guard {
		t.Errorf("bridge took %v to exit after its stdin closed; want an exit on stdin EOF, not the SDK's SIGTERM after %v", took.Round(time.Millisecond), guard)
	}
	if ps := b.cmd.ProcessState; ps == nil || ps.ExitCode() != 0 {
		t.Errorf("bridge exit: got %v, want exit status 0", ps)
	}
}

func (b *sdkBridge) wireText() string {
	var sb strings.Builder
	for _, m := range b.wire.all() {
		dir := "<-"
		if m.out {
			dir = "->"
		}
		fmt.Fprintf(&sb, "  %s %s\n", dir, m.raw)
	}
	return sb.String()
}

// awaitWire waits for a message at index >= from.
func (b *sdkBridge) awaitWire(t *testing.T, from int, what string, match func(wireMsg) bool) (wireMsg, int) {
	t.Helper()
	m, i, ok := b.wire.await(from, guard, match)
	if !ok {
		t.Fatalf("got no %s within %v; wire:\n%s", what, guard, b.wireText())
	}
	return m, i
}

// request returns the client's first request with method at index >= from.
func (b *sdkBridge) request(t *testing.T, from int, method string) (wireMsg, int) {
	t.Helper()
	return b.awaitWire(t, from, "request "+method, func(m wireMsg) bool { return m.out && m.isRequest() && m.method() == method })
}

// responseTo returns the bridge's response to req.
func (b *sdkBridge) responseTo(t *testing.T, req wireMsg) wireMsg {
	t.Helper()
	m, _ := b.awaitWire(t, 0, "response to "+req.raw, func(m wireMsg) bool {
		return !m.out && m.isResponse() && sameJSON(m.fields["id"], req.fields["id"])
	})
	return m
}

func sdkCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), guard)
}

func (b *sdkBridge) toolNames(t *testing.T) []string {
	t.Helper()
	ctx, cancel := sdkCtx()
	defer cancel()
	res, err := b.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v; stderr:\n%s", err, b.stderr)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// awaitToolsAfterChange waits for ToolListChangedHandler calls from index
// from on, listing the tools after each, until the list holds want.
func (b *sdkBridge) awaitToolsAfterChange(t *testing.T, from int, want ...string) []string {
	t.Helper()
	deadline := time.Now().Add(guard)
	var names []string
	for {
		_, i, ok := b.listChanged.await(from, time.Until(deadline), nil)
		if !ok {
			t.Fatalf("ToolListChangedHandler: got %d calls, tools/list %v; want a call after which tools/list holds %v; wire:\n%s",
				b.listChanged.len()-from, names, want, b.wireText())
		}
		names = b.toolNames(t)
		if !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(names, w) }) {
			return names
		}
		from = i + 1
	}
}

// attachPage connects an answering page with b's pairing secret and sends
// its tool list. It belongs to b's test, not to a subtest.
func (b *sdkBridge) attachPage(tools []any, h pageHandler) *page {
	b.t.Helper()
	p := openPage(b.t, b.port, false)
	p.serve(h)
	wantHello(b.t, p.handshake(map[string]any{"secret": b.secret}), b.port)
	p.mustSend(map[string]any{"tools": tools})
	return p
}

func (b *sdkBridge) callTool(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := sdkCtx()
	defer cancel()
	res, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v; stderr:\n%s", name, err, b.stderr)
	}
	return res
}

// ---------------------------------------------------------------------------
// The page both tests attach.

// smallPNG is a real 2x2 PNG image.
func smallPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 0xc0, A: 0xff})
	img.Set(1, 1, color.RGBA{B: 0xc0, A: 0xff})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sdkPageHandler plays the tab behind defaultTools: scene.describe answers
// with a say line, render.png with a dataUrl of pngData.
func sdkPageHandler(pngData []byte) pageHandler {
	return func(command string, args map[string]any) map[string]any {
		if command == "render.png" {
			return map[string]any{"ok": true, "width": 2, "height": 2,
				"dataUrl": "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngData)}
		}
		return defaultHandler(command, args)
	}
}

// sdkEnvelope parses the page envelope out of the leading text block: the
// JSON that follows an optional say line and a blank line.
func sdkEnvelope(t *testing.T, r *mcp.CallToolResult) (say string, env map[string]any) {
	t.Helper()
	if len(r.Content) == 0 {
		t.Fatalf("tool result: got no content, want a leading text block")
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tool result: got leading %T, want *mcp.TextContent", r.Content[0])
	}
	js := tc.Text
	if !strings.HasPrefix(js, "{") {
		if say, js, ok = strings.Cut(tc.Text, "\n\n"); !ok {
			t.Fatalf("tool result text %q: got no JSON envelope", tc.Text)
		}
	}
	if err := json.Unmarshal([]byte(js), &env); err != nil {
		t.Fatalf("tool result text %q: envelope is not JSON: %v", tc.Text, err)
	}
	return say, env
}

// checkEnvelopeCall calls scene.describe and checks the text it returns.
func (b *sdkBridge) checkEnvelopeCall(t *testing.T) {
	t.Helper()
	r := b.callTool(t, "scene.describe", map[string]any{"limit": 5})
	if r.IsError {
		t.Errorf("scene.describe: got IsError, want a success")
	}
	say, env := sdkEnvelope(t, r)
	if say != "The design has 3 shapes." {
		t.Errorf("say line: got %q, want the page's %q", say, "The design has 3 shapes.")
	}
	if _, ok := env["id"]; ok {
		t.Errorf("envelope %v: got the transport id, want it removed", env)
	}
	if env["ok"] != true || env["shapes"] != float64(3) || fmt.Sprint(env["args"]) != "map[limit:5]" {
		t.Errorf("envelope: got %v, want the page's ok, shapes 3 and the call's args", env)
	}
	if len(r.Content) != 1 {
		t.Errorf("content: got %d blocks, want the one text block", len(r.Content))
	}
}

// checkImageCall calls render.png and checks the image block.
func (b *sdkBridge) checkImageCall(t *testing.T, pngData []byte) {
	t.Helper()
	r := b.callTool(t, "render.png", map[string]any{})
	if r.IsError {
		t.Errorf("render.png: got IsError, want a success")
	}
	if len(r.Content) != 2 {
		t.Fatalf("content: got %d blocks (%v), want a text block and an image block", len(r.Content), r.Content)
	}
	img, ok := r.Content[1].(*mcp.ImageContent)
	if !ok {
		t.Fatalf("second block: got %T, want *mcp.ImageContent", r.Content[1])
	}
	if img.MIMEType != "image/png" || !bytes.Equal(img.Data, pngData) {
		t.Errorf("image: got mimeType %q and %d bytes, want image/png and the page's %d bytes", img.MIMEType, len(img.Data), len(pngData))
	}
	if _, err := png.Decode(bytes.NewReader(img.Data)); err != nil {
		t.Errorf("image data does not decode as PNG: %v", err)
	}
	_, env := sdkEnvelope(t, r)
	if _, ok := env["dataUrl"]; ok || env["width"] != float64(2) {
		t.Errorf("text envelope: got %v, want width kept and dataUrl removed", env)
	}
}

// ---------------------------------------------------------------------------
// The tests.

// The SDK in the 2025 era: initialize negotiates 2025-11-25, the tab's tools
// arrive by an unsolicited list_changed, calls go through, images become
// ImageContent.
func TestMCP_SDKLegacy(t *testing.T) {
	t.Parallel()
	pngData := smallPNG(t)
	b := startSDKBridge(t, sdkLegacyVersion)

	t.Run("initialize negotiates 2025-11-25 and names the server", func(t *testing.T) {
		req, _ := b.request(t, 0, "initialize")
		if first := b.wire.all()[0]; first.method() != "initialize" {
			t.Errorf("first client message: got %s, want initialize (no server/discover probe in the 2025 era)", first.raw)
		}
		if v := jsonString(req.field("params", "protocolVersion")); v != sdkLegacyVersion {
			t.Fatalf("initialize asked for %q, want %q", v, sdkLegacyVersion)
		}
		ir := b.cs.InitializeResult()
		if ir.ProtocolVersion != sdkLegacyVersion {
			t.Errorf("negotiated protocolVersion: got %q, want %q", ir.ProtocolVersion, sdkLegacyVersion)
		}
		if ir.ServerInfo == nil || ir.ServerInfo.Name != "stitchslop-connector" || ir.ServerInfo.Version == "" {
			t.Errorf("serverInfo: got %+v, want name stitchslop-connector and a version", ir.ServerInfo)
		}
		if ir.Capabilities == nil || ir.Capabilities.Tools == nil || !ir.Capabilities.Tools.ListChanged {
			t.Errorf("capabilities: got %+v, want tools.listChanged true", ir.Capabilities)
		}
		b.awaitWire(t, 0, "notifications/initialized", func(m wireMsg) bool {
			return m.out && m.isNotification() && m.method() == "notifications/initialized"
		})
	})
	t.Run("tools/list before a tab holds only wait_for_connection", func(t *testing.T) {
		if names := b.toolNames(t); !slices.Equal(names, bridgeTools) {
			t.Errorf("tools: got %v, want %v", names, bridgeTools)
		}
	})

	from := b.listChanged.len()
	b.attachPage(defaultTools, sdkPageHandler(pngData))
	if !t.Run("the tab's tools reach ToolListChangedHandler and tools/list", func(t *testing.T) {
		names := b.awaitToolsAfterChange(t, from, "scene.describe", "render.png")
		if !slices.Contains(names, "wait_for_connection") {
			t.Errorf("tools: got %v, want wait_for_connection kept", names)
		}
	}) {
		return
	}
	t.Run("a page tool's reply comes back as the envelope text", b.checkEnvelopeCall)
	t.Run("a dataUrl reply becomes ImageContent with the same bytes", func(t *testing.T) { b.checkImageCall(t, pngData) })
	t.Run("stdin EOF ends the bridge with exit 0", b.closeSession)
}

// The SDK at 2026-07-28: server/discover answers for the modern era, tools
// are listed and called with per-request _meta, and the tab's tools arrive
// as a list_changed on the subscriptions/listen stream.
func TestMCP_SDKModern(t *testing.T) {
	t.Parallel()
	pngData := smallPNG(t)
	b := startSDKBridge(t, sdkModernVersion)

	if !t.Run("server/discover answers 2026-07-28 so the SDK stays modern", func(t *testing.T) {
		req, _ := b.request(t, 0, methodDiscover)
		t.Logf("probe: %s", req.raw)
		resp := b.responseTo(t, req)
		t.Logf("answer: %s", resp.raw)
		if resp.has("error") {
			t.Fatalf("server/discover: got error %s, want a result; the SDK fell back to initialize and negotiated %q; wire:\n%s",
				resp.fields["error"], b.cs.InitializeResult().ProtocolVersion, b.wireText())
		}
		if rt := jsonString(resp.field("result", "resultType")); rt != "complete" {
			t.Errorf("resultType: got %q, want \"complete\"", rt)
		}
		var versions []string
		json.Unmarshal(resp.field("result", "supportedVersions"), &versions)
		if !slices.Contains(versions, sdkModernVersion) {
			t.Errorf("supportedVersions: got %v, want it to hold %s", versions, sdkModernVersion)
		}
		var tools struct {
			ListChanged bool `json:"listChanged"`
		}
		if raw := resp.field("result", "capabilities", "tools"); raw == nil || json.Unmarshal(raw, &tools) != nil {
			t.Errorf("capabilities.tools: got %s, want an object", raw)
		} else if !tools.ListChanged {
			t.Errorf("capabilities.tools.listChanged: got false, want true (the SDK subscribes only then)")
		}
		if name := jsonString(resp.field("result", "_meta", keyServerInfo, "name")); name != "stitchslop-connector" {
			t.Errorf("_meta[%s].name: got %q, want stitchslop-connector", keyServerInfo, name)
		}
		if ir := b.cs.InitializeResult(); ir.ProtocolVersion != sdkModernVersion {
			t.Errorf("negotiated protocolVersion: got %q, want %q", ir.ProtocolVersion, sdkModernVersion)
		}
		for _, m := range b.wire.all() {
			if m.out && m.method() == "initialize" {
				t.Errorf("client sent %s: the SDK fell back to the 2025 era", m.raw)
			}
		}
	}) {
		return
	}

	var listen wireMsg
	if !t.Run("subscriptions/listen for toolsListChanged is acknowledged with its id", func(t *testing.T) {
		listen, _ = b.request(t, 0, methodListen)
		t.Logf("listen: %s", listen.raw)
		if string(listen.field("params", "notifications", "toolsListChanged")) != "true" {
			t.Fatalf("listen %s: want notifications.toolsListChanged true", listen.raw)
		}
		ack, _ := b.awaitWire(t, 0, methodAcknowledged, func(m wireMsg) bool { return !m.out && m.method() == methodAcknowledged })
		t.Logf("ack: %s", ack.raw)
		if id := ack.field("params", "_meta", keySubscriptionID); !sameJSON(id, listen.fields["id"]) {
			t.Errorf("ack _meta[%s]: got %s, want the listen request's id %s", keySubscriptionID, id, listen.fields["id"])
		}
		if string(ack.field("params", "notifications", "toolsListChanged")) != "true" {
			t.Errorf("ack %s: want notifications.toolsListChanged true", ack.raw)
		}
	}) {
		return
	}

	t.Run("tools/list before a tab holds only wait_for_connection", func(t *testing.T) {
		if names := b.toolNames(t); !slices.Equal(names, bridgeTools) {
			t.Errorf("tools: got %v, want %v", names, bridgeTools)
		}
		req, _ := b.request(t, 0, "tools/list")
		if v := jsonString(req.field("params", "_meta", keyProtocolVersion)); v != sdkModernVersion {
			t.Errorf("tools/list sent %s, want _meta[%s] %s", req.raw, keyProtocolVersion, sdkModernVersion)
		}
		resp := b.responseTo(t, req)
		if rt := jsonString(resp.field("result", "resultType")); rt != "complete" {
			t.Errorf("tools/list resultType: got %q in %s, want \"complete\"", rt, resp.raw)
		}
		if ttl := resp.field("result", "ttlMs"); string(ttl) != "0" {
			t.Errorf("tools/list ttlMs: got %s, want 0 (the list changes when a tab attaches)", ttl)
		}
	})

	from := b.listChanged.len()
	b.attachPage(defaultTools, sdkPageHandler(pngData))
	if !t.Run("the tab's tools arrive on the subscription and in tools/list", func(t *testing.T) {
		names := b.awaitToolsAfterChange(t, from, "scene.describe", "render.png")
		if !slices.Contains(names, "wait_for_connection") {
			t.Errorf("tools: got %v, want wait_for_connection kept", names)
		}
		for _, m := range b.wire.all() {
			if !m.out && m.method() == "notifications/tools/list_changed" {
				if id := m.field("params", "_meta", keySubscriptionID); !sameJSON(id, listen.fields["id"]) {
					t.Errorf("list_changed %s: got subscriptionId %s, want the listen request's id %s", m.raw, id, listen.fields["id"])
				}
			}
		}
	}) {
		return
	}
	t.Run("a page tool's reply comes back as the envelope text", func(t *testing.T) {
		b.checkEnvelopeCall(t)
		req, _ := b.request(t, 0, "tools/call")
		if v := jsonString(req.field("params", "_meta", keyProtocolVersion)); v != sdkModernVersion {
			t.Errorf("tools/call sent %s, want _meta[%s] %s", req.raw, keyProtocolVersion, sdkModernVersion)
		}
		if rt := jsonString(b.responseTo(t, req).field("result", "resultType")); rt != "complete" {
			t.Errorf("tools/call resultType: got %q, want \"complete\"", rt)
		}
	})
	t.Run("a dataUrl reply becomes ImageContent with the same bytes", func(t *testing.T) { b.checkImageCall(t, pngData) })
	t.Run("the bridge sent no request and kept the subscription open", func(t *testing.T) {
		for _, m := range b.wire.all() {
			if !m.out && m.isRequest() {
				t.Errorf("bridge sent request %s; the 2026-07-28 server sends none", m.raw)
			}
			if !m.out && m.isResponse() && sameJSON(m.fields["id"], listen.fields["id"]) {
				t.Errorf("bridge answered subscriptions/listen with %s while the client still listened", m.raw)
			}
		}
	})
	t.Run("stdin EOF ends the bridge with exit 0", b.closeSession)
}
