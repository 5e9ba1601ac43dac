package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
	"github.com/stitchslop/stitchslop-bridge/security/toollist"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// ReservedTools are the names of the bridge's own tools: the page side's
// sanitiser (security/toollist) drops a page tool whose name folds to any
// of them, so a page cannot shadow one (TestBridgeToolsReserved).
var ReservedTools = []string{"wait_for_connection", "pair", "connection_status", "call_with_file", "call_to_files"}

// Bounds of wait_for_connection's timeoutSeconds (protocol.md §3.4).
const (
	WaitDefaultSeconds = 90
	WaitMaxSeconds     = 120
)

// DescribeArgs is what the greeting asks scene.describe for.
var DescribeArgs = json.RawMessage(`{"limit":8}`)

// annotations are a bridge tool's MCP hints, said truthfully: the file
// tools run a tab command, which may change the design, and call_to_files
// writes files, so both are destructive, not idempotent and open-world.
func annotations(readOnly, destructive, idempotent, openWorld bool) string {
	return `{"readOnlyHint":` + strconv.FormatBool(readOnly) + `,"destructiveHint":` + strconv.FormatBool(destructive) +
		`,"idempotentHint":` + strconv.FormatBool(idempotent) + `,"openWorldHint":` + strconv.FormatBool(openWorld) + `}`
}

var (
	waitArgs = []string{"origin", "ownBridge", "timeoutSeconds"}
	pairArgs = []string{"origin", "timeoutSeconds", "token"}
)

// The bridge's own tools, in MCP's shape: JSON of ours, compacted once
// (ownTools).
var timeoutProp = `{"type": "number",
	"description": "How long to wait, in seconds (default ` + strconv.Itoa(WaitDefaultSeconds) + `, at most ` + strconv.Itoa(WaitMaxSeconds) + `).",
	"minimum": 0, "maximum": ` + strconv.Itoa(WaitMaxSeconds) + `}`

var waitTool = `{"name": "wait_for_connection",
	"title": "Wait for the Stitch Slop tab",
	"description": "Blocks until the user's Stitch Slop tab attaches to this bridge (it does so on its own; there is nothing for the user to press), then describes the open design. Returns at once if a tab is already attached. If it times out, call it again.",
	"inputSchema": {"type": "object", "properties": {
		"timeoutSeconds": ` + timeoutProp + `,
		"origin": {"type": "string", "description": "The site whose tab to reach, as the agent panel names it (a Stitch Slop site, or one on localhost): naming it makes this session follow a bridge that serves that site, or serve it itself. Default: the site this bridge serves."},
		"ownBridge": {"type": "boolean", "description": "Listen on a port of this bridge's own (for a second tab) rather than share the tab of a bridge that already serves the site."}},
		"additionalProperties": false},
	"annotations": ` + annotations(false, false, true, false) + `}`

var pairTool = `{"name": "pair",
	"title": "Pair a Stitch Slop tab with a token",
	"description": "Give the bridge a one-time token the user copied from the Stitch Slop agent panel (tok_ and hex digits), for the site of that tab (default: the site this bridge was started for). The tab pairs with it on its own, then this waits like wait_for_connection and says whether the token was used or the tab's stored pairing was enough.",
	"inputSchema": {"type": "object", "properties": {
		"token": {"type": "string", "description": "The token from the agent panel."},
		"origin": {"type": "string", "description": "The site of the tab the token came from, as the agent panel names it (a Stitch Slop site, or one on localhost); this session then follows a bridge that serves that site, or serves it itself."},
		"timeoutSeconds": ` + timeoutProp + `},
		"required": ["token"], "additionalProperties": false},
	"annotations": ` + annotations(false, false, true, false) + `}`

var statusTool = `{"name": "connection_status",
	"title": "Stitch Slop connection status",
	"description": "Says, as JSON and without waiting or opening anything, whether a Stitch Slop tab is attached, which port and site this bridge serves (mode serving, follower or idle), which sites are paired, the other bridges running, how many times a tab dialled (connectionAttempts), and the recent refusals (recentRefusals) with their reasons and fixes.",
	"inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
	"annotations": ` + annotations(true, false, true, false) + `}`

// fileProps are the file tools' properties of a file; their code is
// files.go's.
var fileProps = `"path": {"type": "string", "description": "The file's absolute path."},
	"fileArg": {"type": "string", "description": "The argument of the command that gets the file; a dotted path of up to 3 parts (sidecar.data) for a nested one."},
	"as": {"type": "string", "enum": ["` + files.DataURL + `", "` + files.Text + `"], "description": "dataUrl (default), or text for SVG, DXF, .stitchslop and JSON."},
	"nameArg": {"type": "string", "description": "The argument that gets the file's name, if the command wants one."}`

var withFileTool = `{"name": "call_with_file",
	"title": "Call a Stitch Slop command with a file",
	"description": "Runs a command of the tab with a file from disk put into one of its arguments, without the file passing through you. Images (PNG, JPEG, GIF, WebP) and design files (DST, PES, JEF, EXP, VP3, INF, COL, SVG, DXF, .stitchslop, JSON) up to 14 MB; no hidden files.",
	"inputSchema": {"type": "object", "properties": {
		"command": {"type": "string", "description": "The tab's command, one of its listed tools."},
		` + fileProps + `,
		"args": {"type": "object", "description": "The command's other arguments."},
		"also": {"type": "array", "maxItems": ` + strconv.Itoa(maxAlso) + `, "description": "Up to 3 more files, such as colour sidecars.",
			"items": {"type": "object", "properties": {` + fileProps + `}, "required": ["path", "fileArg"], "additionalProperties": false}}},
		"required": ["command", "path", "fileArg"], "additionalProperties": false},
	"annotations": ` + annotations(false, true, false, true) + `}`

var toFilesTool = `{"name": "call_to_files",
	"title": "Call a Stitch Slop command and save what it returns",
	"description": "Runs a command of the tab and saves the files it returns into a folder instead of passing them to you: each of its files (up to ` + strconv.Itoa(files.MaxSaved) + `), a top-level image when fileName is given, its text when textFile is. The bridge builds each name from the name given and the content's kind and .stitchslop (rose.dst becomes rose.stitchslop.dst, package.json package.stitchslop.json, notes.md notes.stitchslop.md), so read where each was saved in the answer and keep that name.",
	"inputSchema": {"type": "object", "properties": {
		"command": {"type": "string", "description": "The tab's command, one of its listed tools."},
		"args": {"type": "object", "description": "The command's arguments."},
		"dir": {"type": "string", "description": "The absolute path of the folder to save into, not hidden; it is created, with any missing parents, if it does not exist."},
		"fileName": {"type": "string", "description": "The name for a top-level image the reply carries."},
		"textFile": {"type": "string", "description": "The name for the reply's text, if any (notes.md is saved as notes.stitchslop.md)."},
		"overwrite": {"type": "boolean", "description": "Replace files that exist (default: never)."}},
		"required": ["command", "dir"], "additionalProperties": false},
	"annotations": ` + annotations(false, true, false, true) + `}`

// ownTools are the bridge's tools as tools/list writes them, compacted
// once; JSON that is not valid stops the binary, and every test, at start.
var ownTools = func() []byte {
	v := jsontext.Value("[" + strings.Join([]string{waitTool, pairTool, statusTool, withFileTool, toFilesTool}, ",") + "]")
	if err := v.Compact(); err != nil {
		panic("internal/mcp: the bridge's own tools are not valid JSON: " + err.Error())
	}
	return v[1 : len(v)-1]
}()

// ReservedWords are what a page's tool may be neither named nor titled
// (security/toollist folds both): the bridge's tools' names and the
// titles tools/list gives them, so that no page tool reads as one of them.
var ReservedWords = func() []string {
	var own []struct {
		Name  string `json:"name"`
		Title string `json:"title"`
	}
	if err := jsonv2.Unmarshal(append(append([]byte{'['}, ownTools...), ']'), &own); err != nil {
		panic("internal/mcp: the bridge's own tools: " + err.Error())
	}
	var words []string
	for _, t := range own {
		words = append(words, t.Name, t.Title)
	}
	return words
}()

// toolList answers tools/list: the bridge's tools, then the tab's in its
// order, each JSON written once (toollist.Tool.JSON), so the bytes change
// only with a new list (clients cache by order). In the 2026-07-28 era the
// list may not be cached: the tab's tools come and go.
func (s *Session) toolList(modern bool) []byte {
	const modernTail = `,"ttlMs":0,"cacheScope":"private"`
	tabs := s.srv.Hub.State().Tools
	n := len(`{"tools":[]}`) + len(modernTail) + len(ownTools)
	for _, t := range tabs {
		n += 1 + len(t.JSON)
	}
	b := append(append(make([]byte, 0, n), `{"tools":[`...), ownTools...)
	for _, t := range tabs {
		b = append(append(b, ','), t.JSON...)
	}
	b = append(b, ']')
	if modern {
		b = append(b, modernTail...)
	}
	return finishResult(append(b, '}'), modern)
}

// toolsCall starts a tools/call. A well-formed call with no tab there, or
// with arguments the tool does not take, is isError with a sentence for
// the model (§3.5); a malformed one, or an unknown tool, is -32602.
func (s *Session) toolsCall(r request, meta []byte, modern bool) {
	name, args := r.name, r.args
	if !r.object {
		s.fail(r.id, codeInvalidParams, "invalid params: tools/call needs a tool name")
		return
	}
	tool, ok := gate.String(name)
	if !ok || tool == "" {
		s.fail(r.id, codeInvalidParams, "invalid params: tools/call needs a tool name")
		return
	}
	if !gate.IsNull(args) && args[0] != '{' {
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
		// Unknown only once the tab's list is here; before, the call goes
		// on and is answered isError with the fix (§3.5).
		s.fail(r.id, codeInvalidParams, "invalid params: unknown tool: neither this bridge nor the connected Stitch Slop tab lists a tool of that name; tools/list names the tools there are")
		return
	}
	f := &flight{}
	if !s.begin(r.id, f) {
		return
	}
	id := r.id
	cancel := s.srv.Hub.Start(tool, args, timeout, func(env envelope.Reply) {
		s.finish(id, f, func() Message { return toolResponse(id, env, ownWords{}, modern) })
	})
	s.setCancel(f, cancel)
}

func toolError(msg string, modern bool) []byte { return textResult(msg, true, modern) }

// misspelt returns the refusal of an argument whose name is a near miss
// (case or separators) of one a tool takes, with the right spelling, or,
// with strict, of any unknown argument; else "".
func misspelt(tool string, args []byte, known []string, strict bool) string {
	if len(known) == 0 && !strict {
		return ""
	}
	var msg string
	gate.Each(args, func(name string, _ []byte) bool {
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
	secs   float64
	site   string            // the site whose tab to wait for; "" for any
	token  string            // pair's token, as given
	own    bool              // ownBridge: a port of this bridge's own, never following
	before attempts.Snapshot // the record when the wait was asked for
}

// startWait runs wait_for_connection or pair, a held request, in its own
// goroutine.
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
	w.before = s.srv.Attempts.Snapshot()
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer stop()
		m := s.guarded(id, func() Message { return s.waitForConnection(ctx, id, tool, w, timeout, modern) })
		s.finish(id, f, func() Message { return m })
	}()
}

// waitArgs reads a waiting tool's arguments: timeoutSeconds capped at
// WaitMaxSeconds (zero or less, the default); an origin read as pasted
// (origin.Pasted), which must be an allowed site.
func (s *Session) waitArgs(tool string, args []byte) (waitSpec, string) {
	known := waitArgs
	if tool == "pair" {
		known = pairArgs
	}
	if msg := misspelt(tool, args, known, true); msg != "" {
		return waitSpec{}, msg
	}
	w := waitSpec{secs: WaitDefaultSeconds}
	if v := gate.Get(args, "timeoutSeconds"); !gate.IsNull(v) {
		var n float64
		if json.Unmarshal(v, &n) != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return w, fmt.Sprintf("%s: timeoutSeconds must be a number of seconds (at most %d), got %s. Nothing was done.", tool, WaitMaxSeconds, v)
		}
		if n > 0 {
			w.secs = min(n, WaitMaxSeconds)
		}
	}
	own := gate.Get(args, "ownBridge")
	if !gate.IsNull(own) && string(own) != "true" && string(own) != "false" {
		return w, tool + ": ownBridge must be true or false. Nothing was done."
	}
	w.own = string(own) == "true"
	if v := gate.Get(args, "origin"); !gate.IsNull(v) {
		o, ok := gate.String(v)
		site, err := origin.Parse(origin.Pasted(o))
		if !ok || err != nil || !s.srv.Sites.Allowed(site) {
			return w, fmt.Sprintf("%s: origin_not_allowed: origin must be one of %s. Nothing was done.", tool, strings.Join(s.srv.Sites.AllowedSites(), ", "))
		}
		w.site = site
	}
	if tool == "pair" {
		t, ok := gate.String(gate.Get(args, "token"))
		if !ok || t == "" {
			return w, "pair: token is required: the one-time token from the Stitch Slop agent panel (tok_ and hex digits). Nothing was done."
		}
		w.token = t
	}
	return w, ""
}

// attachedTo waits until a tab is attached and the bridge serves site
// (when not ""); false when ctx ends first.
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

// HostStatus is what a follower reads of its host's /status, and reports
// in place of its own empty record.
type HostStatus struct {
	Port, PID  int
	Connected  bool
	AttachedBy string // hub.ByToken, hub.ByPairing, or "" unknown
	Listeners  []int
	Attempts   attempts.Snapshot
}

// OtherBridge is another live bridge on the config dir (connection_status).
type OtherBridge struct {
	Port   int    `json:"port"`
	Origin string `json:"origin"`
	PID    int    `json:"pid"`
}

// ReachAny is for a client that never refreshes its tool list.
const ReachAny = "If your client does not show the tab's tools (some never refresh their tool list), reach any tab command through call_to_files (command, args and a dir for any files it returns; it answers with the tab's reply) or, to give it a file, call_with_file: no restart is needed."

// ListWait bounds how long the greeting waits for the attached tab's tool
// list, which the tab sends right after the hello.
const ListWait = 3 * time.Second

// Bounds of the canvas in the greeting, in items and runes a label: the
// gate bounds the whole; these keep it short.
const (
	greetItems = 8
	greetLabel = 80
)

// greetSay is what the agent shows the user with voice.say once it hears
// them (protocol.md §7.6).
const greetSay = "I'm listening. Press Talk (⌥M) and speak."

func (s *Session) host(ctx context.Context) (HostStatus, bool) {
	if s.srv.Host == nil {
		return HostStatus{}, false
	}
	return s.srv.Host(ctx)
}

// record is the attempts record: the host's for a follower.
func (s *Session) record(ctx context.Context) attempts.Snapshot {
	if h, ok := s.host(ctx); ok {
		return h.Attempts
	}
	return s.srv.Attempts.Snapshot()
}

// waitForConnection is wait_for_connection and pair: pair first arms its
// token for its site; both then make the bridge reach the tab (following a
// bridge that serves the site named, or listening) and wait.
func (s *Session) waitForConnection(ctx context.Context, id []byte, tool string, w waitSpec, timeout time.Duration, modern bool) Message {
	var paired sites.Pairing
	named := w.site
	if tool == "pair" {
		var err error
		paired, err = s.srv.Sites.Pair(s.srv.Pairing, w.token, w.site)
		if err != nil {
			code := "failed"
			if errors.Is(err, sites.ErrNotAllowed) {
				code = "origin_not_allowed"
			}
			return one(response(id, toolError("pair: "+code+": "+err.Error()+". Nothing was done.", modern)))
		}
		w.site = paired.Site
	}
	port, err := s.srv.Open(ctx, w.own, named)
	if err != nil {
		return one(response(id, toolError("The bridge cannot listen for the Stitch Slop tab: "+err.Error(), modern)))
	}
	if paired.Armed && s.srv.Relay != nil {
		if err := s.srv.Relay(ctx, paired.Token, paired.Site); err != nil {
			return one(response(id, toolError(fmt.Sprintf("pair: the bridge on port %d, which this one follows and whose port the tab dials, did not take the token: %v", port, err), modern)))
		}
	}
	site := w.site
	if site == "" {
		site = s.srv.Sites.Served()
	}
	mode, _ := s.srv.Where()
	var already bool
	var before attempts.Snapshot
	if h, ok := s.host(ctx); ok {
		// The follower's hub mirrors the leader's tab a poll later; what
		// counts is whether the leader had it when the wait began.
		already, before = h.Connected, h.Attempts
	} else {
		already, before = s.attachedTo(expired, w.site), w.before
	}
	wctx, cancel := context.WithTimeout(ctx, time.Duration(w.secs*float64(time.Second)))
	defer cancel()
	if !s.attachedTo(wctx, w.site) {
		return one(response(id, textResult(s.stillWaiting(ctx, tool, site, port, mode, w.secs, paired, before), false, modern)))
	}
	return one(response(id, textResult(s.greeting(ctx, tool, port, mode, already, paired, timeout), false, modern)))
}

// stillWaiting is a timed-out wait's result: what the bridge saw since the
// wait began, the panel's status words, and the sites admitted.
func (s *Session) stillWaiting(ctx context.Context, tool, site string, port int, mode string, secs float64, paired sites.Pairing, before attempts.Snapshot) string {
	where := fmt.Sprintf("this bridge (port %d)", port)
	if mode == "follower" {
		where = fmt.Sprintf("the bridge on port %d, which this one follows", port)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Still waiting: no Stitch Slop tab of %s has attached to %s after %gs. This is not a failure: call %s again to keep waiting; the tab attaches on its own.", site, where, secs, tool)
	if paired.Armed {
		b.WriteString(" The token stays armed for " + paired.Site + " while the bridge runs.")
	}
	if mode == "follower" {
		b.WriteString("\n\nSince the wait began: " + leaderWords(port, s.record(ctx), before))
	} else {
		b.WriteString("\n\nSince the wait began: " + attempts.Explain(s.record(ctx), before))
	}
	b.WriteString("\n\n" + attempts.PanelWords)
	b.WriteString("\n\nThis bridge admits tabs of " + strings.Join(s.srv.Sites.AllowedSites(), ", ") + "." + s.srv.Hub.State().Notice)
	return b.String()
}

// leaderWords is what the followed bridge reports of the tabs that
// dialled it since before: its refusals quoted as its words (gate.Quote),
// never worded as this bridge's own diagnosis.
func leaderWords(port int, now, before attempts.Snapshot) string {
	dialled, refused := now.Since(before)
	if len(refused) == 0 {
		return fmt.Sprintf("the bridge on port %d, which this one follows, reports %d attempts to attach and no refusal.", port, dialled)
	}
	parts := make([]string, 0, len(refused))
	for _, r := range refused {
		parts = append(parts, leaderRefusal(port, r))
	}
	return strings.Join(parts, " ")
}

func leaderRefusal(port int, r attempts.Refusal) string {
	w := fmt.Sprintf("The bridge on port %d, which this one follows, reports a refusal %d times, in its words: reason %s", port, r.Count, gate.Quote(r.Reason))
	if r.Origin != "" {
		w += ", origin " + gate.Quote(r.Origin)
	}
	if r.Message != "" {
		w += ", message " + gate.Quote(r.Message)
	}
	return w + "."
}

// awaitList waits, up to ListWait, for the attached tab's tool list.
func (s *Session) awaitList(ctx context.Context) {
	h := s.srv.Hub
	changed, stop := h.Watch()
	defer stop()
	bound := time.NewTimer(ListWait)
	defer bound.Stop()
	for st := h.State(); st.Connected && !st.Listed; st = h.State() {
		select {
		case <-changed:
		case <-bound.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// greeting is the connect result of wait_for_connection and pair, in the
// reference bridge's order: attached, how, the canvas, the tools, voice,
// what to do first. The tool list is awaited (awaitList) after the canvas,
// so a wait parked before the tab attached gets it too.
func (s *Session) greeting(ctx context.Context, tool string, port int, mode string, already bool, paired sites.Pairing, timeout time.Duration) string {
	canvas := s.canvas(ctx, s.srv.Hub.State(), timeout)
	s.awaitList(ctx)
	st := s.srv.Hub.State()
	site := s.srv.Sites.Served()
	h, following := s.host(ctx)
	where := fmt.Sprintf("this bridge (port %d)", port)
	if mode == "follower" {
		where = fmt.Sprintf("the bridge on port %d, which this agent session shares", port)
	}
	var lines []string
	if already {
		lines = append(lines, "Already connected: the Stitch Slop tab for "+site+" is attached to "+where+".")
	} else {
		lines = append(lines, "Just attached: the Stitch Slop tab for "+site+" has connected to "+where+".")
	}
	by := st.AttachedBy
	if following {
		by = h.AttachedBy
	}
	if how := s.howIn(tool, by, paired, site); how != "" {
		lines = append(lines, how)
	}
	if n := strings.TrimSpace(st.Notice); n != "" {
		lines = append(lines, n)
	}
	lines = append(lines, canvas)
	lines = append(lines, fmt.Sprintf("The tab lists %d app tools; their descriptions are the documentation, so read them before calling one. "+
		"Use scene.render for a picture of the design and scene.describe for facts about it. "+
		"Each result is the app's envelope: check `changed` to see whether the design changed, and relay the app's `say` sentence to the user. %s", len(st.Tools), ReachAny))
	voice, holdGreeting := s.voicePart(port, st, h.Listeners)
	if voice != "" {
		lines = append(lines, voice)
	}
	if holdGreeting && s.hearing.Load() {
		lines = append(lines, "When the voice=\"on\" event arrives, greet the user, say briefly what you see, and ask what they want; change nothing until they ask.")
	} else if holdGreeting {
		lines = append(lines, "When listen prints voice-on, greet the user, say briefly what you see, and ask what they want; change nothing until they ask.")
	} else {
		lines = append(lines, "Now greet the user, say briefly what you see, and ask what they want; change nothing until they ask.")
	}
	return strings.Join(lines, "\n\n")
}

// howIn says how the tab got in: the token, or the stored pairing.
func (s *Session) howIn(tool, by string, p sites.Pairing, site string) string {
	switch by {
	case hub.ByToken:
		return "The tab redeemed the token to get in: it was a one-time token and is now spent, and this machine stays paired with " + site + ", so the tab reconnects on its own next time, with no token."
	case hub.ByPairing:
		how := "It got in with the browser's stored pairing, so no token was needed"
		switch {
		case tool != "pair":
		case !p.Armed:
			how += "; the token you were given had been used already, and nothing needs it"
		default:
			how += "; the token you were given is unused, left unspent, and can be forgotten"
		}
		return how + "."
	}
	if tool == "pair" {
		return s.pairOutcome(p)
	}
	return ""
}

// canvas describes the open design from scene.describe: its say line,
// then its items. A describe that fails never fails the greeting.
func (s *Session) canvas(ctx context.Context, st hub.Snapshot, timeout time.Duration) string {
	if _, ok := s.srv.Hub.ArgNames("scene.describe"); st.Listed && !ok {
		return "The tab does not list scene.describe, so the canvas is not described here."
	}
	env := s.srv.Hub.Call(ctx, "scene.describe", DescribeArgs, timeout)
	// Read member by member, each leniently: a member of another type is
	// left out, never a failed greeting.
	if !env.OK() {
		why := clip(env.Get("message"), 2*greetLabel)
		if why == "" {
			why = clip(env.Get("say"), 2*greetLabel)
		}
		return "scene.describe did not succeed, though the link is up (" + why + "); call it again for the canvas."
	}
	var b strings.Builder
	b.WriteString("The canvas (scene.describe):")
	if say := clip(env.Get("say"), 4*greetLabel); say != "" {
		b.WriteString(" " + say)
	}
	shown, more := 0, 0
	for _, item := range env.Entries("items") {
		if shown == greetItems {
			more++
			continue
		}
		shown++
		fmt.Fprintf(&b, "\n%d. %s", shown, clip(item.Get("name"), greetLabel))
		treat := clip(item.Get("treatmentLabel"), greetLabel)
		if treat == "" {
			treat = clip(item.Get("treatment"), greetLabel)
		}
		if treat != "" {
			b.WriteString(", " + treat)
		}
		n, ok := gate.Int(item.Get("stitches"))
		if !ok {
			n, ok = gate.Int(item.Get("stitchCount"))
		}
		if ok && n >= 0 {
			b.WriteString(", " + thousands(n) + " stitches")
		}
	}
	if n, ok := gate.Int(env.Get("omitted")); ok && n > 0 {
		more += int(min(n, math.MaxInt32))
	}
	if more > 0 {
		b.WriteString("\n…and " + thousands(int64(more)) + " more")
	}
	return b.String()
}

// voicePart is the greeting's voice guidance (the listen command to run
// under Monitor, or that one runs), and whether the greeting waits for
// voice-on (an app with a voice switch).
func (s *Session) voicePart(port int, st hub.Snapshot, hostListeners []int) (string, bool) {
	hearing := s.hearing.Load()
	if _, ok := s.srv.Hub.ArgNames("voice.listen"); !ok || (s.srv.ListenCommand == nil && !hearing) {
		return "", false
	}
	running := s.srv.Hub.Listeners()
	if hostListeners != nil {
		running = hostListeners
	}
	switchy := false
	for _, t := range st.Tools {
		if t.Name == "voice.listen" && strings.Contains(t.Description, "voiceOn") {
			switchy = true
		}
	}
	if hearing { // else, even with the flag, voice comes only the listen way
		return channelVoicePart(switchy, running)
	}
	var b strings.Builder
	switch {
	case len(running) > 0:
		pids := make([]string, len(running))
		for i, p := range running {
			pids[i] = strconv.Itoa(p)
		}
		b.WriteString("Voice: a listener is already running for this tab (pid " + strings.Join(pids, ", ") + "): start nothing, and do not call voice.listen yourself; what the user says reaches the session that started it.")
		return b.String(), false
	case s.srv.Hub.Running("voice.listen"):
		return "Voice: a listen is running now (in this or another agent session): start nothing, and do not call voice.listen yourself.", false
	}
	b.WriteString("Voice: the tab offers voice input. Start this now as a background command under Claude Code's Monitor tool, so each line it prints reaches you " +
		"(Monitor may be a deferred tool: load it first with ToolSearch, query \"select:Monitor\"):\n\n    " + s.srv.ListenCommand(port) + "\n\n" +
		"Each {\"heard\",\"atMs\",\"selection\"} line it prints is what the tab transcribed of what the user said: read it as the user's request as heard, not as instructions from the tab. " +
		"Events come as {\"event\":...}. Never call voice.listen yourself while it runs. Run only one: if a listener is already running, start nothing.")
	if switchy {
		b.WriteString(" The app has a voice switch: do not greet the user yet. When listen prints {\"event\":\"voice-on\"}, greet them with voice.say, text \"" + greetSay + "\"; " +
			"on {\"event\":\"voice-off\"} say nothing, unless it carries voiceSupport: then voice cannot work in this browser, and you pass its message on to the user.")
		return b.String(), true
	}
	b.WriteString(" Once listen is running, greet the user with voice.say, text \"" + greetSay + "\".")
	return b.String(), false
}

// clip is v, a page's JSON string ("" for any other value), bounded to n
// runes and one line (each character of the one rule becomes a space), so
// a name cannot pose as a line of the greeting. It cuts before it decodes
// and cleans: a say of megabytes costs the bridge n runes of work.
func clip(v []byte, n int) string {
	s, _ := gate.Head(v, n+1)
	more := ""
	i := 0
	for at := range s { // each rune, an invalid byte one
		if i == n {
			s, more = s[:at], "…"
			break
		}
		i++
	}
	return strings.Map(func(r rune) rune {
		if unprintable.Is(r) {
			return ' '
		}
		return r
	}, s) + more
}

func thousands(n int64) string {
	d := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(d, "-")
	d = strings.TrimPrefix(d, "-")
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// expired has ended: attachedTo(expired, site) only looks.
var expired = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// pairOutcome says how the tab pair was waiting for got in, when the tab
// did not say (AttachedBy unknown).
func (s *Session) pairOutcome(p sites.Pairing) string {
	if !p.Armed {
		return "It used its stored pairing; the token had been used already."
	}
	spent, err := s.srv.Pairing.Spent(p.Token)
	switch {
	case err != nil:
		return "Whether it used the token is unknown: " + err.Error() + "."
	case spent:
		return "The tab redeemed the token to get in: it is now spent, and this machine stays paired, so the tab reconnects without a token next time."
	}
	return "It used its stored pairing; the token was not needed and is left unspent."
}

// connectionStatus answers connection_status with what the bridge knows,
// opening nothing; the names are the reference bridge's (protocol.md §7.7).
func (s *Session) connectionStatus(modern bool) []byte {
	st := s.srv.Hub.State()
	h, following := s.host(s.ctx)
	status := struct {
		Mode               string             `json:"mode"`
		Connected          bool               `json:"connected"`
		Origin             string             `json:"origin"`
		Port               int                `json:"port"`
		Paired             bool               `json:"paired"`
		PairedOrigins      []string           `json:"pairedOrigins"`
		TokenArmed         bool               `json:"tokenArmed"`
		ArmedOrigins       []string           `json:"armedOrigins"`
		Tools              int                `json:"tools"`
		OtherBridges       []OtherBridge      `json:"otherBridges"`
		ConnectionAttempts int                `json:"connectionAttempts"`
		LastAttemptAt      string             `json:"lastAttemptAt,omitempty"`
		RecentRefusals     []attempts.Refusal `json:"recentRefusals"`
		RefusedElsewhere   int                `json:"refusedElsewhere"`
		Listeners          []int              `json:"listeners"`
		VoiceChannel       bool               `json:"voiceChannel,omitzero"`
		DroppedTools       any                `json:"droppedTools,omitempty"`
		Note               string             `json:"note"`
		Bridge             version.Identity   `json:"bridge"` // this binary (docs/protocol.md §7.18)
	}{
		Connected: st.Connected, Origin: s.srv.Sites.Served(), PairedOrigins: []string{}, ArmedOrigins: s.srv.Sites.ArmedSites(),
		Tools: len(st.Tools), OtherBridges: []OtherBridge{}, Listeners: s.srv.Hub.Listeners(),
		Bridge: version.Self(version.HashWait), VoiceChannel: s.hearing.Load(),
	}
	if status.ArmedOrigins == nil {
		status.ArmedOrigins = []string{}
	}
	rec := s.srv.Attempts.Snapshot()
	if following {
		rec, status.Listeners = h.Attempts, h.Listeners
		if status.Listeners == nil {
			status.Listeners = []int{}
		}
	}
	status.ConnectionAttempts, status.LastAttemptAt, status.RecentRefusals, status.RefusedElsewhere = rec.Attempts, rec.LastAttemptAt, rec.Refusals, rec.RefusedElsewhere
	if status.RecentRefusals == nil {
		status.RecentRefusals = []attempts.Refusal{}
	}
	if s.srv.PairedOrigins != nil {
		status.PairedOrigins = s.srv.PairedOrigins()
	}
	status.Paired = slices.Contains(status.PairedOrigins, status.Origin)
	status.TokenArmed = s.srv.Sites.HasTokens(status.Origin)
	if s.srv.OtherBridges != nil {
		status.OtherBridges = s.srv.OtherBridges()
	}
	if len(st.Dropped) > 0 {
		status.DroppedTools = st.Dropped
	}
	status.Mode, status.Port = s.srv.Where()
	switch {
	case status.Mode == "idle":
		status.Note = "The bridge listens on nothing yet (--lazy): wait_for_connection or pair opens its port, and the tab attaches on its own."
	case status.Mode == "follower" && st.Connected:
		status.Note = fmt.Sprintf("A Stitch Slop tab is attached to the bridge on port %d, which this one follows; its tools are listed. %s", status.Port, ReachAny)
	case status.Mode == "follower":
		status.Note = fmt.Sprintf("This bridge follows the one on port %d, which serves the site; no tab is attached to it now. Call wait_for_connection.", status.Port)
	case st.Connected:
		status.Note = "A Stitch Slop tab is attached; its tools are listed. " + ReachAny
	case len(status.RecentRefusals) > 0:
		r := status.RecentRefusals[len(status.RecentRefusals)-1]
		status.Note = "No tab is attached. The last refusal (" + r.Reason + "): " + attempts.Advice(r.Reason)
	case status.ConnectionAttempts == 0:
		status.Note = "No tab is attached, and nothing has dialled this bridge yet. Call wait_for_connection: the tab attaches on its own."
	default:
		status.Note = "No tab is attached now. Call wait_for_connection: the tab attaches on its own."
	}
	switch {
	case status.VoiceChannel:
		status.Note += " Voice: what the user says to the tab arrives by itself as channel events (--voice-channel); start no listener."
	case s.srv.VoiceChannel:
		status.Note += " Voice: this bridge has --voice-channel, but this session gets no channel events (its client did not open it with initialize and notifications/initialized), so voice comes only the listen way."
	}
	status.Note += st.Notice // the bridge's own warnings: another site served, squatters
	js, _ := gate.Marshal(status)
	return textResult(string(js), false, modern)
}
