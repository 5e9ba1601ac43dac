package replyfiles

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// MaxAttached bounds the files of one call, on both faces: call_with_file's
// file and its 3 more, --file and --file-text together. Four files of
// files.MaxIn already fill the bridge's request limit (limits.ControlBody)
// as data URLs.
const MaxAttached = 4

type Attach struct {
	Path    string // the file, as security/files.Read takes it
	Arg     string // the argument that gets it: up to 3 names joined by dots (sidecar.data)
	Mode    string // files.DataURL ("" too) or files.Text
	NameArg string // the argument that gets the file's base name; "" for none
	Shown   string // how the report of what was sent names the file, quoted (gate.QuotePath); "" for its base name
}

// AttachError is why AttachFiles put nothing into the arguments. Index is
// the entry of the list at fault, -1 for the arguments themselves; Read
// says security/files refused the file, else its key does not fit. Why
// never quotes a file's content, nor holds the "files: " prefix.
type AttachError struct {
	Index int
	Read  bool
	Why   string
}

func (e *AttachError) Error() string { return e.Why }

// AttachFiles is the one attach-files of both faces: it reads each file of
// list (security/files.Read decides what may go) into args and returns them
// re-encoded, with a sentence of what was sent. Every key is set before any
// file is read, so a key that cannot fit costs no read. Any error is an
// *AttachError.
func AttachFiles(args json.RawMessage, list []Attach, argsName string) (json.RawMessage, string, error) {
	m, err := decodeArgs(args, argsName)
	if err != nil {
		return nil, "", err
	}
	for i, a := range list {
		keys := []string{a.Arg}
		if a.NameArg != "" {
			keys = append(keys, a.NameArg)
		}
		for _, key := range keys {
			var ae *files.ArgError
			if err := files.SetArg(m, key, ""); errors.As(err, &ae) {
				return nil, "", &AttachError{Index: i, Why: fmt.Sprintf("%s has %s at %s, not an object, so the file cannot go inside it", argsName, jsonKind(ae.Value), ae.At)}
			} else if err != nil {
				return nil, "", &AttachError{Index: i, Why: strings.TrimPrefix(err.Error(), "files: ")}
			}
		}
	}
	sent := make([]string, len(list))
	for i, a := range list {
		in, err := files.Read(a.Path, a.Mode)
		if err != nil {
			return nil, "", &AttachError{Index: i, Read: true, Why: strings.TrimPrefix(err.Error(), "files: ")}
		}
		// Every key fits: each holds its "" already.
		files.SetArg(m, a.Arg, in.Value)
		if a.NameArg != "" {
			files.SetArg(m, a.NameArg, in.Name)
		}
		sent[i] = fmt.Sprintf("%s (%d bytes, %s) as %s", gate.QuotePath(cmp.Or(a.Shown, in.Name)), in.Size, in.Mime, a.Arg)
	}
	b, err := gate.Marshal(m) // an SVG's < and > stay as they are; numbers as they were written
	if err != nil {
		return nil, "", &AttachError{Index: -1, Why: "cannot encode the arguments: " + err.Error()}
	}
	return b, strings.Join(sent, "; "), nil
}

// decodeArgs decodes a call's arguments, a JSON object, keeping numbers as
// they were written.
func decodeArgs(raw json.RawMessage, argsName string) (map[string]any, error) {
	m := map[string]any{}
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return m, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, &AttachError{Index: -1, Why: argsName + " must be a JSON object"}
	}
	return m, nil
}

// jsonKind says what v, decoded from JSON and not an object, is in the
// words of JSON ("a number").
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprint(v)
	case string:
		return "a string"
	case []any:
		return "a list"
	}
	return "a number"
}
