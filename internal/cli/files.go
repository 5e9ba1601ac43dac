package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/replyfiles"
	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
)

// The file flags of call (protocol.md §7.15): files go between the disk
// and the tab by path, never through the caller as base64. What may be
// read or written where is security/files's to say (THREAT_MODEL.md T16);
// this file wires the flags to it and refuses before the call what it can.

// requestSlack is the room a /call body needs beside its arguments: the
// command, timeoutMs and the JSON around them.
const requestSlack = 4 << 10

// callFileFlags checks how call's file flags go together. Files are read
// later, by attachFiles.
func callFileFlags(a args) error {
	switch {
	case a.has("text-file") && !a.has("save"):
		return usageErr("--text-file NAME goes with --save DIR: the text is written into DIR")
	case a.has("overwrite") && !a.has("save") && !a.has("out"):
		return usageErr("--overwrite goes with --out or --save")
	case len(a.list) > replyfiles.MaxAttached:
		return usageErr("call takes at most %d files (--file and --file-text together), got %d", replyfiles.MaxAttached, len(a.list))
	}
	for _, f := range []string{"out", "save", "text-file"} {
		if v, ok := a.flags[f]; ok && v == "" {
			return usageErr("--%s is empty", f)
		}
	}
	_, err := fileSpecs(a.list)
	return err
}

// fileSpec is one --file or --file-text.
type fileSpec struct {
	flag, arg, path string // arg: the KEY of KEY=PATH, the argument the file goes into
	mode            string // files.DataURL or files.Text
}

// fileSpecs reads the KEY=PATH of each --file and --file-text. The key's
// form (dotted, up to 3 parts) is checked by files.SetArg, in attachFiles.
func fileSpecs(list []flagValue) ([]fileSpec, error) {
	var specs []fileSpec
	for _, fv := range list {
		arg, path, ok := strings.Cut(fv.val, "=")
		switch {
		case !ok:
			return nil, usageErr("--%s %q: want KEY=PATH, such as --%s design=rose.dst", fv.name, fv.val, fv.name)
		case arg == "":
			return nil, usageErr("--%s %q: the KEY before = is empty; it names the argument that gets the file", fv.name, fv.val)
		case path == "":
			return nil, usageErr("--%s %q: the PATH after = is empty", fv.name, fv.val)
		}
		for _, s := range specs {
			if s.arg == arg || strings.HasPrefix(s.arg, arg+".") || strings.HasPrefix(arg, s.arg+".") {
				return nil, usageErr("--%s %s and --%s %s: one argument would hold both files; give each file its own KEY", s.flag, s.arg, fv.name, arg)
			}
		}
		mode := files.DataURL
		if fv.name == "file-text" {
			mode = files.Text
		}
		specs = append(specs, fileSpec{flag: fv.name, arg: arg, path: path, mode: mode})
	}
	return specs, nil
}

// attachFiles puts the files of --file and --file-text into the call's
// arguments (replyfiles.AttachFiles); a refusal is a usage error, before
// anything is sent.
func attachFiles(req client.Request, list []flagValue, log *slog.Logger) (client.Request, error) {
	specs, err := fileSpecs(list)
	if err != nil || len(specs) == 0 {
		return req, err
	}
	body := req.Body.(callBody)
	att := make([]replyfiles.Attach, len(specs))
	for i, s := range specs {
		att[i] = replyfiles.Attach{Path: s.path, Arg: s.arg, Mode: s.mode, Shown: s.path}
	}
	args, sent, err := replyfiles.AttachFiles(body.Args, att, "JSON-ARGS")
	var ae *replyfiles.AttachError // every error AttachFiles returns
	switch {
	case errors.As(err, &ae) && ae.Index < 0:
		return req, usageErr("call: %s", ae.Why)
	case err != nil && ae.Read:
		// The file named on the command line cannot go: a usage error,
		// as in the Stitch Slop team's CLI (exit 64).
		s := specs[ae.Index]
		return req, &client.Error{Exit: exitcode.Usage, Code: "usage",
			Msg: fmt.Sprintf("--%s %s: %s; nothing was sent to the tab", s.flag, s.arg, ae.Why),
			Hint: "only images (PNG, JPEG, GIF, WebP, known by their bytes) and design files of at most " +
				fmt.Sprint(files.MaxIn>>20) + " MB are sent, never a hidden file or one in a hidden folder"}
	case err != nil:
		s := specs[ae.Index]
		return req, usageErr("--%s %s: %s", s.flag, s.arg, ae.Why)
	}
	if n := len(args) + len(body.Command) + requestSlack; n > limits.ControlBody {
		return req, failure("too_large", fmt.Sprintf("call: with its files the request is %.1f MB, over the %d MB the bridge takes; nothing was sent to the tab",
			float64(n)/(1<<20), limits.ControlBody>>20), "send fewer or smaller files in one call")
	}
	body.Args = args
	req.Body = body
	log.Info("sending " + sent)
	return req, nil
}

// checkTargets asks security/files before the call what it will decide
// when the reply is written, so no call is made whose reply could not be
// saved.
func checkTargets(a args) error {
	if file, ok := a.flags["out"]; ok {
		if err := files.CheckOut(file, a.has("overwrite")); err != nil {
			return outRefused(file, err, "nothing was sent to the tab")
		}
	}
	dir, ok := a.flags["save"]
	if !ok {
		return nil
	}
	var nr *replyfiles.NotReady
	if errors.As(replyfiles.Ready(replyfiles.Options{Dir: dir}), &nr) {
		return failure("bad_dir", fmt.Sprintf("--save %s: %s; nothing was sent to the tab", dir, nr.Why),
			"--save writes into a folder that takes new files, creating it and its parents if missing, never a hidden one (such as ~/.config or .git); choose another")
	}
	return nil
}

// outRefused is security/files' refusal of --out FILE, shown as it is, with
// a code for its kind (typed errors) and what became of the call (tail).
func outRefused(file string, err error, tail string) *client.Error {
	var ee *files.ExistsError
	var be *files.BytesError
	var ne *files.NameError
	switch {
	case errors.As(err, &ee):
		return failure("file_exists", fmt.Sprintf("--out: %s already exists; pass --overwrite to replace it (%s)", gate.QuotePath(ee.Path), tail),
			"choose another FILE, or add --overwrite")
	case errors.As(err, &be):
		return failure("not_an_image", fmt.Sprintf("--out: %s: %s; %s", file, strings.TrimPrefix(be.Error(), "files: "), tail), "")
	case errors.As(err, &ne):
		return failure("bad_name", fmt.Sprintf("--out %s: %s; %s", file, ne.Why, tail),
			"--out takes a bare, visible image name (.png .jpg .jpeg .gif .webp) and writes only an image of that type; a design goes through --save DIR, under a name the bridge builds")
	}
	return failure("write_failed", fmt.Sprintf("--out: %s; %s", strings.TrimPrefix(err.Error(), "files: "), tail),
		"--out writes into an existing folder that takes new files, with no hidden component; it never creates one")
}

// failure is a call that failed (exit 1) as code says, with msg and a
// hint, if any, for the person.
func failure(code, msg, hint string) *client.Error {
	return &client.Error{Exit: exitcode.Failed, Code: code, Msg: msg, Hint: hint}
}

// notSaved is call --save when something of the reply was not written:
// the envelope is printed all the same, each refused part saying why in an
// error member, and the exit is 1.
type notSaved struct {
	env            envelope.Reply
	refused, tried int
}

func (e *notSaved) Error() string {
	return fmt.Sprintf("--save: %d of the reply's %d files were not saved; the printed reply says why in their error members", e.refused, e.tried)
}

// saveFiles is call --save DIR [--text-file NAME], through
// internal/replyfiles as call_to_files; what --out wrote before it, the
// shell's own, stays (replyfiles.Strip). ns is nil when nothing was
// refused.
func saveFiles(env envelope.Reply, dir, textFile string, overwrite bool, log *slog.Logger) (out envelope.Reply, ns *notSaved) {
	r := replyfiles.Save(env, replyfiles.Options{Dir: dir, TextFile: textFile, Overwrite: overwrite, OverwriteFlag: "--overwrite"})
	for _, p := range r.Saved {
		if p.Where == "text" {
			log.Info(fmt.Sprintf("saved the text, %d bytes, to %s", p.Bytes, gate.QuotePath(p.Path)))
		} else {
			log.Info(fmt.Sprintf("saved %d bytes to %s (%s)", p.Bytes, gate.QuotePath(p.Path), p.Where))
		}
	}
	if r.Renamed() > 0 {
		log.Info(fmt.Sprintf("--save: %d of the files saved are not under the name they were given: %s", r.Renamed(), replyfiles.RenamedWhy))
	}
	for _, p := range r.Refused {
		log.Warn(fmt.Sprintf("--save: %s was not saved: %s", p.Where, p.Why))
	}
	if textFile != "" && !r.HasText {
		log.Warn("--text-file: the reply carries no text; nothing was written for it")
	}
	switch {
	case r.Tried() > 0:
	case r.HasText:
		log.Warn("--save: the reply carries no files; nothing was written (its text is printed; --text-file NAME would save it)", "dir", dir)
	default:
		log.Warn("--save: the reply carries no files and no text; nothing was written", "dir", dir)
	}
	if len(r.Refused) > 0 {
		return r.Env, &notSaved{refused: len(r.Refused), tried: r.Tried()}
	}
	return r.Env, nil
}
