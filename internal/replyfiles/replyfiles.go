// Package replyfiles moves a call's files between the disk and the tab,
// the one implementation behind both faces (THREAT_MODEL.md T9, T16):
// AttachFiles puts files into a call's arguments (the shell's --file and
// --file-text, the MCP tool call_with_file), and Save saves the files a
// page's reply carries (call --save, call_to_files). Every file is read
// and written by security/files; this package decides which parts of a
// reply are files, bounds how much of a reply it looks at, and rewrites
// the reply so that it says what was saved.
//
// The rules, the same on both faces:
//
//   - each files[i], {name, dataUrl}, is saved under a name the bridge
//     builds from its name and its bytes (files.Name, the one rule for
//     every name but --out's: stem.stitchslop.kind), and its dataUrl gives way to savedTo and savedBytes, or to error when it was
//     refused; the base64 goes either way. An entry that is not an object
//     becomes {"error": why}.
//   - at most files.MaxSaved entries are saved; the next lookPast are
//     looked at and each refused with the reason, and whatever follows is
//     not looked at: one entry says how many were left out. A reply of
//     millions of entries costs one pass over its bytes, and as many log
//     lines and report parts as a reply of MaxSaved+lookPast.
//   - a top-level dataUrl is saved when Options.FileName is given, and
//     the reply's text (a string) when Options.TextFile is, under names
//     built from those by the same rule; the text gives way to
//     textSavedTo, or stays, with textError, when refused.
//   - members a page could use to claim a file was written (savedTo,
//     savedBytes and error in an entry; textSavedTo, textError, savedTo
//     and savedBytes at the top, unless Options.KeepTopSaved) are dropped.
//   - what a reply carries is saved whether it says ok or not: a partial
//     export's files are the user's all the same.
//   - what can be decided before the call is (Ready): the folder, made
//     if missing, so that a call is never made whose
//     files could not be saved.
//
// Reasons never quote a name from the page (security/files' errors do not).
// What was saved is reported in the reply as the faces show it
// (envelope.Reply.With): its members, pieces of what the door read, with
// the saved data left out and the bridge's own members in its place,
// written in one pass and never encoded or read again; it still carries
// the entries' names, and goes to the model or the terminal through
// security/gate like any reply.
package replyfiles

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// lookPast is how many entries after the first files.MaxSaved are still
// looked at, each refused with its reason, before the rest are counted
// only: enough to show the cap's effect, too few to flood a log.
const lookPast = 8

// Options say where and how the files of one reply are saved.
type Options struct {
	Dir       string
	FileName  string // the name of the top-level dataUrl; "" leaves it in the reply
	TextFile  string // the name of the reply's text; "" leaves it
	Overwrite bool
	// KeepTopSaved keeps a top-level savedTo and savedBytes: the shell's
	// --out has written them, for the image it saved. Otherwise they are a
	// page's claim, and dropped.
	KeepTopSaved bool
	// OverwriteFlag is how the reader asks to replace a file (the shell's
	// "--overwrite", MCP's "overwrite"), for the reason a file that exists
	// was refused.
	OverwriteFlag string
}

// Part is one file of the reply: saved (Why is "") or refused.
type Part struct {
	Where   string // files[3], dataUrl, text, files
	Path    string // where it was saved
	Bytes   int
	Why     string // why it was refused
	Renamed bool   // saved under a name other than the one given (files.Name)
}

// Result is what Save did.
type Result struct {
	// Env is the reply to show, saying what was saved: the reply itself
	// when nothing changed, else the reply's members with what became of
	// its files (envelope.Reply.With), pieces of it and the bridge's own.
	Env     envelope.Reply
	Saved   []Part
	Refused []Part
	HasText bool // the reply has a text string
}

// RenamedWhy says, to the agent and the person, why a file was saved under
// a name other than the one it was given.
const RenamedWhy = "the saved name is the bridge's, not the page's: it is built from a short stem of the name given (letters, digits, - and _), .stitchslop and the content's kind, so that no saved file is one a tool, an agent or the OS reads by its name. Use the file under the saved name; do not rename it to the name the page gave, which would undo that. The Stitch Slop team's bridge would have used the name as given (docs/protocol.md §7.15)"

// Renamed is how many parts were saved under a name other than the one
// given.
func (r Result) Renamed() int {
	n := 0
	for _, p := range r.Saved {
		if p.Renamed {
			n++
		}
	}
	return n
}

// Tried is how many files, top-level image and text were to be saved:
// each of them is saved or refused.
func (r Result) Tried() int { return len(r.Saved) + len(r.Refused) }

// Members the bridge writes into a rewritten reply.
var (
	entryMembers = []string{"dataUrl", "savedTo", "savedBytes", "error"}
	textMembers  = []string{"textSavedTo", "textError"}
)

type saver struct {
	files.Batch // each name once: a reply cannot write one file twice
	o           Options
	r           *Result
}

// NotReady is Ready's refusal of Options.Dir; Why says why and quotes
// nothing.
type NotReady struct {
	Why string
}

func (e *NotReady) Error() string { return e.Why }

// Ready decides, before the call whose reply Save is to save by o,
// everything that does not need the reply, so that a call is never made
// whose files could not be saved (issue 28): Dir is made ready
// (files.Prepare: walked, no hidden component, its missing folders made,
// proved to take a new file). Names need no check: every name is built
// (files.Name). The error is a *NotReady.
func Ready(o Options) error {
	if err := files.Prepare(o.Dir); err != nil {
		return &NotReady{Why: strings.TrimPrefix(err.Error(), "files: ")}
	}
	return nil
}

// Save saves the files of env, a page's reply, as the package doc says,
// in one pass over its members: nothing is planned, encoded again or read
// again by the door, so what it shows is never refused.
func Save(env envelope.Reply, o Options) Result {
	r := Result{Env: env}
	s := &saver{Batch: files.Batch{Dir: o.Dir, Overwrite: o.Overwrite}, o: o, r: &r}
	if obj, changed := s.rewrite(env.Members()); changed {
		r.Env = env.With(obj)
	}
	return r
}

// rewrite saves what obj carries and returns obj saying what
// became of it, and whether that differs from obj.
func (s *saver) rewrite(obj envelope.Object) (envelope.Object, bool) {
	o := s.o
	top := textMembers
	if !o.KeepTopSaved {
		top = append(top[:len(top):len(top)], "savedTo", "savedBytes")
	}
	was := len(obj)
	obj = obj.Without(top...)
	changed := len(obj) != was
	if raw := obj.Get("files"); raw != nil {
		list, ok := s.list(raw)
		switch {
		case !ok:
			s.refused("files", "it is not a list", nil)
		case list != nil:
			obj, changed = obj.Set("files", list), true
		}
	}
	if o.FileName != "" && obj.Get("dataUrl") != nil {
		v, _ := obj.String("dataUrl")
		obj, changed = s.dataURL("dataUrl", o.FileName, v, obj.Set("dataUrl", nil)), true
	}
	text, hasText := textOf(obj.Get("text"))
	s.r.HasText = hasText
	if o.TextFile != "" && hasText {
		if path, why := s.save("text", o.TextFile, text, nil); why != "" {
			obj = obj.With("textError", why)
		} else {
			obj = obj.Set("text", nil).With("textSavedTo", path)
		}
		changed = true
	}
	return obj, changed
}

// textOf is the text v, a JSON string, holds: a piece of the reply when it
// has no escape, as pages write it, else decoded once.
func textOf(v []byte) ([]byte, bool) {
	if p, ok := envelope.Plain(v); ok {
		return p, true
	}
	t, ok := envelope.String(v)
	return []byte(t), ok
}

// list saves each entry of the files list raw and returns the list to show
// in its place; nil when it is empty, false when it is not a list.
func (s *saver) list(raw []byte) ([]byte, bool) {
	out := []byte{'['}
	n, left := 0, 0
	ok := envelope.Items(raw, func(v []byte) bool {
		if n >= files.MaxSaved+lookPast {
			left++
			return true
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, s.entry(n, v)...)
		n++
		return true
	})
	if !ok {
		return nil, false
	}
	if n == 0 {
		return nil, true
	}
	if left > 0 {
		why := fmt.Sprintf("%d more entries were not looked at: one reply may save at most %d files", left, files.MaxSaved)
		out = s.refused(fmt.Sprintf("files[%d:]", n), why, nil).AppendJSON(append(out, ','))
	}
	return append(out, ']'), true
}

// entry saves files[i] and returns the entry to show in its place.
func (s *saver) entry(i int, raw []byte) []byte {
	where := fmt.Sprintf("files[%d]", i)
	e, isObject := envelope.ObjectOf(raw) // nil, and so no member, when not
	name, _ := e.String("name")
	dataURL, isString := e.String("dataUrl")
	present := e.Get("dataUrl") != nil
	e = e.Without(entryMembers...)
	switch {
	case !isObject:
		e = s.refused(where, "it is not an object", nil)
	case i >= files.MaxSaved:
		e = s.refused(where, fmt.Sprintf("one reply may save at most %d files", files.MaxSaved), e)
	case !present:
		e = s.refused(where, "it carries no dataUrl", e)
	case !isString:
		e = s.refused(where, "its dataUrl is not a string", e)
	default:
		e = s.dataURL(where, name, dataURL, e)
	}
	return e.AppendJSON(nil)
}

// dataURL decodes and saves one data URL, given the name name, recorded
// under where, and returns obj saying what became of it.
func (s *saver) dataURL(where, name, v string, obj envelope.Object) envelope.Object {
	_, data, err := files.DecodeDataURL(v)
	path, why := s.save(where, name, data, err)
	if why != "" {
		return obj.With("error", why)
	}
	return obj.With("savedTo", path).With("savedBytes", len(data))
}

// save saves data, given the name name, under the name files.Name builds,
// unless err already refuses it, records which under where, and returns
// the path written or why not.
func (s *saver) save(where, name string, data []byte, err error) (path, why string) {
	if err == nil {
		path, err = s.Save(name, data)
	}
	if err != nil {
		why = s.reason(err)
		s.refused(where, why, nil)
		return "", why
	}
	s.r.Saved = append(s.r.Saved, Part{Where: where, Path: path, Bytes: len(data), Renamed: filepath.Base(path) != name})
	return path, ""
}

// refused records where as refused and returns obj with the reason.
func (s *saver) refused(where, why string, obj envelope.Object) envelope.Object {
	s.r.Refused = append(s.r.Refused, Part{Where: where, Why: why})
	return obj.With("error", why)
}

// reason is err worded for the reader: without the package's prefix, and
// for a file that exists, with the reader's own way to replace it.
func (s *saver) reason(err error) string {
	var ee *files.ExistsError
	if errors.As(err, &ee) && s.o.OverwriteFlag != "" {
		return ee.Path + " already exists; pass " + s.o.OverwriteFlag + " to replace it"
	}
	return strings.TrimPrefix(err.Error(), "files: ")
}
