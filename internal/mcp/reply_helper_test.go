package mcp

import "github.com/stitchslop/stitchslop-bridge/internal/envelope"

// mustReply is b through the door, for a test's reply that is valid.
func mustReply(b []byte) envelope.Reply {
	r, err := envelope.Decode(b)
	if err != nil {
		panic("test reply " + string(b) + ": " + err.Error())
	}
	return r
}

// join is m's bytes, as a transport writes them.
func (m Message) join() []byte {
	var b []byte
	for _, p := range m {
		b = append(append(b, p.Encoded...), p.Image.Base64()...)
	}
	return b
}
