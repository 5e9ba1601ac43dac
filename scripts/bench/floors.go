package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"time"

	"github.com/gorilla/websocket"
)

// The floors move the same bytes the same way as the bridge does, with
// nothing in between: what any bridge built on a WebSocket and a pipe would
// pay. A relayed call is a small request out and a reply back on each leg,
// so each floor round trip is: request out, a reply of the bridge's size
// back.

// wsFloor times the WebSocket leg without the bridge. An in-process gorilla
// server stands in for the bridge and a client with the page's dialer for
// the page, both on loopback. The server sends req; the client answers with
// reply; a round trip ends when the server has read the whole answer. The
// first warm round trips are not timed.
func wsFloor(req, reply []byte, warm, iters int, limit time.Duration) ([]time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	type result struct {
		times []time.Duration
		err   error
	}
	results := make(chan result, 1)
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			results <- result{err: err}
			return
		}
		defer ws.Close()
		ws.SetReadDeadline(time.Now().Add(limit))
		times := make([]time.Duration, 0, iters)
		for i := range warm + iters {
			start := time.Now()
			if err := ws.WriteMessage(websocket.TextMessage, req); err != nil {
				results <- result{err: err}
				return
			}
			if _, _, err := ws.ReadMessage(); err != nil {
				results <- result{err: err}
				return
			}
			if i >= warm {
				times = append(times, time.Since(start))
			}
		}
		results <- result{times: times}
	})}
	go srv.Serve(ln)
	defer srv.Close()

	conn, _, err := pageDialer.Dial("ws://"+ln.Addr().String()+"/", nil)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	go answerEach(conn, reply)
	select {
	case r := <-results:
		return r.times, r.err
	case <-time.After(limit):
		return nil, fmt.Errorf("WebSocket floor did not finish within %v", limit)
	}
}

// pipeFloor times the stdio leg without the bridge: it writes line to the
// echo program's stdin and reads its answer, a line of replyBytes bytes
// (newline included), from its stdout, through the same kind of pipes and
// reader as the MCP client uses on the bridge. The first warm round trips
// are not timed.
func pipeFloor(echoBin string, line []byte, replyBytes, warm, iters int, limit time.Duration) ([]time.Duration, error) {
	cmd := exec.Command(echoBin, "-reply", strconv.Itoa(replyBytes))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	watchdog := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	defer func() {
		watchdog.Stop()
		stdin.Close()
		io.Copy(io.Discard, stdout)
		cmd.Wait()
	}()
	br := bufio.NewReaderSize(stdout, 64<<10)
	times := make([]time.Duration, 0, iters)
	for i := range warm + iters {
		start := time.Now()
		if _, err := stdin.Write(line); err != nil {
			return nil, err
		}
		got, err := br.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("pipe floor: %v (killed after %v?)", err, limit)
		}
		if len(got) != replyBytes {
			return nil, errors.New("pipe floor: answer of the wrong size")
		}
		if i >= warm {
			times = append(times, time.Since(start))
		}
	}
	return times, nil
}

// The concurrent floors run each leg with inFlight round trips outstanding,
// as the concurrent calls keep the bridge: after warm sequential round
// trips, untimed, one goroutine sends whenever fewer than inFlight answers
// are owed and another reads the answers. Each returns the wall time of
// total round trips.

// wsFloorConc is wsFloor with inFlight round trips outstanding.
func wsFloorConc(req, reply []byte, warm, inFlight, total int, limit time.Duration) (time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	type result struct {
		wall time.Duration
		err  error
	}
	results := make(chan result, 1)
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			results <- result{err: err}
			return
		}
		defer ws.Close()
		ws.SetReadDeadline(time.Now().Add(limit))
		send := func() error { return ws.WriteMessage(websocket.TextMessage, req) }
		recv := func() error { _, _, err := ws.ReadMessage(); return err }
		for range warm {
			if err := send(); err != nil {
				results <- result{err: err}
				return
			}
			if err := recv(); err != nil {
				results <- result{err: err}
				return
			}
		}
		wall, err := pipelined(total, inFlight, send, recv)
		results <- result{wall: wall, err: err}
	})}
	go srv.Serve(ln)
	defer srv.Close()

	conn, _, err := pageDialer.Dial("ws://"+ln.Addr().String()+"/", nil)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	go answerEach(conn, reply)
	select {
	case r := <-results:
		return r.wall, r.err
	case <-time.After(limit):
		return 0, fmt.Errorf("concurrent WebSocket floor did not finish within %v", limit)
	}
}

// pipeFloorConc is pipeFloor with inFlight round trips outstanding.
func pipeFloorConc(echoBin string, line []byte, replyBytes, warm, inFlight, total int, limit time.Duration) (time.Duration, error) {
	cmd := exec.Command(echoBin, "-reply", strconv.Itoa(replyBytes))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	watchdog := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	defer func() {
		watchdog.Stop()
		stdin.Close()
		io.Copy(io.Discard, stdout)
		cmd.Wait()
	}()
	br := bufio.NewReaderSize(stdout, 64<<10)
	send := func() error { _, err := stdin.Write(line); return err }
	recv := func() error {
		got, err := br.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("concurrent pipe floor: %v (killed after %v?)", err, limit)
		}
		if len(got) != replyBytes {
			return errors.New("concurrent pipe floor: answer of the wrong size")
		}
		return nil
	}
	for range warm {
		if err := send(); err != nil {
			return 0, err
		}
		if err := recv(); err != nil {
			return 0, err
		}
	}
	return pipelined(total, inFlight, send, recv)
}

// pipelined makes total round trips with at most inFlight outstanding:
// send in a goroutine of its own, recv in this one. It returns their wall
// time. If send fails, recv is left to fail on its caller's deadline.
func pipelined(total, inFlight int, send, recv func() error) (time.Duration, error) {
	owed := make(chan struct{}, inFlight)
	quit := make(chan struct{})
	defer close(quit)
	sendErr := make(chan error, 1)
	start := time.Now()
	go func() {
		for range total {
			select {
			case owed <- struct{}{}:
			case <-quit:
				return
			}
			if err := send(); err != nil {
				sendErr <- err
				return
			}
		}
	}()
	for range total {
		if err := recv(); err != nil {
			select {
			case serr := <-sendErr:
				return 0, serr
			default:
				return 0, err
			}
		}
		<-owed
	}
	return time.Since(start), nil
}

// answerEach plays the page of a floor: it answers every frame it reads
// with reply, until the connection ends.
func answerEach(conn *websocket.Conn, reply []byte) {
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
		if err := conn.WriteMessage(websocket.TextMessage, reply); err != nil {
			return
		}
	}
}
