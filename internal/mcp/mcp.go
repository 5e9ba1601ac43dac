// Package mcp is the bridge's MCP face (protocol.md §3): JSON-RPC 2.0, one
// message per line on stdin and stdout. stdout carries nothing else, ever:
// every write to it goes through Server.send.
package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
)

// MaxLine bounds one incoming message. Arguments may carry a file as a data
// URL, so it is generous; a longer line is answered with -32600 and skipped.
const MaxLine = 64 << 20

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// LatestProtocol is answered when the client asks for a version we do not know.
const LatestProtocol = "2025-06-18"

// SupportedProtocols are the MCP revisions whose tool features this server
// implements; the client's choice is echoed when it is one of them.
var SupportedProtocols = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// ServerName is serverInfo.name, fixed by protocol.md §3.2.
const ServerName = "stitchslop-connector"

// Instructions tell the model how the connection comes about.
const Instructions = "This server connects you to the embroidery design open in the user's Stitch Slop browser tab. " +
	"The tab attaches to this bridge on its own: the user has already switched the connection on, and there is nothing for them to press. " +
	"If no Stitch Slop tools are listed yet, call wait_for_connection; it blocks until the tab attaches and then describes the design. " +
	"If it times out, call it again. Only if it keeps timing out, ask the user whether the Allow agent connections switch is on in their Stitch Slop tab. " +
	"Relay the `say` line of a result to the user; it is the app's own sentence."

// Server runs one MCP session over a pair of streams.
type Server struct {
	Hub    *hub.Hub
	Origin string
	Port   int
	Log    *slog.Logger
	// Activity is called for every message the client sends.
	Activity func()
	// Initialized is called once, when the client sends initialize.
	Initialized func()

	out         io.Writer
	outMu       sync.Mutex
	initSeen    atomic.Bool
	notifyReady atomic.Bool
	calls       sync.WaitGroup
}

// message is one incoming JSON-RPC object. Members are matched by their
// exact names (encoding/json's struct matching would also take "ID" or
// "Method").
type message struct {
	JSONRPC json.RawMessage
	ID      json.RawMessage
	Method  json.RawMessage
	Params  json.RawMessage
	// Present on responses, which we never ask for and so ignore.
	Result json.RawMessage
	Error  json.RawMessage
}

func parseMessage(line []byte) (message, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return message{}, err
	}
	return message{JSONRPC: raw["jsonrpc"], ID: raw["id"], Method: raw["method"], Params: raw["params"],
		Result: raw["result"], Error: raw["error"]}, nil
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

var null = json.RawMessage("null")

// Serve reads messages from in and answers on out until in ends or ctx is
// done. It reports whether the client sent initialize, which decides what
// the end of in means (protocol.md §2.8).
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) (initialized bool, err error) {
	s.out = out
	s.Hub.OnToolsChanged(func() {
		if s.notifyReady.Load() {
			s.send(map[string]string{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		}
	})
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if s.Activity != nil {
				s.Activity()
			}
			if tooLong {
				s.send(response{JSONRPC: "2.0", ID: null, Error: &rpcError{codeInvalidRequest, fmt.Sprintf("message over %d bytes", MaxLine)}})
			} else {
				s.Handle(ctx, line)
			}
		}
		if err != nil {
			s.calls.Wait()
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return s.initSeen.Load(), err
		}
	}
}

// readLine reads one line. A line over MaxLine is consumed and reported
// with tooLong, its bytes dropped.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, tooLong, err
	}
}

func (s *Server) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.Log.Error("could not encode an MCP message", "err", err.Error())
		return
	}
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if _, err := s.out.Write(append(b, '\n')); err != nil {
		s.Log.Warn("could not write to stdout", "err", err.Error())
	}
}

func (s *Server) reply(id json.RawMessage, result any) {
	s.send(response{JSONRPC: "2.0", ID: id, Result: result})
}

func (s *Server) fail(id json.RawMessage, code int, msg string) {
	s.send(response{JSONRPC: "2.0", ID: id, Error: &rpcError{code, msg}})
}

// validID reports whether raw is a JSON-RPC id: a string, a number or null.
func validID(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '"':
		var s string
		return json.Unmarshal(t, &s) == nil
	case 'n':
		return string(t) == "null"
	default:
		var n json.Number
		return json.Unmarshal(t, &n) == nil
	}
}

// Handle answers one line. Requests are answered in order, except
// tools/call, which runs concurrently so a long call never holds up a ping.
func (s *Server) Handle(ctx context.Context, line []byte) {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		s.fail(null, codeParse, "parse error: the line is not valid JSON")
		return
	}
	if line[0] != '{' {
		s.fail(null, codeInvalidRequest, "invalid request: expected one JSON-RPC object (batches are not supported)")
		return
	}
	m, err := parseMessage(line)
	if err != nil {
		s.fail(null, codeInvalidRequest, "invalid request: "+err.Error())
		return
	}
	hasID := m.ID != nil
	id := m.ID
	if hasID && !validID(id) {
		s.fail(null, codeInvalidRequest, "invalid request: id must be a string or a number")
		return
	}
	if !hasID {
		id = null
	}
	var method string
	if m.Method == nil || json.Unmarshal(m.Method, &method) != nil || bytes.TrimSpace(m.Method)[0] != '"' {
		if m.Method == nil && hasID && (m.Result != nil || m.Error != nil) {
			return // a response to nothing we asked; ignore
		}
		s.fail(id, codeInvalidRequest, "invalid request: method must be a string")
		return
	}
	if string(bytes.TrimSpace(m.JSONRPC)) != `"2.0"` {
		s.fail(id, codeInvalidRequest, `invalid request: jsonrpc must be "2.0"`)
		return
	}
	if !hasID {
		s.notification(method)
		return
	}
	switch method {
	case "initialize":
		s.initialize(id, m.Params)
	case "ping":
		s.reply(id, struct{}{})
	case "tools/list":
		s.reply(id, map[string]any{"tools": s.toolList()})
	case "tools/call":
		var p callParams
		if err := json.Unmarshal(orEmpty(m.Params), &p); err != nil || p.Name == "" {
			s.fail(id, codeInvalidParams, "invalid params: tools/call needs a tool name")
			return
		}
		if a := bytes.TrimSpace(p.Arguments); len(a) > 0 && a[0] != '{' && string(a) != "null" {
			s.fail(id, codeInvalidParams, "invalid params: arguments must be an object")
			return
		}
		s.calls.Add(1)
		go func() {
			defer s.calls.Done()
			s.reply(id, s.call(ctx, p))
		}()
	default:
		s.fail(id, codeMethodNotFound, "method not found: "+method)
	}
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 || string(bytes.TrimSpace(b)) == "null" {
		return json.RawMessage("{}")
	}
	return b
}

func (s *Server) notification(method string) {
	switch method {
	case "notifications/initialized":
		s.notifyReady.Store(true)
	default:
		// notifications/cancelled and anything else: never answered.
	}
}

func (s *Server) initialize(id json.RawMessage, params json.RawMessage) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(orEmpty(params), &p)
	pv := LatestProtocol
	for _, v := range SupportedProtocols {
		if p.ProtocolVersion == v {
			pv = v
		}
	}
	if s.initSeen.CompareAndSwap(false, true) && s.Initialized != nil {
		s.Initialized()
	}
	s.reply(id, map[string]any{
		"protocolVersion": pv,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
		"serverInfo":      map[string]any{"name": ServerName, "version": fmt.Sprintf("%s (wire protocol %d)", version.Short(), version.Protocol)},
		"instructions":    Instructions,
	})
}
