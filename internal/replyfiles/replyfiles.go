// Package replyfiles moves a call's files between the disk and the tab for
// both faces (THREAT_MODEL.md T9, T16): AttachFiles puts files into a
// call's arguments, and Save saves the files a page's reply carries. Every
// file is read and written by security/files; this package decides which
// parts of a reply are files and says what was saved.
//
// At most files.MaxSaved entries are saved and lookPast more refused; the
// rest are only counted, so a reply of millions of entries costs one pass
// and a bounded report. Members a page could use to claim a file was
// written are dropped: the shell's own at the top (Own, Strip), and an
// entry's savedTo, savedBytes and error. A reply's files
// are saved whether it says ok or not: a partial export's files are the
// user's all the same. Reasons never quote a name from the page;
// Result.Env still goes to the terminal through security/gate.
package replyfiles

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// lookPast is how many entries after the first files.MaxSaved are still
// looked at, each refused with its reason, before the rest are counted
// only: enough to show the cap's effect, too few to flood a log.
const lookPast = 8

// ownRoom is room enough for what the bridge writes in a files entry
// (savedTo and savedBytes, or an error) but for a long path.
const ownRoom = 512

// Options say where and how the files of one reply are saved.
type Options struct {
	Dir       string
	FileName  string // the name of the top-level dataUrl; "" leaves it in the reply
	TextFile  string // the name of the reply's text; "" leaves it
	Overwrite bool
	// OverwriteFlag is how the reader asks to replace a file, for the
	// reason an existing file was refused.
	OverwriteFlag string
	// AsItCame is for a face that shows the reply as it came and what was
	// saved apart (call_to_files, protocol.md §7.15): no files list is
	// written in its place, which for entries of megabytes would cost as
	// much again.
	AsItCame bool
}

// Part is one file of the reply: saved (Why is "") or refused.
type Part struct {
	Where   string // files[3], dataUrl, text, files
	Path    string // where it was saved
	Bytes   int
	Why     string // why it was refused
	Renamed bool   // saved under a name other than the one given (files.Name)
}

type Result struct {
	// Env is the reply as the shell shows it (--save); the MCP face says
	// what was saved in a block of its own.
	Env     envelope.Reply
	Saved   []Part
	Refused []Part
	HasText bool // the reply has a text string
}

// RenamedWhy says why a file was saved under another name than given.
const RenamedWhy = "the saved name is the bridge's, not the page's: it is built from a short stem of the name given (letters, digits, - and _), .stitchslop and the content's kind, so that no saved file is one a tool, an agent or the OS reads by its name. Use the file under the saved name; do not rename it to the name the page gave, which would undo that. The Stitch Slop team's bridge would have used the name as given (docs/protocol.md §7.15)"

func (r Result) Renamed() int {
	n := 0
	for _, p := range r.Saved {
		if p.Renamed {
			n++
		}
	}
	return n
}

// Tried is how many files, top-level image and text were to be saved.
func (r Result) Tried() int { return len(r.Saved) + len(r.Refused) }

// Members the bridge writes into an entry of a rewritten reply's files
// list; a top-level one is an Own.
var entryMembers = []string{"dataUrl", "savedTo", "savedBytes", "error"}

type saver struct {
	files.Batch // each name once: a reply cannot write one file twice
	o           Options
	r           *Result
}

// NotReady is Ready's refusal of Options.Dir; Why quotes nothing.
type NotReady struct {
	Why string
}

func (e *NotReady) Error() string { return e.Why }

// Ready prepares o.Dir (files.Prepare) before the call, so a call is never
// made whose files could not be saved. The error is a *NotReady.
func Ready(o Options) error {
	if err := files.Prepare(o.Dir); err != nil {
		return &NotReady{Why: strings.TrimPrefix(err.Error(), "files: ")}
	}
	return nil
}

// Save saves the files of env, a page's reply, in one pass over its
// members.
func Save(env envelope.Reply, o Options) Result {
	r := Result{Env: env}
	s := &saver{Batch: files.Batch{Dir: o.Dir, Overwrite: o.Overwrite}, o: o, r: &r}
	if obj, changed := s.rewrite(env); changed {
		r.Env = env.With(obj)
	}
	return r
}

// rewrite saves what env carries and returns its members saying what
// became of it, and whether that differs from them.
func (s *saver) rewrite(env envelope.Reply) (envelope.Object, bool) {
	o := s.o
	obj := Strip(env.Members())
	changed := len(obj) != len(env.Members())
	if obj.Get("files") != nil {
		list, ok := s.list(env)
		switch {
		case !ok:
			s.refused("files", "it is not a list", nil)
		case list != nil:
			obj, changed = obj.Set("files", list.Value()), true
		}
	}
	if v := obj.Get("dataUrl"); o.FileName != "" && v != nil {
		obj, changed = s.dataURL("dataUrl", o.FileName, v, obj.Without("dataUrl")), true
	}
	text, hasText := textOf(obj.Get("text"))
	s.r.HasText = hasText
	if o.TextFile != "" && hasText {
		if path, _, why := s.save("text", o.TextFile, func() (string, int64, error) {
			path, err := s.Save(o.TextFile, text)
			return path, int64(len(text)), err
		}); why != "" {
			obj = With(obj, TextError, why)
		} else {
			obj = With(obj.Without("text"), TextSavedTo, path)
		}
		changed = true
	}
	return obj, changed
}

// textOf is the text v, a JSON string, holds: a piece of the reply when it
// has no escape, as pages write it, else decoded once.
func textOf(v []byte) ([]byte, bool) {
	if p, ok := gate.Plain(v); ok {
		return p, true
	}
	t, ok := gate.String(v)
	return []byte(t), ok
}

// list saves each entry of env's files list and returns the list to show
// in its place; nil when it is empty or AsItCame, false when it is not a
// list.
func (s *saver) list(env envelope.Reply) (*gate.List, bool) {
	if env.Get("files")[0] != '[' {
		return nil, false
	}
	var out *gate.List // the list shown in its place, but AsItCame
	if !s.o.AsItCame {
		// Sized once, by what its entries keep and room for the bridge's
		// members: grown an entry at a time, entries of megabytes cost
		// several times the list.
		size := 2
		for i, e := range env.Entries("files") {
			if i == files.MaxSaved+lookPast {
				break
			}
			size += e.Size(entryMembers) + ownRoom
		}
		out = gate.NewList(size)
	}
	n, left := 0, 0
	for i, e := range env.Entries("files") {
		if i >= files.MaxSaved+lookPast {
			left++
			continue
		}
		s.entry(out, i, e)
		n++
	}
	if left > 0 {
		why := fmt.Sprintf("%d more entries were not looked at: one reply may save at most %d files", left, files.MaxSaved)
		if own := s.refused(fmt.Sprintf("files[%d:]", n), why, nil); out != nil {
			own.AppendTo(out)
		}
	}
	if n == 0 {
		return nil, true
	}
	return out, true
}

// entry saves files[i] and writes the entry to show in its place to out,
// unless nil: the bridge's members, then the entry's as they came but
// those the bridge writes (envelope.Entry.AppendTo).
func (s *saver) entry(out *gate.List, i int, e envelope.Entry) {
	where := fmt.Sprintf("files[%d]", i)
	name, _ := e.String("name")
	dataURL := e.Get("dataUrl")
	var own envelope.Object
	switch {
	case !e.IsObject():
		own = s.refused(where, "it is not an object", nil)
	case i >= files.MaxSaved:
		own = s.refused(where, fmt.Sprintf("one reply may save at most %d files", files.MaxSaved), nil)
	case dataURL == nil:
		own = s.refused(where, "it carries no dataUrl", nil)
	case dataURL[0] != '"': // the door read it: a JSON value
		own = s.refused(where, "its dataUrl is not a string", nil)
	default:
		own = s.dataURL(where, name, dataURL, nil)
	}
	if out != nil {
		e.AppendTo(out, entryMembers, own)
	}
}

// dataURL saves the file v, a raw dataUrl value, carries: its base64 is
// read where it lies in the reply (a string without escapes, as pages
// write it; one with is refused, envelope.EscapedDataURL) and decoded a chunk at a time into the file
// (files.Batch.SaveBase64), so a file of tens of megabytes costs no copy.
func (s *saver) dataURL(where, name string, v []byte, obj envelope.Object) envelope.Object {
	url, plain := gate.Plain(v)
	payload, err := files.Base64Payload(url)
	if !plain {
		err = errors.New(envelope.EscapedDataURL)
	}
	path, n, why := s.save(where, name, func() (string, int64, error) {
		if err != nil {
			return "", 0, err
		}
		return s.SaveBase64(name, payload)
	})
	if why != "" {
		return obj.With("error", why)
	}
	return obj.With("savedTo", path).With("savedBytes", n)
}

// save records what write, saving a file under the name files.Name builds
// from name, did.
func (s *saver) save(where, name string, write func() (string, int64, error)) (path string, n int64, why string) {
	path, n, err := write()
	if err != nil {
		why = s.reason(err)
		s.refused(where, why, nil)
		return "", 0, why
	}
	s.r.Saved = append(s.r.Saved, Part{Where: where, Path: path, Bytes: int(n), Renamed: filepath.Base(path) != name})
	return path, n, ""
}

func (s *saver) refused(where, why string, obj envelope.Object) envelope.Object {
	s.r.Refused = append(s.r.Refused, Part{Where: where, Why: why})
	return obj.With("error", why)
}

// reason is err worded for the reader: without the package's prefix, and
// for a file that exists, with the reader's own way to replace it.
func (s *saver) reason(err error) string {
	var ee *files.ExistsError
	if errors.As(err, &ee) && s.o.OverwriteFlag != "" {
		return gate.QuotePath(ee.Path) + " already exists; pass " + s.o.OverwriteFlag + " to replace it"
	}
	return strings.TrimPrefix(err.Error(), "files: ")
}
