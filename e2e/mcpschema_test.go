package e2e

// The MCP face against the official JSON Schemas of the revisions it
// speaks (testdata/mcp-schema, copied from modelcontextprotocol/
// modelcontextprotocol; its README names the commit). A wireCheck knows the
// requests a test sent and checks every line the bridge wrote on stdout:
// each message as a JSON-RPC message of that revision, each answer as the
// result or error its request calls for, each notification as a server
// notification, and nothing else (the bridge never sends requests).
//
// The schemas are read with github.com/google/jsonschema-go, the validator
// the official Go SDK uses itself, so no second implementation is written
// here.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The revisions whose schemas are vendored.
const (
	schema2026 = "2026-07-28"
	schema2025 = "2025-11-25"
	schema2503 = "2025-03-26"
)

// mcpSchema is one revision's schema.json, resolved per definition on first
// use.
type mcpSchema struct {
	era  string
	defs string // "$defs" (2020-12) or "definitions" (draft-07)
	doc  map[string]json.RawMessage

	mu       sync.Mutex
	resolved map[string]*jsonschema.Resolved
}

var (
	schemasMu sync.Mutex
	schemas   = map[string]*mcpSchema{}
)

// loadSchema returns the schema of revision era.
func loadSchema(t *testing.T, era string) *mcpSchema {
	t.Helper()
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if s := schemas[era]; s != nil {
		return s
	}
	data, err := os.ReadFile(filepath.Join("testdata", "mcp-schema", era, "schema.json"))
	if err != nil {
		t.Fatalf("schema of %s: %v", era, err)
	}
	s := &mcpSchema{era: era, resolved: map[string]*jsonschema.Resolved{}}
	if err := json.Unmarshal(data, &s.doc); err != nil {
		t.Fatalf("schema of %s: %v", era, err)
	}
	switch {
	case s.doc["$defs"] != nil:
		s.defs = "$defs"
	case s.doc["definitions"] != nil:
		s.defs = "definitions"
	default:
		t.Fatalf("schema of %s has neither $defs nor definitions", era)
	}
	schemas[era] = s
	return s
}

// has reports whether the revision defines def.
func (s *mcpSchema) has(def string) bool {
	var defs map[string]json.RawMessage
	json.Unmarshal(s.doc[s.defs], &defs)
	_, ok := defs[def]
	return ok
}

// validate checks v (decoded JSON) against the definition def: the whole
// document, with a $ref to it at the root, so references inside resolve.
func (s *mcpSchema) validate(def string, v any) error {
	s.mu.Lock()
	rs := s.resolved[def]
	if rs == nil {
		doc := map[string]json.RawMessage{}
		for k, raw := range s.doc {
			doc[k] = raw
		}
		doc["$ref"] = mustJSON("#/" + s.defs + "/" + def)
		var sch jsonschema.Schema
		err := json.Unmarshal(mustJSON(doc), &sch)
		if err == nil {
			rs, err = sch.Resolve(nil)
		}
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("schema %s: %s: %v", s.era, def, err)
		}
		s.resolved[def] = rs
	}
	s.mu.Unlock()
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("not a valid %s of MCP %s: %v", def, s.era, err)
	}
	return nil
}

// wireCheck validates what a bridge wrote against one revision's schema.
type wireCheck struct {
	schema *mcpSchema
	mu     sync.Mutex
	sent   map[string]string // a request's id, as canonical JSON -> its method
}

func newWireCheck(t *testing.T, era string) *wireCheck {
	t.Helper()
	return &wireCheck{schema: loadSchema(t, era), sent: map[string]string{}}
}

// canonicalID is an id's JSON text, re-encoded so 1 and 1.0 differ from
// "1" but spacing does not matter.
func canonicalID(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return string(mustJSON(v))
}

// recordSent notes the requests in a line the client wrote: one message or
// a batch.
func (w *wireCheck) recordSent(line []byte) {
	var msgs []map[string]json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
		json.Unmarshal(line, &msgs)
	} else {
		var m map[string]json.RawMessage
		json.Unmarshal(line, &m)
		msgs = append(msgs, m)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range msgs {
		id, hasID := m["id"]
		var method string
		if hasID && json.Unmarshal(m["method"], &method) == nil {
			w.sent[canonicalID(id)] = method
		}
	}
}

// The definitions a result is checked against, per revision and method. A
// 2026-07-28 answer has a whole-response definition; the 2025 ones name
// the result only.
var (
	responseDefs2026 = map[string]string{
		"server/discover":      "DiscoverResultResponse",
		"tools/list":           "ListToolsResultResponse",
		"tools/call":           "CallToolResultResponse",
		"subscriptions/listen": "SubscriptionsListenResultResponse",
	}
	resultDefs2025 = map[string]string{
		"initialize": "InitializeResult",
		"ping":       "EmptyResult",
		"tools/list": "ListToolsResult",
		"tools/call": "CallToolResult",
	}
	// errorDefs2026 are the 2026-07-28 definitions of an error object by
	// code; -32022 and -32021 define the whole response.
	errorDefs2026 = map[float64]string{
		-32700: "ParseError",
		-32600: "InvalidRequestError",
		-32601: "MethodNotFoundError",
		-32602: "InvalidParamsError",
		-32603: "InternalError",
	}
	errorResponseDefs2026 = map[float64]string{
		-32022: "UnsupportedProtocolVersionError",
		-32021: "MissingRequiredClientCapabilityError",
		-32020: "HeaderMismatchError",
	}
)

// line checks one line the bridge wrote and returns what is wrong with it.
func (w *wireCheck) line(line string) []error {
	s := w.schema
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		return []error{fmt.Errorf("not JSON: %v", err)}
	}
	if arr, ok := v.([]any); ok {
		if s.era != schema2503 {
			return []error{fmt.Errorf("a batch (an array), which MCP %s does not have", s.era)}
		}
		errs := []error{}
		checked := make([]any, len(arr))
		for i, el := range arr {
			checked[i] = nullIDExempt(el)
		}
		if err := s.validate("JSONRPCBatchResponse", checked); err != nil {
			errs = append(errs, err)
		}
		for i, el := range arr {
			for _, err := range w.message(el) {
				errs = append(errs, fmt.Errorf("batch answer %d: %w", i, err))
			}
		}
		return errs
	}
	return w.message(v)
}

// message checks one message the bridge wrote.
func (w *wireCheck) message(v any) []error {
	s := w.schema
	m, ok := v.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("not a JSON-RPC object")}
	}
	var errs []error
	check := func(def string, v any) {
		if err := s.validate(def, v); err != nil {
			errs = append(errs, err)
		}
	}
	m = nullIDExempt(m).(map[string]any)
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	e, isError := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	check("JSONRPCMessage", m)
	switch {
	case hasMethod && hasID:
		errs = append(errs, fmt.Errorf("a request from the bridge, which sends none"))
	case hasMethod:
		check("ServerNotification", m)
	case isError:
		envelope := "JSONRPCErrorResponse"
		if s.era == schema2503 {
			envelope = "JSONRPCError"
		}
		check(envelope, m)
		if s.era == schema2026 {
			if def, ok := errorResponseDefs2026[code]; ok {
				check(def, m)
			} else if def, ok := errorDefs2026[code]; ok {
				check(def, e)
			} else if code <= -32020 && code >= -32099 {
				errs = append(errs, fmt.Errorf("error code %v is reserved by MCP %s and not one it defines", code, s.era))
			}
			if code == -32002 || code == -32042 {
				errs = append(errs, fmt.Errorf("error code %v, which MCP %s forbids", code, s.era))
			}
		}
	default:
		w.mu.Lock()
		method, known := w.sent[canonicalID(mustJSON(m["id"]))]
		w.mu.Unlock()
		if !known {
			errs = append(errs, fmt.Errorf("a result for id %v, which no request of the test had", m["id"]))
			break
		}
		if s.era == schema2026 {
			def := responseDefs2026[method]
			if def == "" {
				def = "JSONRPCResultResponse"
			}
			check(def, m)
			break
		}
		envelope := "JSONRPCResultResponse"
		if s.era == schema2503 {
			envelope = "JSONRPCResponse"
		}
		check(envelope, m)
		if def := resultDefs2025[method]; def != "" && s.has(def) {
			check(def, m["result"])
		}
	}
	return errs
}

// nullIDExempt returns v, or, when v is an error response with id null and
// code -32700 or -32600, a copy with id 0: JSON-RPC 2.0's id null for a
// request whose id could not be used, the README's one departure from the
// schemas, checked in every other respect.
func nullIDExempt(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	id, hasID := m["id"]
	e, isError := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	if !isError || !hasID || id != nil || (code != -32700 && code != -32600) {
		return v
	}
	c := map[string]any{}
	for k, x := range m {
		c[k] = x
	}
	c["id"] = 0
	return c
}

// checkLines fails t for every line that is not valid against the schema.
func (w *wireCheck) checkLines(t *testing.T, lines []string) {
	t.Helper()
	if len(lines) == 0 {
		t.Errorf("the bridge wrote nothing on stdout to check against MCP %s", w.schema.era)
	}
	for _, l := range lines {
		for _, err := range w.line(l) {
			t.Errorf("stdout line %s: %v", truncate(l, 600), err)
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// TestSchemaCheckRejects shows the checker can fail: lines that break each
// revision's schema are refused, lines the bridge writes are accepted.
func TestSchemaCheckRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		era, sent, line string
		ok              bool
	}{
		{schema2026, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}}`, true},
		{schema2026, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, false},
		{schema2026, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"everyone"}}`, false},
		{schema2026, `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, false},
		{schema2026, ``, `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"x"}}`, false},
		{schema2026, ``, `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"1"}}}`, true},
		{schema2026, ``, `{"jsonrpc":"2.0","id":7,"error":{"code":-32050,"message":"x"}}`, false},
		{schema2026, ``, `{"jsonrpc":"2.0","id":null,"result":{"resultType":"complete"}}`, false},
		{schema2026, ``, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`, true},
		{schema2026, ``, `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"x"}}`, false},
		{schema2026, ``, `{"jsonrpc":"2.0","id":1.5,"error":{"code":-32601,"message":"x"}}`, false},
		{schema2026, ``, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, false},
		{schema2026, ``, `[{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}]`, false},
		{schema2025, `{"jsonrpc":"2.0","id":"a","method":"initialize"}`, `{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`, true},
		{schema2025, `{"jsonrpc":"2.0","id":"a","method":"initialize"}`, `{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"2025-11-25","capabilities":{}}}`, false},
		{schema2025, `{"jsonrpc":"2.0","id":2,"method":"tools/call"}`, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text"}]}}`, false},
		{schema2025, ``, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, true},
		{schema2025, ``, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":5}`, false},
		{schema2503, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"x"}}]`, true},
		{schema2503, ``, `[{"jsonrpc":"2.0","id":1,"error":{"code":"bad","message":"x"}}]`, false},
	}
	for _, c := range cases {
		w := newWireCheck(t, c.era)
		w.recordSent([]byte(c.sent))
		errs := w.line(c.line)
		if ok := len(errs) == 0; ok != c.ok {
			t.Errorf("MCP %s, after %s: line %s: got errors %v, want ok %v", c.era, c.sent, c.line, errs, c.ok)
		}
	}
}

// sendChecked writes line to the bridge and records its requests in w.
func sendChecked(b *bridge, w *wireCheck, line string) {
	b.t.Helper()
	w.recordSent([]byte(line))
	b.rpc.sendLine(line)
}

// requestChecked sends one request and returns its id.
func requestChecked(b *bridge, w *wireCheck, id any, method string, params any) {
	b.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	sendChecked(b, w, string(mustJSON(msg)))
}

// stdoutLines is every line the bridge has written so far.
func stdoutLines(b *bridge) []string { return b.stdout.lines.all() }

// idRaw matches a message's id against want's JSON.
func idRaw(m rpcMsg, want string) bool {
	raw, ok := m.fields["id"]
	return ok && canonicalID(raw) == canonicalID(json.RawMessage(want))
}

// awaitAnswer waits for the answer whose id is want (JSON text).
func awaitAnswer(t *testing.T, b *bridge, want string) rpcMsg {
	t.Helper()
	m, _, ok := b.rpc.msgs.await(0, guard, func(m rpcMsg) bool { return m.isResponse() && idRaw(m, want) })
	if !ok {
		t.Fatalf("no answer to id %s within %v; stdout:\n%s", want, guard, strings.Join(stdoutLines(b), "\n"))
	}
	return m
}

// ---------------------------------------------------------------------------
// The era tests: what the schemas and the revisions' MUSTs and SHOULDs ask
// of the five places the bridge got wrong, each line checked.

// initializeChecked opens a 2025-era session asking for version.
func initializeChecked(t *testing.T, b *bridge, w *wireCheck, version string) {
	t.Helper()
	requestChecked(b, w, "init", "initialize", map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "0"},
	})
	m := awaitAnswer(t, b, `"init"`)
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	b.rpc.result(m, &res)
	if res.ProtocolVersion != version {
		t.Fatalf("initialize asking for %s: got %s, want it negotiated", version, m.raw)
	}
	sendChecked(b, w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// server/discover is a method the bridge has (MCP 2026-07-28: servers MUST
// implement it), so a request to it without params, without _meta, or
// without the protocol version in _meta is malformed, -32602, not -32601;
// it pins nothing, so a well-formed probe after it is still answered. On a
// connection that opened with initialize it is refused as of the other era.
func TestMCP_DiscoverWithoutVersionIsInvalidParams(t *testing.T) {
	t.Parallel()
	t.Run("before any era", func(t *testing.T) {
		t.Parallel()
		b, _ := mcpBridge(t, "")
		w := newWireCheck(t, schema2026)
		for _, c := range []struct{ id, params string }{
			{`"no-params"`, ``},
			{`"no-meta"`, `,"params":{}`},
			{`"meta-without-version"`, `,"params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`},
			{`"version-not-a-string"`, `,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}}`},
		} {
			sendChecked(b, w, `{"jsonrpc":"2.0","id":`+c.id+`,"method":"server/discover"`+c.params+`}`)
			if m := awaitAnswer(t, b, c.id); m.errCode() != -32602 || !strings.Contains(m.raw, "io.modelcontextprotocol/protocolVersion") {
				t.Errorf("server/discover %s: got %s, want -32602 naming io.modelcontextprotocol/protocolVersion", c.id, m.raw)
			}
		}
		requestChecked(b, w, "probe", "server/discover", modernParams(nil))
		var disc struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		b.rpc.result(awaitAnswer(t, b, `"probe"`), &disc)
		if !contains(disc.SupportedVersions, modernVersion) {
			t.Errorf("server/discover after the malformed ones: got %v, want %s supported", disc.SupportedVersions, modernVersion)
		}
		w.checkLines(t, stdoutLines(b))
	})
	t.Run("after initialize", func(t *testing.T) {
		t.Parallel()
		b, _ := mcpBridge(t, "")
		w := newWireCheck(t, schema2025)
		initializeChecked(t, b, w, schema2025)
		requestChecked(b, w, "discover", "server/discover", modernParams(nil))
		requestChecked(b, w, "bare", "server/discover", nil)
		for _, id := range []string{`"discover"`, `"bare"`} {
			if m := awaitAnswer(t, b, id); m.errCode() != -32600 || !strings.Contains(m.raw, "initialize") {
				t.Errorf("server/discover %s on a 2025-11-25 connection: got %s, want -32600 saying the connection opened with initialize", id, m.raw)
			}
		}
		w.checkLines(t, stdoutLines(b))
	})
}

// A 2026-07-28 request naming a version the bridge does not serve that way
// gets -32022 whose supported list is what such a request can use, the
// same list server/discover gives: a client that retries with any listed
// version is served. The message says how to reach the 2025 revisions.
func TestMCP_UnsupportedVersionListsOnlyWhatWorks(t *testing.T) {
	t.Parallel()
	b, _ := mcpBridge(t, "")
	w := newWireCheck(t, schema2026)
	var listed []string
	for i, asked := range []string{"2025-11-25", "2025-06-18", "2024-11-05", "1999-01-01"} {
		id := fmt.Sprintf("asked-%d", i)
		requestChecked(b, w, id, "tools/list", map[string]any{"_meta": modernMeta(asked)})
		m := awaitAnswer(t, b, `"`+id+`"`)
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			} `json:"data"`
		}
		json.Unmarshal(m.fields["error"], &e)
		if e.Code != -32022 || e.Data.Requested != asked || len(e.Data.Supported) == 0 {
			t.Fatalf("tools/list asking for %s: got %s, want -32022 with requested and supported", asked, m.raw)
		}
		if !strings.Contains(e.Message, "initialize") {
			t.Errorf("-32022 for %s: message %q, want it to say the 2025 revisions are reached with initialize", asked, e.Message)
		}
		for j, v := range e.Data.Supported {
			retry := fmt.Sprintf("retry-%d-%d", i, j)
			requestChecked(b, w, retry, "tools/list", map[string]any{"_meta": modernMeta(v)})
			if r := awaitAnswer(t, b, `"`+retry+`"`); !r.has("result") {
				t.Errorf("-32022 for %s listed %q as supported; retrying with it got %s, want a result", asked, v, r.raw)
			}
		}
		listed = e.Data.Supported
	}
	requestChecked(b, w, "discover", "server/discover", modernParams(nil))
	var disc struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	b.rpc.result(awaitAnswer(t, b, `"discover"`), &disc)
	if strings.Join(sortedNames(disc.SupportedVersions), ",") != strings.Join(sortedNames(listed), ",") {
		t.Errorf("server/discover supportedVersions %v, -32022 supported %v: want the same list", disc.SupportedVersions, listed)
	}
	w.checkLines(t, stdoutLines(b))
}

// A request whose id is null is refused with -32600 and nothing is done,
// in every era (MCP: a request id is a string or an integer, never null):
// a null-id initialize pins no era, and a null-id tools/call never reaches
// the tab.
func TestMCP_NullIDIsRefused(t *testing.T) {
	t.Parallel()
	nullCall := func(params map[string]any) string {
		return string(mustJSON(map[string]any{"jsonrpc": "2.0", "id": nil, "method": "tools/call", "params": params}))
	}
	// refused checks the null-id line's answer: one -32600, no result.
	refused := func(t *testing.T, b *bridge, what string) {
		t.Helper()
		m, _, ok := b.rpc.msgs.await(0, guard, func(m rpcMsg) bool { return m.has("id") && string(m.fields["id"]) == "null" })
		if !ok {
			t.Fatalf("%s with id null: got no answer, want -32600", what)
		}
		if m.errCode() != -32600 {
			t.Errorf("%s with id null: got %s, want -32600", what, m.raw)
		}
		for _, m := range b.rpc.msgs.all() {
			if m.has("result") && string(m.fields["id"]) == "null" {
				t.Errorf("%s with id null was served: %s", what, m.raw)
			}
		}
	}
	// untouched checks the tab got the second call and not the null-id one.
	untouched := func(t *testing.T, p *page) {
		t.Helper()
		f, _ := p.command(0)
		if args, _ := f.m["args"].(map[string]any); f.str("command") != "scene.describe" || args["which"] != "second" {
			t.Errorf("the tab's first command: got %s, want the second call (the null-id one must not reach it)", f.raw)
		}
	}

	t.Run("before any era", func(t *testing.T) {
		t.Parallel()
		b, _ := mcpBridge(t, "")
		w := newWireCheck(t, schema2026)
		sendChecked(b, w, `{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		refused(t, b, "initialize")
		// Had it been served, the connection would be 2025-era and this
		// answer would have no resultType.
		requestChecked(b, w, "list", "tools/list", modernParams(nil))
		var res struct {
			ResultType string `json:"resultType"`
		}
		b.rpc.result(awaitAnswer(t, b, `"list"`), &res)
		if res.ResultType != "complete" {
			t.Errorf("tools/list with _meta after a null-id initialize: resultType %q, want \"complete\" (no era pinned by the refused request)", res.ResultType)
		}
		w.checkLines(t, stdoutLines(b))
	})
	t.Run(schema2025, func(t *testing.T) {
		t.Parallel()
		b, tok := mcpBridge(t, "")
		w := newWireCheck(t, schema2025)
		initializeChecked(t, b, w, schema2025)
		p, _ := connectPage(t, b, map[string]any{"token": tok})
		sendChecked(b, w, nullCall(map[string]any{"name": "scene.describe", "arguments": map[string]any{"which": "null-id"}}))
		refused(t, b, "tools/call")
		requestChecked(b, w, 2, "tools/call", map[string]any{"name": "scene.describe", "arguments": map[string]any{"which": "second"}})
		awaitAnswer(t, b, "2")
		untouched(t, p)
		w.checkLines(t, stdoutLines(b))
	})
	t.Run(schema2026, func(t *testing.T) {
		t.Parallel()
		b, tok := mcpBridge(t, "")
		w := newWireCheck(t, schema2026)
		p, _ := connectPage(t, b, map[string]any{"token": tok})
		sendChecked(b, w, nullCall(modernParams(map[string]any{"name": "scene.describe", "arguments": map[string]any{"which": "null-id"}})))
		refused(t, b, "tools/call")
		requestChecked(b, w, 2, "tools/call", modernParams(map[string]any{"name": "scene.describe", "arguments": map[string]any{"which": "second"}}))
		awaitAnswer(t, b, "2")
		untouched(t, p)
		w.checkLines(t, stdoutLines(b))
	})
}

// maxBatch is the most messages the bridge takes in one batch.
const maxBatch = 64

// JSON-RPC batches are served on a connection that negotiated 2025-03-26,
// the one revision that has them: each request answered, in one array, the
// notifications not, a batch of notifications alone with nothing; a page
// call in a batch holds the array until it is answered. Every other era,
// and a 2025-03-26 batch that is empty or too long, gets one -32600 and
// nothing in it is done.
func TestMCP_BatchesOnlyIn2025_03_26(t *testing.T) {
	t.Parallel()
	// batchAnswer waits for the next array line after index from.
	batchAnswer := func(t *testing.T, b *bridge, from int) (map[string]map[string]json.RawMessage, int) {
		t.Helper()
		m, i, ok := b.rpc.msgs.await(from, guard, func(m rpcMsg) bool { return m.batch != nil })
		if !ok {
			t.Fatalf("got no batch answer; stdout:\n%s", strings.Join(stdoutLines(b), "\n"))
		}
		byID := map[string]map[string]json.RawMessage{}
		for _, a := range m.batch {
			id := canonicalID(a["id"])
			if _, dup := byID[id]; dup && id != "null" {
				t.Errorf("batch answer %s: id %s answered twice", m.raw, id)
			}
			byID[id] = a
		}
		return byID, i
	}
	code := func(a map[string]json.RawMessage) int {
		return rpcMsg{fields: a}.errCode()
	}

	t.Run(schema2503, func(t *testing.T) {
		t.Parallel()
		b, tok := mcpBridge(t, "")
		w := newWireCheck(t, schema2503)
		initializeChecked(t, b, w, schema2503)

		from := b.rpc.msgs.len()
		sendChecked(b, w, `[{"jsonrpc":"2.0","id":2,"method":"ping"},`+
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}},`+
			`{"jsonrpc":"2.0","id":3,"method":"tools/list"},`+
			`{"jsonrpc":"2.0","id":"four","method":"no/such/method"}]`)
		got, at := batchAnswer(t, b, from)
		if len(got) != 3 || got["2"]["result"] == nil || got["3"]["result"] == nil || code(got[`"four"`]) != -32601 {
			t.Errorf("batch of ping, a notification, tools/list and an unknown method: got %v, want three answers: two results and -32601", got)
		}

		// Notifications alone: nothing is written, so the next answer is
		// the ping's.
		sendChecked(b, w, `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98}},{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
		requestChecked(b, w, 5, "ping", nil)
		_, pong, _ := b.rpc.msgs.await(at+1, guard, func(m rpcMsg) bool { return m.isResponse() && m.idIs(5) })
		if pong != at+1 {
			t.Errorf("a batch of notifications alone was answered: %v", b.rpc.msgs.all()[at+1:])
		}

		// A page call holds the array until the tab answers.
		p, _ := connectPage(t, b, map[string]any{"token": tok})
		from = b.rpc.msgs.len()
		sendChecked(b, w, `[{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"scene.describe","arguments":{"limit":1}}},{"jsonrpc":"2.0","id":7,"method":"ping"}]`)
		got, at = batchAnswer(t, b, from)
		var res toolResult
		json.Unmarshal(got["6"]["result"], &res)
		if len(got) != 2 || got["7"]["result"] == nil || res.IsError || !strings.Contains(res.text(), "The design has 3 shapes.") {
			t.Errorf("batch of a page call and ping: got %v, want both answered, the call with the tab's reply", got)
		}
		if f, _ := p.command(0); f.str("command") != "scene.describe" {
			t.Errorf("the tab got %s, want the batch's scene.describe", f.raw)
		}

		// A message that is no object, and initialize, are refused in
		// place; the rest is served.
		from = at + 1
		sendChecked(b, w, `[1,{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}},{"jsonrpc":"2.0","id":9,"method":"ping"}]`)
		got, at = batchAnswer(t, b, from)
		if len(got) != 3 || code(got["null"]) != -32600 || code(got["8"]) != -32600 || got["9"]["result"] == nil {
			t.Errorf("batch of 1, initialize and ping: got %v, want -32600 (id null), -32600 and a result", got)
		}

		// Empty, and over the bound: one -32600, nothing done.
		from = at + 1
		sendChecked(b, w, `[]`)
		pings := make([]string, maxBatch+1)
		for i := range pings {
			pings[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 100+i)
		}
		sendChecked(b, w, "["+strings.Join(pings, ",")+"]")
		requestChecked(b, w, 10, "ping", nil)
		awaitAnswer(t, b, "10")
		var refusals []string
		for _, m := range b.rpc.msgs.all()[from:] {
			switch {
			case m.batch != nil:
				t.Errorf("an empty or too long batch was served: %s", truncate(m.raw, 300))
			case m.idIs(10):
			case m.errCode() == -32600 && string(m.fields["id"]) == "null":
				refusals = append(refusals, m.raw)
			default:
				t.Errorf("after an empty and a too long batch: got %s", m.raw)
			}
		}
		if len(refusals) != 2 || !strings.Contains(refusals[1], fmt.Sprint(maxBatch)) {
			t.Errorf("an empty and a %d-message batch: got %q, want one -32600 each, the second naming the bound %d", maxBatch+1, refusals, maxBatch)
		}
		w.checkLines(t, stdoutLines(b))
	})

	for _, era := range []struct{ name, version, schema string }{
		{"before any era", "", schema2026},
		{"2025-06-18", "2025-06-18", schema2025},
		{schema2025, schema2025, schema2025},
		{schema2026, "", schema2026},
	} {
		t.Run("refused "+era.name, func(t *testing.T) {
			t.Parallel()
			b, _ := mcpBridge(t, "")
			w := newWireCheck(t, era.schema) // 2025-06-18 has no schema here; its messages are those of 2025-11-25
			if era.version != "" {
				initializeChecked(t, b, w, era.version)
			}
			if era.name == schema2026 {
				requestChecked(b, w, "pin", "server/discover", modernParams(nil))
				awaitAnswer(t, b, `"pin"`)
			}
			from := b.rpc.msgs.len()
			ping := map[string]any{"jsonrpc": "2.0", "id": "in-batch", "method": "ping"}
			list := map[string]any{"jsonrpc": "2.0", "id": "list-in-batch", "method": "tools/list", "params": modernParams(nil)}
			sendChecked(b, w, string(mustJSON([]any{ping, list})))
			if era.version != "" {
				requestChecked(b, w, "after", "ping", nil)
			} else {
				requestChecked(b, w, "after", "server/discover", modernParams(nil))
			}
			awaitAnswer(t, b, `"after"`)
			var refusals int
			for _, m := range b.rpc.msgs.all()[from:] {
				switch {
				case m.errCode() == -32600 && string(m.fields["id"]) == "null":
					refusals++
				case idRaw(m, `"after"`):
				default:
					t.Errorf("a batch on a %s connection: got %s, want one -32600 and nothing served", era.name, m.raw)
				}
			}
			if refusals != 1 {
				t.Errorf("a batch on a %s connection: got %d refusals, want one -32600", era.name, refusals)
			}
			w.checkLines(t, stdoutLines(b))
		})
	}
}

// teeTransport runs the bridge for the SDK as mcp.CommandTransport does,
// and copies what the bridge writes on stdout, as the bytes it wrote, into
// stdout: the SDK's own tap sees messages only once they are decoded.
type teeTransport struct {
	cmd    *exec.Cmd
	stdout *lineLog
}

func (t *teeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	out, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	in, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	return (&mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(out, t.stdout)), Writer: &childStdin{in, t.cmd}}).Connect(ctx)
}

// childStdin is the bridge's stdin; closing it ends the bridge as an MCP
// host does: stdin EOF, then up to guard for the exit, then SIGKILL.
type childStdin struct {
	io.WriteCloser
	cmd *exec.Cmd
}

func (c *childStdin) Close() error {
	err := c.WriteCloser.Close()
	exited := make(chan struct{})
	go func() { c.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(guard):
		c.cmd.Process.Kill()
		<-exited
	}
	return err
}

// startCheckedSDKBridge is startSDKBridge with the bridge's stdout kept, so
// every line can be checked against the schema.
func startCheckedSDKBridge(t *testing.T, version string) (*sdkBridge, *lineLog) {
	t.Helper()
	stdout := newLineLog(nil)
	b := startSDKBridgeOver(t, version, func(cmd *exec.Cmd) mcp.Transport {
		return &teeTransport{cmd: cmd, stdout: stdout}
	})
	return b, stdout
}

// A tools/call of a tool that neither the bridge nor the connected tab lists
// is -32602 (both revisions: a server SHOULD answer an unknown tool so),
// and never reaches the tab; with no tab it stays protocol.md §3.5's
// isError with the fix. Through the official SDK, in each era.
func TestMCP_SDKUnknownToolIsInvalidParams(t *testing.T) {
	t.Parallel()
	for _, era := range []struct{ version, schema string }{
		{sdkLegacyVersion, schema2025},
		{sdkModernVersion, schema2026},
	} {
		t.Run(era.version, func(t *testing.T) {
			t.Parallel()
			b, stdout := startCheckedSDKBridge(t, era.version)
			if v := b.cs.InitializeResult().ProtocolVersion; v != era.version {
				t.Fatalf("SDK negotiated %s, want %s; wire:\n%s", v, era.version, b.wireText())
			}

			r := b.callTool(t, "no.such.tool", map[string]any{})
			if text := sdkText(r); !r.IsError || !strings.Contains(text, "wait_for_connection") {
				t.Errorf("an unknown tool with no tab: got IsError %v, %q; want isError telling to call wait_for_connection (§3.5)", r.IsError, text)
			}

			from := b.listChanged.len()
			p := b.attachPage(defaultTools, sdkPageHandler(nil))
			b.awaitToolsAfterChange(t, from, "scene.describe", "render.png")
			ctx, cancel := sdkCtx()
			res, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: "no.such.tool", Arguments: map[string]any{}})
			cancel()
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != -32602 {
				t.Errorf("an unknown tool with the tab's list here: got result %+v, error %v; want JSON-RPC error -32602", res, err)
			}
			b.checkEnvelopeCall(t) // a listed tool still goes through, after it
			for _, f := range p.frames.all() {
				if f.str("command") == "no.such.tool" {
					t.Errorf("the unknown tool reached the tab: %s", f.raw)
				}
			}
			b.closeSession(t)
			w := newWireCheck(t, era.schema)
			for _, m := range b.wire.all() {
				if m.out {
					w.recordSent([]byte(m.raw))
				}
			}
			stdout.finish()
			w.checkLines(t, stdout.lines.all())
		})
	}
}

// sdkText joins a result's text blocks.
func sdkText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
