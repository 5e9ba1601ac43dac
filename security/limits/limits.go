// Package limits names the bounds the bridge puts on its connections and
// its own files (THREAT_MODEL.md T9, input-dos, and the size bounds behind
// T8 and T13). Before a page authenticates it is anyone on the machine or
// any web page, so it gets one small frame, briefly; after, it is the
// user's own tab. Bounds on what a value may hold live beside the code
// that enforces them (gate, toollist, files, mcp, pairing, sites).
//
// They bound memory and time per connection; they do not stop a local
// process from opening connections as fast as it likes, nor an
// authenticated page from being slow within them.
package limits

import "time"

// Before authentication.
const (
	// PreAuthFrame is the largest first frame an unauthenticated socket may
	// send, in bytes; a handshake is well under 1 KB.
	PreAuthFrame = 4 << 10
	// AuthTimeout is how long a tab has after the upgrade to send its
	// handshake; it also bounds how long a socket holds a MaxUnauthSockets
	// slot.
	AuthTimeout = 10 * time.Second
	// MaxUnauthSockets bounds unauthenticated sockets; one beyond it closes
	// the oldest, so idle sockets delay a genuine tab by one dial at most.
	MaxUnauthSockets = 16
)

// After authentication.
const (
	// PageFrame is the largest frame an authenticated page may send, in
	// bytes: a render as a data URL fits with room to spare.
	PageFrame = 64 << 20
	// WriteWait bounds one write to a page; a page slower than this is gone.
	WriteWait = 10 * time.Second
)

// HTTP, for the upgrade and the control plane on the same port.
const (
	// HTTPReadHeaderTimeout bounds how long a client may take to send
	// request headers (slowloris).
	HTTPReadHeaderTimeout = 10 * time.Second
	// There is deliberately no whole-request read timeout: its expiry
	// cancels the request's context, which would cut a /wait long poll
	// short. A body is read only after the Origin and key checks.

	// HTTPIdleTimeout closes idle keep-alive connections between requests.
	HTTPIdleTimeout = 60 * time.Second
	// HTTPMaxHeaderBytes bounds request headers.
	HTTPMaxHeaderBytes = 16 << 10
	// HandshakeTimeout bounds the WebSocket upgrade itself.
	HandshakeTimeout = 10 * time.Second
	// ControlBody bounds a control-plane request body, in bytes. It must
	// stay below PageFrame: the body is forwarded to the page as one frame.
	ControlBody = 24 << 20
	// ControlAnswer bounds a control-plane answer a client reads, in bytes:
	// a page's reply relayed whole by /call and its newline. A larger one is
	// not a bridge's.
	ControlAnswer = PageFrame + 1<<10
)

// On disk.
const (
	// ConfigFile bounds any file the bridge reads from its config dir, in
	// bytes; a larger one is not ours and is refused unread.
	ConfigFile = 4 << 20
)
