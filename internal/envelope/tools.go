package envelope

import (
	"errors"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// Tools reads a frame's top-level "tools" value from r, the door's own
// reader, which DecodeTools hands it as it meets the value (protocol.md
// §2.5's tool list: security/toollist); b is the frame, whose offsets r's
// are. It keeps the door's rule for names: it reads each name with gate.Name,
// and skips with gate.Skip, never d.SkipValue. An error refuses the frame, as
// the door's own. A frame with an "id" before its "tools" is a reply
// (protocol.md §2.5), whose tools the door reads itself.
type Tools func(r *gate.Reader, b []byte) error

// errToolsRead refuses a frame whose Tools reader left the door's reader
// inside the value, which the door would read on from wrongly.
var errToolsRead = errors.New("envelope: the tools reader did not read one value")
