package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
)

// Bounds of wait_for_connection's timeoutSeconds (protocol.md §3.4).
const (
	WaitDefaultSeconds = 90
	WaitMaxSeconds     = 120
)

// DescribeArgs is what the connection greeting asks scene.describe for, as
// the reference bridge does.
var DescribeArgs = json.RawMessage(`{"limit":8}`)

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
	},
}

func (s *Server) toolList() []any {
	tools := []any{waitTool}
	for _, t := range s.Hub.State().Tools {
		tools = append(tools, t)
	}
	return tools
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// content is one MCP content block.
type content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
}

type callResult struct {
	Content []content `json:"content"`
	IsError bool      `json:"isError"`
}

func textResult(text string, isError bool) callResult {
	return callResult{Content: []content{{Type: "text", Text: text}}, IsError: isError}
}

func (s *Server) call(ctx context.Context, p callParams) callResult {
	if p.Name == "wait_for_connection" {
		return s.waitForConnection(ctx, p.Arguments)
	}
	return Convert(s.Hub.Call(ctx, p.Name, p.Arguments))
}

// Convert turns a page envelope into a tools/call result (protocol.md §3.5):
// the say line first, then the envelope as JSON without its transport id;
// a dataUrl becomes an image block and leaves the text; ok:false is isError.
func Convert(env []byte) callResult {
	o, err := envelope.Parse(env)
	if err != nil {
		return textResult(string(env), true)
	}
	var blocks []content
	text := o.Without("id")
	img, hasImg := o.Image()
	if hasImg {
		text = text.Without("dataUrl")
	}
	b, _ := json.Marshal(text)
	t := string(b)
	if say, ok := o.String("say"); ok && say != "" {
		t = say + "\n\n" + t
	}
	blocks = append(blocks, content{Type: "text", Text: t})
	if hasImg {
		blocks = append(blocks, content{Type: "image", Data: img.B64, MIMEType: img.MIME})
	}
	return callResult{Content: blocks, IsError: o.Failed()}
}

func (s *Server) waitForConnection(ctx context.Context, args json.RawMessage) callResult {
	var a struct {
		TimeoutSeconds *float64 `json:"timeoutSeconds"`
	}
	json.Unmarshal(orEmpty(args), &a)
	secs := float64(WaitDefaultSeconds)
	if a.TimeoutSeconds != nil && *a.TimeoutSeconds > 0 && !math.IsInf(*a.TimeoutSeconds, 0) {
		secs = min(*a.TimeoutSeconds, WaitMaxSeconds)
	}
	already := s.Hub.State().Connected
	wctx, cancel := context.WithTimeout(ctx, time.Duration(secs*float64(time.Second)))
	defer cancel()
	if !s.Hub.Wait(wctx) {
		return textResult(fmt.Sprintf("Still waiting: no Stitch Slop tab has attached to this bridge (port %d, site %s) after %gs. "+
			"Call wait_for_connection again to keep waiting; the tab attaches on its own. "+
			"If it never does, ask the user whether the Allow agent connections switch is on in their Stitch Slop tab.", s.Port, s.Origin, secs), false)
	}
	head := "Connected: the Stitch Slop tab for " + s.Origin + " has attached."
	if already {
		head = "Already connected: the Stitch Slop tab for " + s.Origin + " is attached."
	}
	d := Convert(s.Hub.Call(ctx, "scene.describe", DescribeArgs))
	intro := head + " Its tools are now listed. scene.describe answered:\n\n"
	if d.IsError {
		intro = head + " scene.describe did not succeed, though the link is up:\n\n"
	}
	d.Content[0].Text = intro + d.Content[0].Text
	d.IsError = false
	return d
}
