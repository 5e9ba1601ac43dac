package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/rawjson"
)

// The file tools (reference-bridge-notes.md, Files by path): the agent
// names files by path, and their bytes go between the disk and the tab
// without passing through the model as base64. security/files decides what
// may be read and written (THREAT_MODEL.md T16).

// maxAlso bounds call_with_file's extra files (colour sidecars and such).
const maxAlso = 3

// fileCalls bounds how many file tool calls hold file contents at once:
// each may hold 4 files of files.MaxIn, a third larger as data URLs.
const fileCalls = 2

var fileProps = map[string]any{
	"path":    map[string]any{"type": "string", "description": "The file's absolute path."},
	"fileArg": map[string]any{"type": "string", "description": "The argument of the command that gets the file; a dotted path of up to 3 parts (sidecar.data) for a nested one."},
	"as":      map[string]any{"type": "string", "enum": []string{files.DataURL, files.Text}, "description": "dataUrl (default), or text for SVG, DXF, .stitchslop and JSON."},
	"nameArg": map[string]any{"type": "string", "description": "The argument that gets the file's name, if the command wants one."},
}

var withFileTool = map[string]any{
	"name":  "call_with_file",
	"title": "Call a Stitch Slop command with a file",
	"description": "Runs a command of the tab with a file from disk put into one of its arguments, without the file passing through you. " +
		"Images (PNG, JPEG, GIF, WebP) and design files (DST, PES, JEF, EXP, VP3, INF, COL, SVG, DXF, .stitchslop, JSON) up to 14 MB; no hidden files.",
	"inputSchema": map[string]any{
		"type": "object",
		"properties": merge(fileProps, map[string]any{
			"command": map[string]any{"type": "string", "description": "The tab's command, one of its listed tools."},
			"args":    map[string]any{"type": "object", "description": "The command's other arguments."},
			"also": map[string]any{"type": "array", "maxItems": maxAlso, "description": "Up to 3 more files, such as colour sidecars.",
				"items": map[string]any{"type": "object", "properties": fileProps, "required": []string{"path", "fileArg"}, "additionalProperties": false}},
		}),
		"required":             []string{"command", "path", "fileArg"},
		"additionalProperties": false,
	},
}

var toFilesTool = map[string]any{
	"name":  "call_to_files",
	"title": "Call a Stitch Slop command and save what it returns",
	"description": "Runs a command of the tab and saves the files it returns into a folder instead of passing them to you: each of its files " +
		"(up to " + strconv.Itoa(files.MaxSaved) + ") under its own name, a top-level image under fileName, its text under textFile. You get where each was saved.",
	"inputSchema": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command":   map[string]any{"type": "string", "description": "The tab's command, one of its listed tools."},
			"args":      map[string]any{"type": "object", "description": "The command's arguments."},
			"dir":       map[string]any{"type": "string", "description": "The absolute path of the folder to save into, not hidden; it is created, with any missing parents, if it does not exist."},
			"fileName":  map[string]any{"type": "string", "description": "The name for a top-level image the reply carries."},
			"textFile":  map[string]any{"type": "string", "description": "The name for the reply's text, if any (a .txt, .md or design name)."},
			"overwrite": map[string]any{"type": "boolean", "description": "Replace files that exist (default: never)."},
		},
		"required":             []string{"command", "dir"},
		"additionalProperties": false,
	},
}

func merge(a, b map[string]any) map[string]any {
	m := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// fileIn is one file call_with_file sends.
type fileIn struct {
	Path    string `json:"path"`
	FileArg string `json:"fileArg"`
	As      string `json:"as"`
	NameArg string `json:"nameArg"`
}

// withFileArgs are call_with_file's arguments.
type withFileArgs struct {
	Command string         `json:"command"`
	Args    map[string]any `json:"args"`
	fileIn
	Also []fileIn `json:"also"`
}

// toFilesArgs are call_to_files's arguments.
type toFilesArgs struct {
	Command   string          `json:"command"`
	Args      json.RawMessage `json:"args"`
	Dir       string          `json:"dir"`
	FileName  string          `json:"fileName"`
	TextFile  string          `json:"textFile"`
	Overwrite bool            `json:"overwrite"`
}

// decodeStrict decodes a tool's arguments, refusing unknown members at any
// level; the message says what was wrong.
func decodeStrict(tool string, args []byte, v any) string {
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	dec.UseNumber() // numbers in args go to the tab as they came
	if err := dec.Decode(v); err != nil {
		return fmt.Sprintf("%s: the arguments do not fit: %v. Nothing was done.", tool, err)
	}
	return ""
}

// command checks the tab command a file tool runs.
func command(tool, c string) string {
	switch {
	case c == "":
		return tool + ": command is required: the tab's command to run. Nothing was done."
	case slices.Contains(ReservedTools, c):
		return fmt.Sprintf("%s: %q is one of this bridge's own tools, not a command of the tab. Nothing was done.", tool, c)
	}
	return ""
}

// startFileTool runs call_with_file or call_to_files as a held request:
// it reads or writes files, then waits for the tab.
func (s *Session) startFileTool(tool string, id, args []byte, timeout time.Duration, modern bool) {
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
		var m Message
		if tool == "call_with_file" {
			m = s.callWithFile(ctx, id, args, timeout, modern)
		} else {
			m = s.callToFiles(ctx, id, args, timeout, modern)
		}
		s.finish(id, f, func() Message { return m })
	}()
}

// fileSlot takes one of the fileCalls slots, or reports false when ctx
// ends first.
func (s *Server) fileSlot(ctx context.Context) (release func(), ok bool) {
	s.filesOnce.Do(func() { s.fileSem = make(chan struct{}, fileCalls) })
	select {
	case s.fileSem <- struct{}{}:
		return func() { <-s.fileSem }, true
	case <-ctx.Done():
		return nil, false
	}
}

func (s *Session) callWithFile(ctx context.Context, id, raw []byte, timeout time.Duration, modern bool) Message {
	fail := func(msg string) Message { return Message{response(id, toolError(msg, modern))} }
	var a withFileArgs
	if msg := decodeStrict("call_with_file", raw, &a); msg != "" {
		return fail(msg)
	}
	if msg := command("call_with_file", a.Command); msg != "" {
		return fail(msg)
	}
	if len(a.Also) > maxAlso {
		return fail(fmt.Sprintf("call_with_file: also takes at most %d files. Nothing was done.", maxAlso))
	}
	if a.Args == nil {
		a.Args = map[string]any{}
	}
	release, ok := s.srv.fileSlot(ctx)
	if !ok {
		return fail("call_with_file: cancelled before the file was read.")
	}
	var sent []string
	for _, in := range append([]fileIn{a.fileIn}, a.Also...) {
		if !filepath.IsAbs(in.Path) {
			release()
			return fail(fmt.Sprintf("call_with_file: %q is not an absolute path; give the file's full path (this bridge's working folder may not be yours). Nothing was sent.", in.Path))
		}
		f, err := files.Read(in.Path, in.As)
		if err == nil {
			err = files.SetArg(a.Args, in.FileArg, f.Value)
		}
		if err == nil && in.NameArg != "" {
			err = files.SetArg(a.Args, in.NameArg, f.Name)
		}
		if err != nil {
			release()
			return fail("call_with_file: " + err.Error() + ". Nothing was sent to the tab.")
		}
		sent = append(sent, fmt.Sprintf("%s (%d bytes, %s) as %s", f.Name, f.Size, f.Mime, in.FileArg))
	}
	args, err := json.Marshal(a.Args)
	if err != nil {
		release()
		return fail("call_with_file: cannot encode the arguments: " + err.Error())
	}
	ch := make(chan rawjson.Checked, 1)
	cancel := s.srv.Hub.Start(a.Command, args, timeout, func(r rawjson.Checked) { ch <- r })
	args, a.Args = nil, nil
	release() // the frame is queued for the tab, or refused
	var env rawjson.Checked
	select {
	case env = <-ch:
	case <-ctx.Done():
		if !cancel() {
			env = <-ch
		}
	}
	if env.Bytes() == nil {
		return fail("call_with_file: cancelled before the tab answered.")
	}
	return toolResponse(id, env, "Sent "+strings.Join(sent, "; ")+". The tab answered:\n\n", false, modern)
}

func (s *Session) callToFiles(ctx context.Context, id, raw []byte, timeout time.Duration, modern bool) Message {
	fail := func(msg string) Message { return Message{response(id, toolError(msg, modern))} }
	var a toFilesArgs
	if msg := decodeStrict("call_to_files", raw, &a); msg != "" {
		return fail(msg)
	}
	if msg := command("call_to_files", a.Command); msg != "" {
		return fail(msg)
	}
	if !filepath.IsAbs(a.Dir) {
		return fail(fmt.Sprintf("call_to_files: dir %q is not an absolute path; give the folder's full path (this bridge's working folder may not be yours). Nothing was done.", a.Dir))
	}
	if len(a.Args) > 0 && !rawjsonObject(a.Args) {
		return fail("call_to_files: args must be an object. Nothing was done.")
	}
	// The agent's own names meet every rule before the call, so that it is
	// not made for nothing.
	for _, n := range []struct{ arg, name string }{{"fileName", a.FileName}, {"textFile", a.TextFile}} {
		var ne *files.NameError
		if err := files.CheckName(n.name); n.name != "" && errors.As(err, &ne) {
			return fail(fmt.Sprintf("call_to_files: %s %q: %s; give a bare file name such as preview.png or notes.txt. Nothing was done.", n.arg, n.name, ne.Why))
		}
	}
	if a.FileName != "" && files.NameKey(a.FileName) == files.NameKey(a.TextFile) {
		return fail("call_to_files: fileName and textFile name one file; give each its own name. Nothing was done.")
	}
	env := s.srv.Hub.Call(ctx, a.Command, a.Args, timeout)
	release, ok := s.srv.fileSlot(ctx)
	if !ok {
		return fail("call_to_files: cancelled before the files were saved.")
	}
	defer release()
	r, err := replyfiles.Save(env.Bytes(), replyfiles.Options{Dir: a.Dir, FileName: a.FileName, TextFile: a.TextFile, Overwrite: a.Overwrite, OverwriteFlag: "overwrite: true"})
	if err != nil || (r.Tried == 0 && string(rawjson.Get(env.Bytes(), "ok")) != "true") {
		return toolResponse(id, env, "", false, modern) // a refusal, or nothing to save: the reply as it came
	}
	intro := "Nothing in the reply was saved (no files, and no fileName or textFile for what it carries)."
	if len(r.Saved) > 0 {
		saved := make([]string, len(r.Saved))
		for i, p := range r.Saved {
			saved[i] = fmt.Sprintf("%s -> %s (%d bytes)", p.Where, p.Path, p.Bytes)
		}
		intro = "Saved " + strings.Join(saved, "; ") + "."
	}
	status := errFromEnvelope
	if len(r.Refused) > 0 {
		refused := make([]string, len(r.Refused))
		for i, p := range r.Refused {
			refused[i] = p.Where + ": " + p.Why
		}
		intro += " Not saved (nothing was written for these): " + strings.Join(refused, "; ") + "."
		status = errAlways
	}
	return buildToolResponse(id, rawjson.MustCheck(r.Env), intro+" The tab answered:\n\n", status, modern)
}

func rawjsonObject(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && (t[0] == '{' || string(t) == "null")
}
