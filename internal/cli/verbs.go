package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

// runVerb runs one shell verb. Whatever happens, stdout gets exactly one
// JSON document, so an agent parsing .ok and one checking $? agree; but for
// call --out and --save, whose ok:true reply not written whole exits 1,
// each part not written saying why in an error member (docs/protocol.md
// §4.4). Program.Main has checked the flags already (checkFlags).
func runVerb(ctx context.Context, c *command, a args, dir string, stdin io.Reader, stdout io.Writer, log *slog.Logger) int {
	out, err := verb(ctx, a, dir, stdin, log)
	var ns *notSaved
	if errors.As(err, &ns) {
		// The reply is printed all the same: it says what was saved, and
		// why the rest was not.
		log.Error(ns.Error())
		emit(stdout, ns.env, a)
		return exitcode.Failed
	}
	if err != nil {
		return fail(log, stdout, c, a, err)
	}
	emit(stdout, out, a)
	if out.OK() {
		return exitcode.OK
	}
	if msg, ok := out.String("message"); ok && msg != "" {
		log.Warn(msg)
	}
	return exitcode.Failed
}

// fail reports the error that ended verb c: the error, its hint, and its
// envelope on stdout.
func fail(log *slog.Logger, stdout io.Writer, c *command, a args, err error) int {
	var ce *client.Error
	if errors.As(err, &ce) && ce.Exit == exitcode.Usage {
		return mistake(log, stdout, c, a, ce.Msg, ce.Hint)
	}
	ce = quiet(log, err)
	emit(stdout, envelope.Own(ce.Code, ce.Msg), a)
	return ce.Exit
}

// quiet is fail without the envelope, for listen, whose stdout carries
// event lines only.
func quiet(log *slog.Logger, err error) *client.Error {
	var ce *client.Error
	if !errors.As(err, &ce) {
		ce = &client.Error{Exit: exitcode.Failed, Code: "failed", Msg: err.Error()}
	}
	log.Error(ce.Msg)
	if ce.Hint != "" {
		ui.Hint(log, ce.Hint)
	}
	return ce
}

// usageErr is a mistake on a verb's command line, found once the verb
// runs. fail reports it, with a hint naming the verb's help.
func usageErr(format string, v ...any) error {
	return &client.Error{Exit: exitcode.Usage, Code: "usage", Msg: fmt.Sprintf(format, v...)}
}

// Request timeouts of the shell verbs (client.Request.Timeout): a bridge
// that is frozen must not hang the shell, and one that is merely slow must
// get to say so itself.
const (
	// quickTimeout bounds status and tools: the bridge answers them from
	// memory, so an answer this late means it is stuck.
	quickTimeout = 15 * time.Second
	// answerMargin is added to a wait's or a call's own deadline. When that
	// deadline passes the bridge answers ok:false itself; the margin lets
	// that answer arrive, on a loaded machine too, instead of the shell
	// giving up first with a vaguer message of its own.
	answerMargin = 10 * time.Second

	// waitDefault and waitMax are the bridge's (control.WaitDefault,
	// control.WaitMax).
	waitDefault = 120 * time.Second
	waitMax     = 600 * time.Second

	// callDefault is the bridge's deadline for a page call when call has no
	// --timeout (bridge.DefaultTimings.Call).
	callDefault = 60 * time.Second
	// callTimeoutMin and callTimeoutMax bound call --timeout as the bridge
	// bounds timeoutMs, so a bad value is a usage error before any request.
	callTimeoutMin = 1 * time.Second
	callTimeoutMax = 10 * time.Minute
)

// timeouts are quickTimeout and answerMargin; tests shorten them.
var timeouts = struct{ quick, margin time.Duration }{quickTimeout, answerMargin}

// callBody is the body of POST /call. TimeoutMs is omitted when call has no
// --timeout, so the bridge's default applies.
type callBody struct {
	Command   string          `json:"command"`
	Args      json.RawMessage `json:"args"`
	TimeoutMs int64           `json:"timeoutMs,omitzero"`
}

func verb(ctx context.Context, a args, dir string, stdin io.Reader, log *slog.Logger) (envelope.Reply, error) {
	if a.pos[0] == "unpair" {
		return door(unpair(a, dir, log)) // works on the files; no bridge needed
	}
	req, err := request(a)
	if a.pos[0] == "pair" {
		req, err = pairRequest(a, stdin)
	}
	if err != nil {
		return envelope.Reply{}, err
	}
	// Everything that can be refused here is refused before the bridge is
	// asked anything: a file that may not be sent, an --out that exists.
	if a.pos[0] == "call" {
		if req, err = attachFiles(req, a.list, log); err != nil {
			return envelope.Reply{}, err
		}
		if err := checkTargets(a); err != nil {
			return envelope.Reply{}, err
		}
	}
	port, err := portFlag(a)
	if err != nil {
		return envelope.Reply{}, usageErr("%v", err)
	}
	s, err := client.Find(dir, port)
	if err != nil {
		return envelope.Reply{}, err
	}
	c := client.New(s)
	defer showProgress(ctx, a)() // on a terminal, stderr counts the seconds of a wait or a call (progress.go)
	env, err := door(c.Do(ctx, req))
	if err != nil || a.pos[0] != "call" {
		return env, err
	}
	file, out := a.flags["out"]
	if out {
		if env, err = saveImage(env, file, a.has("overwrite"), log); err != nil {
			return envelope.Reply{}, err
		}
	}
	var ns *notSaved
	if saveDir, ok := a.flags["save"]; ok {
		env, ns = saveFiles(env, saveDir, a.flags["text-file"], a.has("overwrite"), log)
	}
	if ns != nil {
		ns.env = env
		return envelope.Reply{}, ns
	}
	return env, nil
}

// door is the shell's one reading of what a bridge answers, the door a
// tab's frame passes in the bridge (envelope.Decode), or a bad_reply
// failure. What does not pass is never printed.
func door(env []byte, err error) (envelope.Reply, error) {
	if err != nil {
		return envelope.Reply{}, err
	}
	r, err := envelope.Decode(env)
	var ref *envelope.Refused
	if errors.As(err, &ref) {
		return envelope.Reply{}, failure("bad_reply", "the bridge's answer is not a valid JSON object ("+ref.Detail+"); it is not printed, and nothing was written", "")
	}
	return r, nil
}

// request checks a verb's arguments and builds its request to the bridge,
// with the time the bridge gets to answer it.
func request(a args) (client.Request, error) {
	name, rest := a.pos[0], a.pos[1:]
	if name == "pair" {
		return client.Request{}, nil // pairRequest
	}
	maxArgs := map[string]int{"status": 0, "tools": 0, "wait": 1, "call": 2}
	n, known := maxArgs[name]
	if !known {
		return client.Request{}, usageErr("unknown verb %q (want status, tools, wait, call, pair, listen or unpair)", name)
	}
	if len(rest) > n {
		return client.Request{}, usageErr("%s takes at most %d argument(s), got %d", name, n, len(rest))
	}
	req := client.Request{Method: "GET", Path: "/" + name, Timeout: timeouts.quick}
	switch name {
	case "wait":
		req.Method, req.Body = "POST", map[string]any{}
		wait := waitDefault
		if len(rest) == 1 {
			secs, err := strconv.ParseFloat(rest[0], 64)
			if err != nil || !(secs > 0) || secs > 1e9 {
				return client.Request{}, usageErr("wait SECONDS: %q is not a positive number of seconds", rest[0])
			}
			req.Body = map[string]any{"seconds": secs}
			wait = time.Duration(min(secs, waitMax.Seconds()) * float64(time.Second))
		}
		req.Timeout = wait + timeouts.margin
	case "call":
		if len(rest) == 0 || rest[0] == "" {
			return client.Request{}, usageErr("call needs a COMMAND, e.g. call scene.describe '{\"limit\":5}'")
		}
		if err := callFileFlags(a); err != nil {
			return client.Request{}, err
		}
		body := callBody{Command: rest[0], Args: json.RawMessage("{}")}
		if len(rest) == 2 {
			t := strings.TrimSpace(rest[1])
			if !json.Valid([]byte(t)) || !strings.HasPrefix(t, "{") {
				return client.Request{}, usageErr("call %s: JSON-ARGS must be a JSON object, e.g. '{\"limit\":5}'", rest[0])
			}
			body.Args = json.RawMessage(t)
		}
		deadline := callDefault
		if s, ok := a.flags["timeout"]; ok {
			var err error
			if deadline, err = callTimeout(s); err != nil {
				return client.Request{}, err
			}
			body.TimeoutMs = deadline.Milliseconds()
		}
		req.Method, req.Body, req.Timeout = "POST", body, deadline+timeouts.margin
	}
	return req, nil
}

// callTimeout parses call --timeout SECONDS: fractions allowed, rounded to
// the millisecond the bridge is told.
func callTimeout(s string) (time.Duration, error) {
	secs, err := strconv.ParseFloat(s, 64)
	if err != nil || !(secs >= callTimeoutMin.Seconds() && secs <= callTimeoutMax.Seconds()) {
		return 0, usageErr("call --timeout %q is not a number of seconds from %g to %g (%g minutes)",
			s, callTimeoutMin.Seconds(), callTimeoutMax.Seconds(), callTimeoutMax.Minutes())
	}
	return time.Duration(math.Round(secs*1000)) * time.Millisecond, nil
}
