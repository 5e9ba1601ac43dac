package envelope

import "github.com/go-json-experiment/json/jsontext"

// Tools reads a frame's top-level "tools" value from d, the door's own
// reader, which DecodeTools hands it as it meets the value (protocol.md
// §2.5's tool list: security/toollist); b is the frame, whose offsets d's
// are. It keeps the door's rule for names: each name it reads passes Name,
// and what it skips, Skip, never d.SkipValue. An error refuses the frame,
// as the door's own.
type Tools func(d *jsontext.Decoder, b []byte) error

// Name checks k, the member name d has just read, as the door checks
// every name (checkName).
func Name(d *jsontext.Decoder, k []byte) error {
	_, n := d.StackIndex(d.StackDepth())
	_, err := checkName(k, n/2+1, false)
	return err
}

// Skip reads the value next in d, checking each name in it as the door
// does.
func Skip(d *jsontext.Decoder) error {
	depth := d.StackDepth()
	for {
		var err error
		switch d.PeekKind() {
		case '{', '[', '}', ']':
			_, err = d.ReadToken()
		default:
			var v jsontext.Value
			if v, err = d.ReadValue(); err == nil {
				if kind, n := d.StackIndex(d.StackDepth()); kind == '{' && n%2 == 1 {
					err = Name(d, v)
				}
			}
		}
		if err != nil || d.StackDepth() <= depth {
			return err
		}
	}
}
