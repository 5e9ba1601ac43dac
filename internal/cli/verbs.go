package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

// runVerb runs one shell verb. Whatever happens, stdout gets exactly one
// JSON document, so an agent parsing .ok and one checking $? agree.
func runVerb(ctx context.Context, a args, dir string, stdout io.Writer, log *slog.Logger) int {
	out, err := verb(ctx, a, dir, log)
	var ce *client.Error
	if err != nil {
		if !errors.As(err, &ce) {
			ce = &client.Error{Exit: client.ExitFailed, Code: "failed", Msg: err.Error()}
		}
		log.Error(ce.Msg)
		if ce.Hint != "" {
			ui.Hint(log, ce.Hint)
		}
		stdout.Write(append(envelope.Bridge(ce.Code, ce.Msg), '\n'))
		return ce.Exit
	}
	stdout.Write(append(out, '\n'))
	o, perr := envelope.Parse(out)
	if perr == nil && o.OK() {
		return client.ExitOK
	}
	if msg, ok := o.String("message"); ok && msg != "" {
		log.Warn(msg)
	}
	return client.ExitFailed
}

func usageErr(format string, v ...any) error {
	return &client.Error{Exit: client.ExitUsage, Code: "usage", Msg: fmt.Sprintf(format, v...),
		Hint: "see stitchslop-bridge --help"}
}

func verb(ctx context.Context, a args, dir string, log *slog.Logger) ([]byte, error) {
	name, rest := a.pos[0], a.pos[1:]
	if a.has("origin") || a.has("agent-idle-minutes") || a.has("exit-when-unused") {
		return nil, usageErr("--origin and --agent-idle-minutes go with starting the bridge, not with %s", name)
	}
	if a.has("out") && name != "call" {
		return nil, usageErr("--out goes with call, not with %s", name)
	}
	maxArgs := map[string]int{"status": 0, "tools": 0, "wait": 1, "call": 2}
	n, known := maxArgs[name]
	if !known {
		return nil, usageErr("unknown verb %q (want status, tools, wait or call)", name)
	}
	if len(rest) > n {
		return nil, usageErr("%s takes at most %d argument(s), got %d", name, n, len(rest))
	}
	port, err := portFlag(a)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	var body any
	method, path := "GET", "/"+name
	switch name {
	case "wait":
		method, body = "POST", map[string]any{}
		if len(rest) == 1 {
			secs, err := strconv.ParseFloat(rest[0], 64)
			if err != nil || !(secs > 0) || secs > 1e9 {
				return nil, usageErr("wait SECONDS: %q is not a positive number of seconds", rest[0])
			}
			body = map[string]any{"seconds": secs}
		}
	case "call":
		if len(rest) == 0 || rest[0] == "" {
			return nil, usageErr("call needs a COMMAND, e.g. call scene.describe '{\"limit\":5}'")
		}
		args := json.RawMessage("{}")
		if len(rest) == 2 {
			t := strings.TrimSpace(rest[1])
			if !json.Valid([]byte(t)) || !strings.HasPrefix(t, "{") {
				return nil, usageErr("call %s: JSON-ARGS must be a JSON object, e.g. '{\"limit\":5}'", rest[0])
			}
			args = json.RawMessage(t)
		}
		method, body = "POST", map[string]any{"command": rest[0], "args": args}
	}
	s, err := client.Find(dir, port)
	if err != nil {
		return nil, err
	}
	out, err := client.New(s).Do(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	if file, ok := a.flags["out"]; ok {
		return saveImage(out, file, log)
	}
	return out, nil
}

// saveImage writes the envelope's image to file and returns the envelope
// with dataUrl replaced by savedTo, savedBytes and savedType (§4.4). With no
// image it writes nothing and says so.
func saveImage(env []byte, file string, log *slog.Logger) ([]byte, error) {
	o, err := envelope.Parse(env)
	if err != nil {
		log.Warn("the reply is not a JSON object; nothing was written", "out", file)
		return env, nil
	}
	img, ok := o.Image()
	if !ok {
		log.Warn("the reply carries no image (no dataUrl); nothing was written", "out", file)
		return env, nil
	}
	data, err := img.Bytes()
	if err != nil {
		return nil, &client.Error{Exit: client.ExitFailed, Code: "bad_image", Msg: "--out: " + err.Error() + "; nothing was written"}
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, &client.Error{Exit: client.ExitFailed, Code: "write_failed", Msg: fmt.Sprintf("--out %s: %v", file, err)}
	}
	if err := writeUserFile(abs, data); err != nil {
		return nil, &client.Error{Exit: client.ExitFailed, Code: "write_failed", Msg: "--out: " + err.Error()}
	}
	log.Info(fmt.Sprintf("saved %d bytes of %s to %s", len(data), img.MIME, abs))
	o = o.Without("dataUrl").With("savedTo", abs).With("savedBytes", len(data)).With("savedType", img.MIME)
	return json.Marshal(o)
}

// writeUserFile writes data to path through a temp file and a rename, so
// a failure leaves any earlier file whole. It refuses to write through a
// symlink or over anything that is not a regular file.
func writeUserFile(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s exists and is not a regular file; nothing was written", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %v", path, err)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write into %s: %v", dir, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %v", path, werr)
	}
	return nil
}
