package hub

import "github.com/stitchslop/stitchslop-bridge/internal/envelope"

// mustReply is b through the door, for a test's reply that is valid.
func mustReply(b []byte) envelope.Reply {
	r, err := envelope.Decode(b)
	if err != nil {
		panic("test reply " + string(b) + ": " + err.Error())
	}
	return r
}
