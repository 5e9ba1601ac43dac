package gate

import (
	"encoding/json"
	"errors"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Marshal is the one JSON encoder of every exit (MCP stdout, the control
// plane's answers the shell prints, the frames to the tab, the shell's
// stdout and its requests to its bridge): the standard's JSON v2 with
// AppendString's character rule, so that a string reads the same bytes
// whichever exit writes it. <, > and & stay; U+2028 and U+2029, which end
// lines in JavaScript, are escaped; each byte of invalid UTF-8 is written
// as U+FFFD (decodedLen counts so).
//
// It bounds nothing: v is the bridge's own value, or pieces of a page's
// the door read and the gate or the tool list (security/toollist) bounded.
// Besides the characters it writes what encoding/json wrote, so no reader
// of an exit sees a change: a map's members in order of name, a nil slice
// or map as null, a json.Number (what encoding/json reads a number into
// with UseNumber) as the number, and every member of a json.RawMessage, a
// name given twice too (an agent's arguments pass as it wrote them; the
// door refuses a page's). A struct field's omitempty is v2's (an empty
// JSON value); a bool or a number left out when zero says omitzero.
func Marshal(v any) ([]byte, error) { return jsonv2.Marshal(v, encodeOptions) }

var encodeOptions = jsonv2.JoinOptions(
	jsontext.EscapeForJS(true),
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
	jsonv2.Deterministic(true),
	jsonv2.FormatNilSliceAsNull(true),
	jsonv2.FormatNilMapAsNull(true),
	jsonv2.WithMarshalers(jsonv2.MarshalFunc(marshalNumber)),
)

var errNumber = errors.New("gate: a json.Number that is not a JSON number")

// marshalNumber writes n as encoding/json does: "" as 0, anything but a
// JSON number refused.
func marshalNumber(n json.Number) ([]byte, error) {
	if n == "" {
		return []byte("0"), nil
	}
	if v := jsontext.Value(n); v.Kind() != '0' || !v.IsValid() || n[len(n)-1] < '0' || n[len(n)-1] > '9' { // no space after it
		return nil, errNumber
	}
	return []byte(n), nil
}
