// Package limits names the bounds on the bridge's connections and its own
// files (THREAT_MODEL.md T9, and the size bounds behind T8 and T13;
// protocol.md §7.4). Before a page authenticates it may be any web page or
// local program, so it gets one small frame, briefly. Bounds on what a
// value may hold live with the code that enforces them. These bound memory
// and time per connection, not how fast a local process opens connections.
package limits

import "time"

// Before authentication.
const (
	// PreAuthFrame is the largest first frame, in bytes; a handshake is
	// well under 1 KB.
	PreAuthFrame = 4 << 10
	// AuthTimeout is how long a socket has to send its handshake, and so
	// how long it holds a MaxUnauthSockets slot.
	AuthTimeout = 10 * time.Second
	// MaxUnauthSockets bounds unauthenticated sockets; one more closes the
	// oldest, so idle sockets delay a genuine tab by one dial at most.
	MaxUnauthSockets = 16
)

// After authentication.
const (
	// PageFrame is the largest frame a page may send, in bytes: a render
	// as a data URL fits.
	PageFrame = 64 << 20
	// WriteWait bounds one write to a page.
	WriteWait = 10 * time.Second
)

// HTTP, for the upgrade and the control plane on the same port. There is no
// whole-request timeout: its expiry would cut a /wait long poll short.
const (
	HTTPReadHeaderTimeout = 10 * time.Second
	HTTPIdleTimeout       = 60 * time.Second
	HTTPMaxHeaderBytes    = 16 << 10
	HandshakeTimeout      = 10 * time.Second
	// ControlBody bounds a control-plane request body, in bytes; below
	// PageFrame, since /call forwards it to the page as one frame.
	ControlBody = 24 << 20
	// ControlAnswer bounds a control-plane answer a client reads: a page's
	// frame relayed by /call, and a little more.
	ControlAnswer = PageFrame + 1<<10
)

// ConfigFile bounds any file read from the config dir, in bytes; a larger
// one is not ours and is refused unread.
const ConfigFile = 4 << 20
