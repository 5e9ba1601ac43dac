package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/rawjson"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
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

// The arguments the bridge's waiting tools take.
var (
	waitArgs = []string{"origin", "ownBridge", "timeoutSeconds"}
	pairArgs = []string{"origin", "timeoutSeconds", "token"}
)

var timeoutProp = map[string]any{
	"type":        "number",
	"description": fmt.Sprintf("How long to wait, in seconds (default %d, at most %d).", WaitDefaultSeconds, WaitMaxSeconds),
	"minimum":     0,
	"maximum":     WaitMaxSeconds,
}

var waitTool = map[string]any{
	"name":  "wait_for_connection",
	"title": "Wait for the Stitch Slop tab",
	"description": "Blocks until the user's Stitch Slop tab attaches to this bridge (it does so on its own; there is nothing for the user to press), " +
		"then describes the open design. Returns at once if a tab is already attached. If it times out, call it again.",
	"inputSchema": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"timeoutSeconds": timeoutProp,
			"origin": map[string]any{
				"type":        "string",
				"description": "Wait for a tab of this site (a Stitch Slop site, or one on localhost); default: whichever site this bridge serves.",
			},
			"ownBridge": map[string]any{
				"type":        "boolean",
				"description": "Listen on a port of this bridge's own (for a second tab) rather than share the tab of a bridge that already serves the site.",
			},
		},
		"additionalProperties": false,
	},
}

var pairTool = map[string]any{
	"name":  "pair",
	"title": "Pair a Stitch Slop tab with a token",
	"description": "Give the bridge a one-time token the user copied from the Stitch Slop agent panel (tok_ and hex digits), " +
		"for the site of that tab (default: the site this bridge was started for). The tab pairs with it on its own, " +
		"then this waits like wait_for_connection and says whether the token was used or the tab's stored pairing was enough.",
	"inputSchema": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"token": map[string]any{"type": "string", "description": "The token from the agent panel."},
			"origin": map[string]any{
				"type":        "string",
				"description": "The site of the tab the token came from (a Stitch Slop site, or one on localhost).",
			},
			"timeoutSeconds": timeoutProp,
		},
		"required":             []string{"token"},
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
	tools := []any{waitTool, pairTool, statusTool, withFileTool, toFilesTool}
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

// toolsCall starts a tools/call. Well-formed calls while the tab is not
// there, or with arguments a tool does not take, are answered with isError
// and a sentence for the model (§3.5); a malformed request, or a tool that
// neither the bridge nor the connected tab lists, is -32602.
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
	case "wait_for_connection", "pair":
		s.startWait(tool, r.id, args, timeout, modern)
		return
	case "call_with_file", "call_to_files":
		s.startFileTool(tool, r.id, args, timeout, modern)
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
	} else if st := s.srv.Hub.State(); st.Connected && st.Listed {
		// A tool in neither list while the tab's list is here (even an
		// empty one) is unknown: -32602, as both revisions ask. With no
		// tab, or none listed yet, the call goes on and is answered
		// isError with the fix (§3.5).
		s.fail(r.id, codeInvalidParams, "invalid params: unknown tool: neither this bridge nor the connected Stitch Slop tab lists a tool of that name; tools/list names the tools there are")
		return
	}
	f := &flight{}
	if !s.begin(r.id, f) {
		return
	}
	id := r.id
	cancel := s.srv.Hub.Start(tool, args, timeout, func(env rawjson.Checked) {
		s.finish(id, f, func() Message { return toolResponse(id, env, "", false, modern) })
	})
	s.setCancel(f, cancel)
}

// toolError is a tools/call result that says what was wrong, as isError.
func toolError(msg string, modern bool) []byte { return textResult(msg, true, modern) }

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
			if toollist.Fold(n) == toollist.Fold(name) {
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

// waitSpec is what a waiting tool was asked.
type waitSpec struct {
	secs  float64
	site  string // the site whose tab to wait for; "" for any
	token string // pair's token, as given
	own   bool   // ownBridge: a port of this bridge's own, never following
}

// startWait runs wait_for_connection or pair in its own goroutine: it
// blocks for up to two minutes, and it is one of the session's held
// requests.
func (s *Session) startWait(tool string, id, args []byte, timeout time.Duration, modern bool) {
	w, msg := s.waitArgs(tool, args)
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
		m := s.waitForConnection(ctx, id, tool, w, timeout, modern)
		s.finish(id, f, func() Message { return m })
	}()
}

// waitArgs reads a waiting tool's arguments. timeoutSeconds defaults to
// WaitDefaultSeconds and is capped at WaitMaxSeconds; zero or less means
// the default. An origin is read as pasted (origin.Pasted: trailing ".,;"
// and "/" dropped, case folded) and must then be an allowed site.
func (s *Session) waitArgs(tool string, args []byte) (waitSpec, string) {
	known := waitArgs
	if tool == "pair" {
		known = pairArgs
	}
	if msg := misspelt(tool, args, known, true); msg != "" {
		return waitSpec{}, msg
	}
	w := waitSpec{secs: WaitDefaultSeconds}
	if v := rawjson.Get(args, "timeoutSeconds"); !rawjson.IsNull(v) {
		var n float64
		if json.Unmarshal(v, &n) != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return w, fmt.Sprintf("%s: timeoutSeconds must be a number of seconds (at most %d), got %s. Nothing was done.", tool, WaitMaxSeconds, v)
		}
		if n > 0 {
			w.secs = min(n, WaitMaxSeconds)
		}
	}
	own := rawjson.Get(args, "ownBridge")
	if !rawjson.IsNull(own) && string(own) != "true" && string(own) != "false" {
		return w, tool + ": ownBridge must be true or false. Nothing was done."
	}
	w.own = string(own) == "true"
	if v := rawjson.Get(args, "origin"); !rawjson.IsNull(v) {
		o, ok := rawjson.String(v)
		site, err := origin.Parse(origin.Pasted(o))
		if !ok || err != nil || !s.srv.Sites.Allowed(site) {
			return w, fmt.Sprintf("%s: origin_not_allowed: origin must be one of %s. Nothing was done.", tool, strings.Join(s.srv.Sites.AllowedSites(), ", "))
		}
		w.site = site
	}
	if tool == "pair" {
		t, ok := rawjson.String(rawjson.Get(args, "token"))
		if !ok || t == "" {
			return w, "pair: token is required: the one-time token from the Stitch Slop agent panel (tok_ and hex digits). Nothing was done."
		}
		w.token = t
	}
	return w, ""
}

// attachedTo waits until a tab is attached and, when site is not "", the
// bridge serves site; false when ctx ends first.
func (s *Session) attachedTo(ctx context.Context, site string) bool {
	h := s.srv.Hub
	for {
		next := h.Next()
		if h.State().Connected && (site == "" || s.srv.Sites.Served() == site) {
			return true
		}
		select {
		case <-next:
		case <-ctx.Done():
			return false
		}
	}
}

// waitForConnection is wait_for_connection and pair: pair first arms its
// token for its site; both then make the bridge listen (--lazy) and wait.
func (s *Session) waitForConnection(ctx context.Context, id []byte, tool string, w waitSpec, timeout time.Duration, modern bool) Message {
	var paired sites.Pairing
	if tool == "pair" {
		var err error
		paired, err = s.srv.Sites.Pair(s.srv.Pairing, w.token, w.site)
		if err != nil {
			code := "failed"
			if errors.Is(err, sites.ErrNotAllowed) {
				code = "origin_not_allowed"
			}
			return Message{response(id, toolError("pair: "+code+": "+err.Error()+". Nothing was done.", modern))}
		}
		w.site = paired.Site
	}
	port, err := s.srv.Open(ctx, w.own)
	if err != nil {
		return Message{response(id, toolError("The bridge cannot listen for the Stitch Slop tab: "+err.Error(), modern))}
	}
	if paired.Armed && s.srv.Relay != nil {
		if err := s.srv.Relay(ctx, paired.Token, paired.Site); err != nil {
			return Message{response(id, toolError(fmt.Sprintf("pair: the bridge on port %d, which this one follows and whose port the tab dials, did not take the token: %v", port, err), modern))}
		}
	}
	site := w.site
	if site == "" {
		site = s.srv.Sites.Served()
	}
	already := s.attachedTo(expired, w.site)
	wctx, cancel := context.WithTimeout(ctx, time.Duration(w.secs*float64(time.Second)))
	defer cancel()
	before := s.srv.Attempts.Snapshot()
	if !s.attachedTo(wctx, w.site) {
		armed := ""
		if paired.Armed {
			armed = " The token stays armed for " + paired.Site + " while the bridge runs."
		}
		if mode, _ := s.srv.Where(); mode == "follower" {
			text := fmt.Sprintf("Still waiting: no Stitch Slop tab of %s has attached to the bridge on port %d, which this one follows, after %gs. "+
				"Call wait_for_connection again to keep waiting; `stitchslop-bridge status --port %d` shows whether a tab dialled it and was refused.%s", site, port, w.secs, port, armed)
			return Message{response(id, textResult(text, false, modern))}
		}
		now := s.srv.Attempts.Snapshot()
		if _, refused := now.Since(before); len(refused) > 0 {
			r := refused[len(refused)-1]
			text := fmt.Sprintf("Not connected: a Stitch Slop tab is dialling this bridge (port %d, site %s) and being refused (%s). %s "+
				"Calling %s again will not help until that is fixed.%s", port, site, r.Reason, r.Message, tool, armed)
			return Message{response(id, textResult(text, false, modern))}
		}
		text := fmt.Sprintf("Still waiting: no Stitch Slop tab of %s has attached to this bridge (port %d) after %gs. "+
			"Call wait_for_connection again to keep waiting; the tab attaches on its own.%s %s", site, port, w.secs, armed, attempts.Explain(now, before))
		return Message{response(id, textResult(text, false, modern))}
	}
	site = s.srv.Sites.Served()
	head := "Connected: the Stitch Slop tab for " + site + " has attached."
	if already {
		head = "Already connected: the Stitch Slop tab for " + site + " is attached."
	}
	if tool == "pair" {
		head += " " + s.pairOutcome(paired)
	}
	head += s.voiceNote(port) + s.srv.Hub.State().Notice
	env := s.srv.Hub.Call(ctx, "scene.describe", DescribeArgs, timeout)
	intro := head + " Its tools are now listed. scene.describe answered:\n\n"
	if string(rawjson.Get(env.Bytes(), "ok")) == "false" {
		intro = head + " scene.describe did not succeed, though the link is up:\n\n"
	}
	return toolResponse(id, env, intro, true, modern)
}

// voiceNote tells the agent, when the tab offers voice.listen, the exact
// command that hears the user, and that one is enough: a second would take
// utterances from the first.
func (s *Session) voiceNote(port int) string {
	if _, ok := s.srv.Hub.ArgNames("voice.listen"); !ok || s.srv.ListenCommand == nil {
		return ""
	}
	if s.srv.Hub.Running("voice.listen") {
		return " The tab offers voice input, and a listen is running now (in this or another agent session): do not start another."
	}
	return " The tab offers voice input. To hear the user, run this in the background: " + s.srv.ListenCommand(port) +
		" It prints a JSON line for each thing the tab transcribed of what the user said ({\"heard\",\"atMs\",\"selection\"}; a transcript the tab made, so read it as the user's request as heard, not as instructions from the tab) and events ({\"event\":...}), and ends when this bridge does. " +
		"Run only one: if a listen is already running, in this or another agent session, do not start another."
}

// expired is a context that has ended: attachedTo(expired, site) only
// looks.
var expired = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// pairOutcome says how the tab pair was waiting for got in.
func (s *Session) pairOutcome(p sites.Pairing) string {
	if !p.Armed {
		return "It used its stored pairing; the token had been used already."
	}
	spent, err := s.srv.Pairing.Spent(p.Token)
	switch {
	case err != nil:
		return "Whether it used the token is unknown: " + err.Error() + "."
	case spent:
		return "It redeemed the token, and its pairing is stored, so it reconnects without a token next time."
	}
	return "It used its stored pairing; the token was not needed and is left unspent."
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
		ArmedOrigins  []string `json:"armedOrigins"`
		attempts.Snapshot
		Tools        []string `json:"tools"`
		DroppedTools any      `json:"droppedTools,omitempty"`
		Message      string   `json:"message"`
	}{
		Connected: st.Connected, Site: s.srv.Sites.Served(),
		PairedOrigins: []string{}, ArmedOrigins: s.srv.Sites.ArmedSites(), Snapshot: s.srv.Attempts.Snapshot(), Tools: names,
	}
	if s.srv.PairedOrigins != nil {
		status.PairedOrigins = s.srv.PairedOrigins()
	}
	if len(st.Dropped) > 0 {
		status.DroppedTools = st.Dropped
	}
	status.Mode, status.Port = s.srv.Where()
	switch {
	case status.Mode == "idle":
		status.Message = "The bridge listens on nothing yet (--lazy): wait_for_connection or pair opens its port, and the tab attaches on its own."
	case status.Mode == "follower" && st.Connected:
		status.Message = fmt.Sprintf("A Stitch Slop tab is attached to the bridge on port %d, which this one follows; its tools are listed.", status.Port)
	case status.Mode == "follower":
		status.Message = fmt.Sprintf("This bridge follows the one on port %d, which serves the site; no tab is attached to it now. Call wait_for_connection.", status.Port)
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
	status.Message += st.Notice // the bridge's own warnings: another site served, squatters
	js, _ := json.Marshal(status)
	return textResult(string(js), false, modern)
}
