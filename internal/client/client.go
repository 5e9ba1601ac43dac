// Package client is the shell side of the control plane (protocol.md §4):
// it finds the running bridge from its session file and sends it requests.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/session"
)

// Exit codes of the shell verbs (protocol.md §4.4).
const (
	ExitOK       = 0
	ExitFailed   = 1 // a refusal or a failed command: ok:false
	ExitNoBridge = 3 // no bridge running, a stale session file, or several bridges and no --port
	ExitUsage    = 64
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

// Find picks the bridge to drive. Session files of dead processes are
// pruned. With port != 0 only that bridge will do; otherwise exactly one
// live bridge must exist: choosing among several would silently drive the
// wrong document.
func Find(dir string, port int) (session.File, error) {
	live, bad, err := session.List(dir)
	if err != nil {
		return session.File{}, &Error{Exit: ExitNoBridge, Code: "no_bridge", Msg: fmt.Sprintf("cannot read session files in %s: %v", dir, err)}
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
		return session.File{}, &Error{Exit: ExitNoBridge, Code: "no_bridge",
			Msg: fmt.Sprintf("no bridge is running on port %d (no live %s)", port, session.Path(dir, port)), Hint: hint}
	}
	switch len(live) {
	case 0:
		if hint == "" {
			hint = "start one with: STITCHSLOP_TOKEN=<token> stitchslop-bridge --origin <site> &"
		}
		return session.File{}, &Error{Exit: ExitNoBridge, Code: "no_bridge",
			Msg: fmt.Sprintf("no bridge is running (no live session file in %s)", dir), Hint: hint}
	case 1:
		return live[0].File, nil
	}
	var opts []string
	for _, f := range live {
		opts = append(opts, fmt.Sprintf("--port %d (%s, pid %d)", f.File.Port, f.File.Origin, f.File.PID))
	}
	return session.File{}, &Error{Exit: ExitNoBridge, Code: "several_bridges",
		Msg:  fmt.Sprintf("%d bridges are running; say which with --port", len(live)),
		Hint: "choose one of: " + strings.Join(opts, "; ")}
}

// Client talks to one bridge.
type Client struct {
	s    session.File
	http *http.Client
}

// New returns a client for the bridge described by s.
func New(s session.File) *Client {
	// No proxy, ever: the request goes to loopback and carries the key.
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	return &Client{s: s, http: &http.Client{Transport: tr}}
}

// Do sends a request and returns the body of a 200 answer. Any other answer
// becomes an *Error.
func (c *Client) Do(ctx context.Context, method, path string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	url := "http://127.0.0.1:" + strconv.Itoa(c.s.Port) + path
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-stitchslop-key", c.s.Key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if isRefused(err) {
			return nil, &Error{Exit: ExitNoBridge, Code: "stale_session",
				Msg:  fmt.Sprintf("the session file for port %d is stale: nothing answers there (the bridge, pid %d, is gone)", c.s.Port, c.s.PID),
				Hint: "start the bridge again"}
		}
		return nil, &Error{Exit: ExitNoBridge, Code: "no_bridge", Msg: fmt.Sprintf("cannot reach the bridge on port %d: %v", c.s.Port, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &Error{Exit: ExitFailed, Code: "read_failed", Msg: fmt.Sprintf("reading the bridge's answer: %v", err)}
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return b, nil
	case http.StatusUnauthorized:
		return nil, &Error{Exit: ExitNoBridge, Code: "stale_session",
			Msg:  fmt.Sprintf("the bridge on port %d refused the key in its session file (stale: another process has the port now)", c.s.Port),
			Hint: "start the bridge again, or pass --port for the one you mean"}
	}
	return nil, &Error{Exit: ExitFailed, Code: "http_" + strconv.Itoa(resp.StatusCode),
		Msg: fmt.Sprintf("the bridge answered %s: %s", resp.Status, strings.TrimSpace(string(b)))}
}

// isRefused reports a failure to connect at all (connection refused, or
// nothing listening): the session file outlived its bridge.
func isRefused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
