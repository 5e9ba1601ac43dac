package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/rawjson"
)

// ReservedTools are the names of the bridge's own tools, those it has and
// those the next versions add (pairing through the agent, status, files).
// It is the one list: the page side's sanitiser (security/toollist) drops
// a page tool whose name folds to any of them, so a page can never shadow
// a bridge tool, even one it does not know yet. A new bridge tool is added
// here first; TestBridgeToolsReserved fails otherwise.
var ReservedTools = []string{"wait_for_connection", "pair", "connection_status", "call_with_file", "call_to_files"}

// Bounds of wait_for_connection's timeoutSeconds (protocol.md §3.4).
const (
	WaitDefaultSeconds = 90
	WaitMaxSeconds     = 120
)

// DescribeArgs is what the connection greeting asks scene.describe for, as
// the reference bridge does.
var DescribeArgs = json.RawMessage(`{"limit":8}`)

// waitArgs are the arguments wait_for_connection takes.
var waitArgs = []string{"timeoutSeconds"}

var waitTool = map[string]any{
	"name":  "wait_for_connection",
	"title": "Wait for the Stitch Slop tab",
	"description": "Blocks until the user's Stitch Slop tab attaches to this bridge (it does so on its own; there is nothing for the user to press), " +
		"then describes the open design. Returns at once if a tab is already attached. If it times out, call it again.",
	"inputSchema": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"timeoutSeconds": map[string]any{
				"type":        "number",
				"description": fmt.Sprintf("How long to wait, in seconds (default %d, at most %d).", WaitDefaultSeconds, WaitMaxSeconds),
				"minimum":     0,
				"maximum":     WaitMaxSeconds,
			},
		},
		"additionalProperties": false,
	},
}

// toolList answers tools/list: wait_for_connection, then the page's tools.
// In the 2026-07-28 era it says the list may not be cached, since the tab's
// tools come and go.
var statusTool = map[string]any{
	"name":  "connection_status",
	"title": "Stitch Slop connection status",
	"description": "Says, without waiting or opening anything, whether a Stitch Slop tab is attached, which port and site this bridge serves, " +
		"which sites are paired, how many times a tab dialled, and the last refusals with their reasons and fixes.",
	"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false},
}

func (s *Session) toolList(modern bool) []byte {
	tools := []any{waitTool, statusTool}
	for _, t := range s.srv.Hub.State().Tools {
		tools = append(tools, t)
	}
	var b []byte
	if modern {
		b, _ = json.Marshal(struct {
			Tools      []any  `json:"tools"`
			TTLMs      int    `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
		}{tools, 0, "private"})
	} else {
		b, _ = json.Marshal(struct {
			Tools []any `json:"tools"`
		}{tools})
	}
	return finishResult(b, modern)
}

// toolsCall starts a tools/call. Well-formed calls to a tool that is not
// there, or with arguments it does not take, are answered with isError and
// a sentence for the model (§3.5); a malformed request is -32602.
func (s *Session) toolsCall(r request, meta []byte, modern bool) {
	var name, args []byte
	if !rawjson.Each(r.params, func(k, v []byte) bool {
		switch {
		case rawjson.KeyIs(k, "name"):
			name = v
		case rawjson.KeyIs(k, "arguments"):
			args = v
		}
		return true
	}) {
		s.fail(r.id, codeInvalidParams, "invalid params: tools/call needs a tool name")
		return
	}
	tool, ok := rawjson.String(name)
	if !ok || tool == "" {
		s.fail(r.id, codeInvalidParams, "invalid params: tools/call needs a tool name")
		return
	}
	if !rawjson.IsNull(args) && args[0] != '{' {
		s.fail(r.id, codeInvalidParams, "invalid params: arguments must be an object")
		return
	}
	timeout, msg := callTimeout(meta)
	if msg != "" {
		s.fail(r.id, codeInvalidParams, msg)
		return
	}
	switch tool {
	case "wait_for_connection":
		s.startWait(r.id, args, timeout, modern)
		return
	case "connection_status":
		if msg := misspelt(tool, args, nil, true); msg != "" {
			s.reply(r.id, toolError(msg, modern))
			return
		}
		s.reply(r.id, s.connectionStatus(modern))
		return
	}
	if known, ok := s.srv.Hub.ArgNames(tool); ok {
		if msg := misspelt(tool, args, known, false); msg != "" {
			s.reply(r.id, toolError(msg, modern))
			return
		}
	}
	f := &flight{}
	if !s.begin(r.id, f) {
		return
	}
	id := r.id
	cancel := s.srv.Hub.Start(tool, args, timeout, func(env []byte) {
		s.finish(id, f, func() Message { return toolResponse(id, env, "", false, modern) })
	})
	s.setCancel(f, cancel)
}

// textResult is a tools/call result of one text block, in the era's shape.
func textResult(text string, isError, modern bool) []byte {
	b := rawjson.AppendString([]byte(`{"content":[{"type":"text","text":`), text)
	b = append(b, `}],"isError":`...)
	b = strconv.AppendBool(b, isError)
	return finishResult(append(b, '}'), modern)
}

// toolError is a tools/call result that says what was wrong, as isError.
func toolError(msg string, modern bool) []byte { return textResult(msg, true, modern) }

// fold makes names that differ only in case or separators equal.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("_-. ", r) {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// misspelt checks args against the names a tool takes. An argument whose
// name is a near miss of one of them (case or separators) is refused with
// the right spelling; with strict, any unknown argument is refused. It
// returns the refusal, or "".
func misspelt(tool string, args []byte, known []string, strict bool) string {
	if len(known) == 0 && !strict {
		return ""
	}
	var msg string
	rawjson.Each(args, func(k, _ []byte) bool {
		name, _ := rawjson.String(k)
		for _, n := range known {
			if n == name {
				return true
			}
		}
		for _, n := range known {
			if fold(n) == fold(name) {
				msg = fmt.Sprintf("%s has no argument %q; did you mean %q? Nothing was done; call it again with that spelling.", tool, name, n)
				return false
			}
		}
		if strict {
			msg = fmt.Sprintf("%s has no argument %q; it takes only %s. Nothing was done.", tool, name, quoteList(known))
			return false
		}
		return true
	})
	return msg
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// startWait runs wait_for_connection in its own goroutine: it blocks for up
// to two minutes, and it is one of the session's held requests.
func (s *Session) startWait(id, args []byte, timeout time.Duration, modern bool) {
	secs, msg := waitSeconds(args)
	if msg != "" {
		s.reply(id, toolError(msg, modern))
		return
	}
	f := &flight{}
	if !s.begin(id, f) {
		return
	}
	ctx, stop := context.WithCancel(s.ctx)
	s.setCancel(f, func() bool { stop(); return false })
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer stop()
		m := s.waitForConnection(ctx, id, secs, timeout, modern)
		s.finish(id, f, func() Message { return m })
	}()
}

// waitSeconds reads timeoutSeconds: default WaitDefaultSeconds, capped at
// WaitMaxSeconds; zero or less means the default.
func waitSeconds(args []byte) (float64, string) {
	if msg := misspelt("wait_for_connection", args, waitArgs, true); msg != "" {
		return 0, msg
	}
	secs := float64(WaitDefaultSeconds)
	v := rawjson.Get(args, "timeoutSeconds")
	if rawjson.IsNull(v) {
		return secs, ""
	}
	var n float64
	if json.Unmarshal(v, &n) != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, fmt.Sprintf("wait_for_connection: timeoutSeconds must be a number of seconds (at most %d), got %s. Nothing was done.", WaitMaxSeconds, v)
	}
	if n > 0 {
		secs = min(n, WaitMaxSeconds)
	}
	return secs, ""
}

func (s *Session) waitForConnection(ctx context.Context, id []byte, secs float64, timeout time.Duration, modern bool) Message {
	h := s.srv.Hub
	already := h.State().Connected
	wctx, cancel := context.WithTimeout(ctx, time.Duration(secs*float64(time.Second)))
	defer cancel()
	before := s.srv.Attempts.Snapshot()
	if !h.Wait(wctx) {
		now := s.srv.Attempts.Snapshot()
		if _, refused := now.Since(before); len(refused) > 0 {
			r := refused[len(refused)-1]
			text := fmt.Sprintf("Not connected: the Stitch Slop tab is dialling this bridge (port %d, site %s) and being refused (%s). %s "+
				"Calling wait_for_connection again will not help until that is fixed.", s.srv.Port, s.srv.Origin, r.Reason, r.Message)
			return Message{response(id, textResult(text, false, modern))}
		}
		text := fmt.Sprintf("Still waiting: no Stitch Slop tab has attached to this bridge (port %d, site %s) after %gs. "+
			"Call wait_for_connection again to keep waiting; the tab attaches on its own. %s", s.srv.Port, s.srv.Origin, secs, attempts.Explain(now, before))
		return Message{response(id, textResult(text, false, modern))}
	}
	head := "Connected: the Stitch Slop tab for " + s.srv.Origin + " has attached."
	if already {
		head = "Already connected: the Stitch Slop tab for " + s.srv.Origin + " is attached."
	}
	env := h.Call(ctx, "scene.describe", DescribeArgs, timeout)
	intro := head + " Its tools are now listed. scene.describe answered:\n\n"
	if string(rawjson.Get(env, "ok")) == "false" {
		intro = head + " scene.describe did not succeed, though the link is up:\n\n"
	}
	return toolResponse(id, env, intro, true, modern)
}

// connectionStatus answers connection_status: what the bridge knows, and
// opens nothing.
func (s *Session) connectionStatus(modern bool) []byte {
	st := s.srv.Hub.State()
	names := []string{}
	for _, t := range st.Tools {
		names = append(names, t.Name)
	}
	status := struct {
		Connected     bool     `json:"connected"`
		Mode          string   `json:"mode"`
		Port          int      `json:"port"`
		Site          string   `json:"site"`
		PairedOrigins []string `json:"pairedOrigins"`
		attempts.Snapshot
		Tools        []string `json:"tools"`
		DroppedTools any      `json:"droppedTools,omitempty"`
		Message      string   `json:"message"`
	}{
		Connected: st.Connected, Mode: "serving", Port: s.srv.Port, Site: s.srv.Origin,
		PairedOrigins: []string{}, Snapshot: s.srv.Attempts.Snapshot(), Tools: names,
	}
	if s.srv.PairedOrigins != nil {
		status.PairedOrigins = s.srv.PairedOrigins()
	}
	if len(st.Dropped) > 0 {
		status.DroppedTools = st.Dropped
	}
	switch {
	case st.Connected:
		status.Message = "A Stitch Slop tab is attached; its tools are listed."
	case len(status.Refusals) > 0:
		r := status.Refusals[len(status.Refusals)-1]
		status.Message = "No tab is attached. The last refusal (" + r.Reason + "): " + r.Message
	case status.Attempts == 0:
		status.Message = "No tab is attached, and nothing has dialled this bridge yet. Call wait_for_connection: the tab attaches on its own."
	default:
		status.Message = "No tab is attached now. Call wait_for_connection: the tab attaches on its own."
	}
	js, _ := json.Marshal(status)
	return textResult(string(js), false, modern)
}
