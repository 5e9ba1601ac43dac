package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// The file tools (protocol.md §7.15): the agent names files by path, and
// their bytes go between the disk and the tab without passing through the
// model as base64 (but for a data URL short enough that a call shows it).
// security/files decides what may be read and written (THREAT_MODEL.md
// T16).

// maxAlso bounds call_with_file's extra files (colour sidecars and such).
const maxAlso = replyfiles.MaxAttached - 1

// fileCalls bounds how many file tool calls hold file contents at once:
// each may hold 4 files of files.MaxIn, a third larger as data URLs.
const fileCalls = 2

// fileIn is one file call_with_file sends.
type fileIn struct {
	Path    string `json:"path"`
	FileArg string `json:"fileArg"`
	As      string `json:"as"`
	NameArg string `json:"nameArg"`
}

// callArgs are the tab command a file tool runs and its arguments.
type callArgs struct {
	Command string          `json:"command"`
	Args    json.RawMessage `json:"args"`
}

// withFileArgs are call_with_file's arguments.
type withFileArgs struct {
	callArgs
	fileIn
	Also []fileIn `json:"also"`
}

// toFilesArgs are call_to_files's arguments.
type toFilesArgs struct {
	callArgs
	Dir       string `json:"dir"`
	FileName  string `json:"fileName"`
	TextFile  string `json:"textFile"`
	Overwrite bool   `json:"overwrite"`
}

// decodeStrict decodes a file tool's arguments into v, refusing unknown
// members at any level, and checks c, the command in v; the message says
// what was wrong.
func decodeStrict(tool string, args []byte, v any, c *callArgs) string {
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	dec.UseNumber() // numbers in args go to the tab as they came
	err := dec.Decode(v)
	t := bytes.TrimSpace(c.Args)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: the arguments do not fit: %v. Nothing was done.", tool, err)
	case c.Command == "":
		return tool + ": command is required: the tab's command to run. Nothing was done."
	case slices.Contains(ReservedTools, c.Command):
		return fmt.Sprintf("%s: %q is one of this bridge's own tools, not a command of the tab. Nothing was done.", tool, c.Command)
	case len(t) > 0 && t[0] != '{' && string(t) != "null":
		return tool + ": args must be an object. Nothing was done."
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
	run := s.callToFiles
	if tool == "call_with_file" {
		run = s.callWithFile
	}
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer stop()
		m := s.guarded(id, func() Message { return run(ctx, id, args, timeout, modern) })
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
	fail := func(msg string) Message { return one(response(id, toolError(msg, modern))) }
	var a withFileArgs
	if msg := decodeStrict("call_with_file", raw, &a, &a.callArgs); msg != "" {
		return fail(msg)
	}
	if len(a.Also) > maxAlso {
		return fail(fmt.Sprintf("call_with_file: also takes at most %d files. Nothing was done.", maxAlso))
	}
	var list []replyfiles.Attach
	for _, in := range append([]fileIn{a.fileIn}, a.Also...) {
		if !filepath.IsAbs(in.Path) {
			return fail(fmt.Sprintf("call_with_file: %q is not an absolute path; give the file's full path (this bridge's working folder may not be yours). Nothing was sent.", in.Path))
		}
		list = append(list, replyfiles.Attach{Path: in.Path, Arg: in.FileArg, Mode: in.As, NameArg: in.NameArg})
	}
	release, ok := s.srv.fileSlot(ctx)
	if !ok {
		return fail("call_with_file: cancelled before the file was read.")
	}
	args, sent, err := replyfiles.AttachFiles(a.Args, list, "args")
	if err != nil {
		release()
		return fail("call_with_file: " + err.Error() + ". Nothing was sent to the tab.")
	}
	ch := make(chan envelope.Reply, 1)
	// args is dead past here (and so not kept while the tab works on it).
	cancel := s.srv.Hub.Start(a.Command, args, timeout, func(r envelope.Reply) { ch <- r })
	release() // the frame is queued for the tab, or refused
	var env envelope.Reply
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
	return toolResponse(id, env, ownWords{words: "call_with_file sent " + sent + " to the tab, which answered with the block before this one."}, modern)
}

func (s *Session) callToFiles(ctx context.Context, id, raw []byte, timeout time.Duration, modern bool) Message {
	fail := func(msg string) Message { return one(response(id, toolError(msg, modern))) }
	var a toFilesArgs
	if msg := decodeStrict("call_to_files", raw, &a, &a.callArgs); msg != "" {
		return fail(msg)
	}
	if !filepath.IsAbs(a.Dir) {
		return fail(fmt.Sprintf("call_to_files: dir %q is not an absolute path; give the folder's full path (this bridge's working folder may not be yours). Nothing was done.", a.Dir))
	}
	// Everything that does not need the reply is decided before the call,
	// so that it is not made for nothing (replyfiles.Ready).
	o := replyfiles.Options{Dir: a.Dir, FileName: a.FileName, TextFile: a.TextFile, Overwrite: a.Overwrite, OverwriteFlag: "overwrite: true", AsItCame: true}
	var nr *replyfiles.NotReady
	if errors.As(replyfiles.Ready(o), &nr) {
		return fail(fmt.Sprintf("call_to_files: dir %q: %s. Nothing was sent to the tab.", a.Dir, nr.Why))
	}
	env := s.srv.Hub.Call(ctx, a.Command, a.Args, timeout)
	release, ok := s.srv.fileSlot(ctx)
	if !ok {
		return fail("call_to_files: cancelled before the files were saved.")
	}
	defer release()
	r := replyfiles.Save(env, o)
	if r.Tried() == 0 && !env.OK() {
		return toolResponse(id, env, ownWords{}, modern) // a refusal, or nothing to save: the reply as it came
	}
	return toolResponse(id, env, saveReport(r), modern)
}

// saveReport is what call_to_files says of what it saved (protocol.md
// §7.15), in its own block after the tab's reply: the reply is passed on
// as any call passes it, less the top-level dataUrl and text it saved (a
// page's own savedTo stays the page's words), its notes of data URLs
// pointing to this block. Refusing any part makes the result isError.
func saveReport(r replyfiles.Result) ownWords {
	var saved, refused, members []string
	for _, p := range r.Saved {
		saved = append(saved, fmt.Sprintf("%s -> %s (%d bytes)", p.Where, gate.QuotePath(p.Path), p.Bytes))
		if p.Where == "dataUrl" || p.Where == "text" {
			members = append(members, p.Where)
		}
	}
	for _, p := range r.Refused {
		refused = append(refused, p.Where+": "+p.Why)
	}
	words := "call_to_files saved nothing of the reply (no files, and no fileName or textFile for what it carries)."
	if saved != nil {
		words = "call_to_files saved " + strings.Join(saved, "; ") + "."
	}
	if n := r.Renamed(); n > 0 {
		words += fmt.Sprintf(" %d of them are not under the name they were given: %s.", n, replyfiles.RenamedWhy)
	}
	if refused != nil {
		words += " Not saved (nothing was written for these): " + strings.Join(refused, "; ") + "."
	}
	words += " The block before this one is the tab's reply as a call gives it"
	if members != nil {
		words += ", less the " + strings.Join(members, " and ") + " saved"
	}
	words += "; only this block, the bridge's own, says what was saved."
	return ownWords{words: words, saved: members, refused: len(r.Refused) > 0, guard: &savedGuard}
}
