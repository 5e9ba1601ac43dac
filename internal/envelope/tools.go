package envelope

import "github.com/go-json-experiment/json/jsontext"

// Tools reads a frame's top-level "tools" value from d, the door's own
// reader, which DecodeTools hands it as it meets the value (protocol.md
// §2.5's tool list: security/toollist); b is the frame, whose offsets d's
// are. It keeps the door's rule for names: it reads each name with Name,
// and skips with Skip, never d.SkipValue. An error refuses the frame, as
// the door's own.
type Tools func(d *jsontext.Decoder, b []byte) error

// Name reads the member name next in d, raw, checked as the door checks
// every name (checkName).
func Name(d *jsontext.Decoder) ([]byte, error) {
	k, err := d.ReadValue()
	if err == nil {
		_, n := d.StackIndex(d.StackDepth())
		_, err = checkName(k, n/2+1, false)
	}
	return k, err
}

// Skip reads the value next in d, checking each name in it as the door
// does.
func Skip(d *jsontext.Decoder) error {
	for depth := d.StackDepth(); ; {
		var err error
		if kind, n := d.StackIndex(d.StackDepth()); kind == '{' && n%2 == 0 && d.PeekKind() == '"' {
			_, err = Name(d)
		} else {
			_, err = d.ReadToken()
		}
		if err != nil || d.StackDepth() <= depth {
			return err
		}
	}
}
