// Package client is the shell side of the control plane (protocol.md §4):
// it finds the running bridge from its session file and sends it requests.
package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/control"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
	"github.com/stitchslop/stitchslop-bridge/security/limits"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// Error is a failure with its exit code and a machine-readable code for the
// JSON printed on stdout.
type Error struct {
	Exit int
	Code string
	Msg  string
	Hint string
}

func (e *Error) Error() string { return e.Msg }

// Find picks the bridge to drive: port's, or the only live one, since
// choosing among several would silently drive the wrong document.
func Find(dir string, port int) (session.File, error) {
	live, bad, err := session.List(dir)
	if err != nil {
		return session.File{}, &Error{Exit: exitcode.NoBridge, Code: "no_bridge", Msg: fmt.Sprintf("cannot read session files in %s: %v", dir, err)}
	}
	var hint string
	if len(bad) > 0 {
		hint = "unreadable session files were ignored: " + errors.Join(bad...).Error()
	}
	if port != 0 {
		for _, f := range live {
			if f.File.Port == port {
				return f.File, nil
			}
		}
		return session.File{}, &Error{Exit: exitcode.NoBridge, Code: "no_bridge",
			Msg: fmt.Sprintf("no bridge is running on port %d (no live %s)", port, session.Path(dir, port)), Hint: hint}
	}
	switch len(live) {
	case 0:
		if hint == "" {
			hint = "start one with: STITCHSLOP_TOKEN=<token> stitchslop-bridge --origin <site> &, or try it without a Stitch Slop account: stitchslop demo"
		}
		return session.File{}, &Error{Exit: exitcode.NoBridge, Code: "no_bridge",
			Msg: fmt.Sprintf("no bridge is running (no live session file in %s)", dir), Hint: hint}
	case 1:
		return live[0].File, nil
	}
	var opts []string
	for _, f := range live {
		opts = append(opts, fmt.Sprintf("--port %d (%s, pid %d)", f.File.Port, f.File.Origin, f.File.PID))
	}
	return session.File{}, &Error{Exit: exitcode.NoBridge, Code: "several_bridges",
		Msg:  fmt.Sprintf("%d bridges are running; say which with --port", len(live)),
		Hint: "choose one of: " + strings.Join(opts, "; ")}
}

// ConnectTimeout bounds the TCP connect to the bridge: on loopback it
// stalls only when the bridge is frozen, and this leaves room for one SYN
// retransmission on a loaded machine.
const ConnectTimeout = 2 * time.Second

var connectTimeout = ConnectTimeout

// maxErrorBody caps how much of an answer other than 200 is read to word
// the error: the bridge's refusals are one short envelope.
const maxErrorBody = 4 << 10

// maxErrorText caps how much of such an answer is quoted back to the person.
const maxErrorText = 300

// maxAnswer caps a 200 answer's body: whatever holds the port does not
// decide how much this process reads.
var maxAnswer int64 = limits.ControlAnswer

var errNoAnswer = errors.New("the bridge did not answer in time")

type Request struct {
	Method string
	Path   string
	Body   any // sent as JSON when not nil

	// Timeout bounds the whole exchange, and must be positive: a frozen
	// bridge must never hang the shell.
	Timeout time.Duration

	// Listener and VoiceOwner, when positive, are sent as
	// control.ListenerHeader and control.VoiceOwnerHeader.
	Listener   int
	VoiceOwner int
}

type Client struct {
	s    session.File
	http *http.Client
}

func New(s session.File) *Client {
	dialer := &net.Dialer{Timeout: connectTimeout}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if err := identify(s); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}
	// No proxy, ever: the request goes to loopback and carries the key.
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true, DialContext: dial}
	return &Client{s: s, http: &http.Client{Transport: tr}}
}

// unidentified is a listener on the session file's port that is not the
// session file's bridge, or (lookup) one this system cannot tie to it.
type unidentified struct {
	why    string
	lookup bool
}

func (e *unidentified) Error() string { return e.why }

// identify makes sure the key goes only to the bridge the session file
// names (THREAT_MODEL T10): the process holding the port must be the
// file's pid (peercred.HoldsPort). Where the OS cannot say (not Linux or
// Windows), the session file's 0600 mode is the only check.
func identify(s session.File) error {
	held, err := holdsPort(s.PID, s.Port)
	switch {
	case errors.Is(err, peercred.ErrUnsupported):
		return nil
	case err != nil:
		return &unidentified{fmt.Sprintf("cannot tell whether port %d is held by the bridge (pid %d) its session file names: %v", s.Port, s.PID, err), true}
	case !held:
		return &unidentified{fmt.Sprintf("port %d is not held by the bridge (pid %d) its session file names", s.Port, s.PID), false}
	}
	return nil
}

// holdsPort is peercred.HoldsPort; a test hook.
var holdsPort = peercred.HoldsPort

// Do returns the body of a 200 answer, in one buffer of its size when the
// answer gives its length, so that a reply of an image is held once. Any
// other answer, one over maxAnswer, or none in full within r.Timeout, is an
// *Error.
func (c *Client) Do(ctx context.Context, r Request) ([]byte, error) {
	if r.Timeout <= 0 {
		return nil, fmt.Errorf("request %s %s: no timeout given", r.Method, r.Path)
	}
	var rd io.Reader
	if r.Body != nil {
		b, err := gate.Marshal(r.Body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, r.Timeout, errNoAnswer)
	defer cancel()
	url := "http://127.0.0.1:" + strconv.Itoa(c.s.Port) + r.Path
	req, err := http.NewRequestWithContext(ctx, r.Method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set(control.KeyHeader, c.s.Key)
	if r.Listener > 0 {
		req.Header.Set(control.ListenerHeader, strconv.Itoa(r.Listener))
	}
	if r.VoiceOwner > 0 {
		req.Header.Set(control.VoiceOwnerHeader, strconv.Itoa(r.VoiceOwner))
	}
	if r.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.sendError(ctx, r, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if resp.ContentLength > maxAnswer {
			return nil, c.tooLarge()
		}
		var buf bytes.Buffer
		if resp.ContentLength > 0 {
			buf.Grow(int(resp.ContentLength) + bytes.MinRead) // ReadFrom wants MinRead free to read on
		}
		// One byte past the limit is enough to know the answer is over it.
		if _, err := buf.ReadFrom(io.LimitReader(resp.Body, maxAnswer+1)); err != nil {
			return nil, c.readError(ctx, r, err)
		}
		if int64(buf.Len()) > maxAnswer {
			return nil, c.tooLarge()
		}
		return buf.Bytes(), nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return nil, c.readError(ctx, r, err)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, &Error{Exit: exitcode.NoBridge, Code: "stale_session",
			Msg:  fmt.Sprintf("the bridge on port %d refused the key in its session file (stale: another process has the port now)", c.s.Port),
			Hint: "start the bridge again, or pass --port for the one you mean"}
	}
	code, text := refusal(b, resp.StatusCode)
	return nil, &Error{Exit: exitcode.Failed, Code: code, Msg: fmt.Sprintf("the bridge answered %s: %s", resp.Status, text)}
}

// sendError words a failure to get an answer's headers.
func (c *Client) sendError(ctx context.Context, r Request, err error) error {
	if ie := c.interrupted(ctx, r); ie != nil {
		return ie
	}
	// A dial failure: nothing accepted the connection. Refused means the
	// session file outlived its bridge; a connect timeout, a bridge too
	// frozen to accept. Both leave nothing to drive (exit 3).
	var un *unidentified
	if errors.As(err, &un) && un.lookup {
		return &Error{Exit: exitcode.NoBridge, Code: "stale_session", Msg: "the key was not sent: " + un.why}
	}
	if errors.As(err, &un) {
		return &Error{Exit: exitcode.NoBridge, Code: "stale_session",
			Msg:  "the session file is stale and the key was not sent: " + un.why,
			Hint: "start the bridge again; if something else holds the port, stop it"}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		if op.Timeout() {
			return &Error{Exit: exitcode.NoBridge, Code: "no_bridge",
				Msg:  fmt.Sprintf("cannot connect to the bridge on port %d: it did not accept the connection within %s (pid %d may be frozen)", c.s.Port, seconds(connectTimeout), c.s.PID),
				Hint: "if it stays like this, stop that process and start the bridge again"}
		}
		return &Error{Exit: exitcode.NoBridge, Code: "stale_session",
			Msg:  fmt.Sprintf("the session file for port %d is stale: nothing answers there (the bridge, pid %d, is gone)", c.s.Port, c.s.PID),
			Hint: "start the bridge again"}
	}
	if context.Cause(ctx) == errNoAnswer {
		return c.timeoutError(r.Timeout)
	}
	return &Error{Exit: exitcode.NoBridge, Code: "no_bridge", Msg: fmt.Sprintf("cannot reach the bridge on port %d: %v", c.s.Port, err)}
}

// readError words a failure while reading an answer's body.
func (c *Client) readError(ctx context.Context, r Request, err error) error {
	if ie := c.interrupted(ctx, r); ie != nil {
		return ie
	}
	if context.Cause(ctx) == errNoAnswer {
		return c.timeoutError(r.Timeout)
	}
	return &Error{Exit: exitcode.Failed, Code: "read_failed", Msg: fmt.Sprintf("reading the answer of the bridge on port %d: %v", c.s.Port, err)}
}

// interrupted is a request its caller gave up on before the answer was in
// (exit 130), or nil when its own Timeout ended it. It is no missing
// bridge: a call it sent may still run in the tab, its reply lost.
func (c *Client) interrupted(ctx context.Context, r Request) error {
	cause := context.Cause(ctx)
	if cause == nil || cause == errNoAnswer {
		return nil
	}
	e := &Error{Exit: exitcode.Interrupted, Code: "interrupted",
		Msg: fmt.Sprintf("interrupted (%v) before the bridge on port %d answered", cause, c.s.Port)}
	if r.Path == "/call" {
		e.Msg += "; the command may still run in the tab, and its reply will not be printed"
		e.Hint = "stitchslop-bridge status shows whether the tab is still attached; running the command again may run it twice"
	}
	return e
}

// timeoutError is a bridge that took the connection but did not answer in
// full in time. It is there but stuck, or slower than any verb allows: a
// failure (exit 1), not a missing bridge.
func (c *Client) timeoutError(timeout time.Duration) error {
	return &Error{Exit: exitcode.Failed, Code: "no_answer",
		Msg:  fmt.Sprintf("the bridge on port %d (pid %d) did not answer within %s", c.s.Port, c.s.PID, seconds(timeout)),
		Hint: "the bridge may be frozen: check its stderr, and start it again if it stays stuck"}
}

// tooLarge is an answer over maxAnswer: more than any bridge sends.
func (c *Client) tooLarge() error {
	return &Error{Exit: exitcode.Failed, Code: "too_large",
		Msg: fmt.Sprintf("the answer from port %d is over %d MiB, more than a bridge ever sends (a tab's reply is at most %d MiB); it was not read further",
			c.s.Port, maxAnswer>>20, limits.PageFrame>>20)}
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// refusal reads an error answer: the refusal envelope's code, or
// http_STATUS, and its message or body, cut and quoted unless plain, since
// whatever holds the port may have sent it.
func refusal(b []byte, status int) (code, text string) {
	// Through the door, as every answer: a member of the wrong type is
	// left empty and the other still read; a body the door refuses (no
	// JSON object, or one that names a member twice) leaves both empty.
	env, _ := envelope.Decode(b)
	errCode, _ := env.String("error")
	message, _ := env.String("message")
	code = "http_" + strconv.Itoa(status)
	if len(errCode) > 0 && len(errCode) <= 40 && strings.Trim(errCode, "abcdefghijklmnopqrstuvwxyz_") == "" {
		code = errCode
	}
	s := strings.TrimSpace(string(b))
	if message != "" {
		s = message
	}
	if len(s) > maxErrorText {
		s = strings.ToValidUTF8(s[:maxErrorText], "") + "..."
	}
	if unprintable.Any(s) {
		return code, unprintable.Quote(s)
	}
	return code, s
}
