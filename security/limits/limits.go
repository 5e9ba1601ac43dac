// Package limits names the bounds the bridge puts on its connections and
// its own files (THREAT_MODEL.md T9, input-dos, and the size bounds behind
// T8 and T13): what one frame, socket, request body, answer or config file
// may hold, and how long each may take.
//
// Before a page authenticates it is anyone on the machine or any web page:
// it may send one small frame (PreAuthFrame) within AuthTimeout, and only
// MaxUnauthSockets such sockets may exist at once. After it authenticates it
// is the user's own Stitch Slop tab, trusted with PageFrame. The control
// plane's HTTP server has header and body bounds and timeouts, its client
// reads no answer larger than ControlAnswer (a leader is another process),
// and the bridge reads no config file larger than ConfigFile.
//
// A bound on what a value may hold lives beside the code that enforces it,
// where a reader of that code sees it: the gate's (gate.MaxString,
// gate.MaxItems, gate.MaxTotal, gate.MaxDataURL, gate.MaxText), the tool
// list's (toollist.MaxTools, toollist.MaxSchema, toollist.MaxList), the
// files' (files.MaxIn, files.MaxSaved, replyfiles.MaxAttached), the JSON
// lexer's (envelope.MaxMembers), the MCP face's (mcp.MaxInFlight,
// mcp.MaxBatch, mcp.MaxLine), the stored credentials' (pairing.MaxSecrets,
// sites.MaxTokens, sites.MaxSites), and listen's lines (internal/cli).
//
// The constants are enforced by their callers (internal/page,
// internal/control, internal/client, security/fileperm). They bound memory
// and time per connection; they do not stop a local process from opening
// connections as fast as it likes, nor an authenticated page from being
// slow within them.
package limits

import "time"

// Before authentication: an upgraded socket that has not yet sent a valid
// handshake.
const (
	// PreAuthFrame is the largest first frame an unauthenticated socket may
	// send, in bytes; a larger one closes the socket. A handshake is a token
	// and a secret, well under 1 KB (reference bridge: 4 KB).
	PreAuthFrame = 4 << 10
	// AuthTimeout is how long a tab has after the upgrade to send its
	// handshake frame (reference bridge: 10 s). It also bounds how long one
	// socket holds a MaxUnauthSockets slot.
	AuthTimeout = 10 * time.Second
	// MaxUnauthSockets bounds upgraded sockets that have not yet
	// authenticated; a new upgrade beyond it closes the oldest of them, so
	// idle sockets can delay a genuine tab by one dial at most. With
	// AuthTimeout it caps the pre-auth memory at about
	// MaxUnauthSockets*PreAuthFrame plus buffers.
	MaxUnauthSockets = 16
)

// After authentication.
const (
	// PageFrame is the largest frame an authenticated page may send, in
	// bytes: a render as a data URL fits with room to spare (reference
	// bridge: 64 MB).
	PageFrame = 64 << 20
	// WriteWait bounds one write to a page; a page that cannot take a frame
	// in this time is treated as gone.
	WriteWait = 10 * time.Second
)

// HTTP, for the upgrade and the control plane on the same port.
const (
	// HTTPReadHeaderTimeout bounds how long a client may take to send
	// request headers (slowloris).
	HTTPReadHeaderTimeout = 10 * time.Second
	// There is deliberately no whole-request read timeout: net/http keeps
	// that deadline on the connection while the handler runs, and its expiry
	// cancels the request's context, which would cut a /wait long poll
	// short. A body is read only after the Origin and key checks, so only a
	// key holder can be slow with it; headers are bounded above, and the
	// WebSocket side by AuthTimeout.

	// HTTPIdleTimeout closes keep-alive connections nobody uses, between
	// requests (it does not limit a request in progress).
	HTTPIdleTimeout = 60 * time.Second
	// HTTPMaxHeaderBytes bounds request headers.
	HTTPMaxHeaderBytes = 16 << 10
	// HandshakeTimeout bounds the WebSocket upgrade itself.
	HandshakeTimeout = 10 * time.Second
	// ControlBody bounds a control-plane request body, in bytes; a /call
	// carrying a 14 MB file as a data URL (about 18.7 MB) fits (reference
	// bridge: about 24 MB). It must stay below PageFrame, since the body is
	// forwarded to the page as one frame.
	ControlBody = 24 << 20
	// ControlAnswer bounds a control-plane answer that the shell verbs or
	// a follower read (internal/client), in bytes. The largest a bridge
	// sends is a page's reply relayed whole by /call, at most PageFrame,
	// and the newline after it; the margin is room for that, not for
	// growth. A larger answer is not a bridge's, and is refused rather
	// than read into memory.
	ControlAnswer = PageFrame + 1<<10
)

// On disk.
const (
	// ConfigFile bounds any file the bridge reads from its config dir
	// (pairing.json, session files), in bytes. A pairing entry is under
	// 1 KB, so this is thousands of origins; a larger file is not ours and
	// is refused rather than read into memory.
	ConfigFile = 4 << 20
)
