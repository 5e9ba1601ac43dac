package page

import (
	"bufio"
	"cmp"
	"errors"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/stitchslop/stitchslop-bridge/security/limits"
)

// sendQueue is how many frames may wait for the writer before a sender
// waits for room, at most writeWait: a page that takes nothing that long
// is dropped.
const sendQueue = 64

// writeWait bounds each frame written to a page; tests shorten it.
var writeWait = limits.WriteWait

// closeWait bounds each write once the connection is ending: the frames
// still queued, then the close frame. Nobody waits for them, and Shutdown
// gives every tab shutdownWait in all, so it must be less than that.
const closeWait = time.Second

var (
	errClosed = errors.New("the tab's connection is closed")
	errSlow   = errors.New("the tab is not reading its frames")
)

// conn is an attached page. Its writer goroutine does every write, pings
// included; its reader is Server.serve.
type conn struct {
	ws       *websocket.Conn
	out      *heldConn // ws's socket when upgraded through holding (nil: gorilla writes each frame itself)
	t        Timings
	wait     time.Duration // writeWait as the connection began
	send     chan []byte
	pong     chan []byte // the answer to the page's latest ping
	done     chan struct{}
	finished chan struct{} // closed when the writer has sent its close frame and closed the socket
	once     sync.Once
	lastSeen atomic.Int64 // unix nanoseconds of the last frame or pong
	why      atomic.Value // string: why the connection ended
	scratch  []byte       // the reader's first buffer for every frame
	lastLong int          // the size of the last frame longer than scratch
}

func newConn(ws *websocket.Conn, t Timings) *conn {
	c := &conn{ws: ws, t: t, wait: writeWait, send: make(chan []byte, sendQueue), pong: make(chan []byte, 1), done: make(chan struct{}), finished: make(chan struct{})}
	c.out, _ = ws.NetConn().(*heldConn)
	c.heard()
	ws.SetPongHandler(func(string) error { c.heard(); return nil })
	// gorilla's own handlers would write from the reader; only the writer
	// writes. A pong waits in a one-slot queue (the latest answer wins).
	ws.SetPingHandler(func(data string) error {
		select {
		case c.pong <- []byte(data):
		default:
		}
		return nil
	})
	ws.SetCloseHandler(func(int, string) error {
		c.setReason(errors.New("the tab closed the connection"))
		c.Close()
		return nil
	})
	return c
}

// heard records a sign of life and extends the read deadline (§2.9).
func (c *conn) heard() {
	c.lastSeen.Store(time.Now().UnixNano())
	c.ws.SetReadDeadline(time.Now().Add(c.t.Dead))
}

func (c *conn) Send(frame []byte) error {
	select {
	case <-c.done:
		return errClosed
	default:
	}
	select {
	case c.send <- frame:
		if len(c.send) == 0 {
			// Handed to the idle writer: let it run on this thread now
			// (see mcp.yieldIfIdle).
			runtime.Gosched()
		}
		return nil
	default:
	}
	// The queue is full: wait for room rather than drop a busy page; the
	// writer's deadline closes one that takes nothing, and the timer bounds
	// the wait should the writer itself be stuck.
	full := time.NewTimer(c.wait)
	defer full.Stop()
	select {
	case c.send <- frame:
		return nil
	case <-c.done:
		return errClosed
	case <-full.C:
		c.setReason(errSlow)
		c.Close()
		return errSlow
	}
}

func (c *conn) Close() {
	c.once.Do(func() { close(c.done) })
}

func (c *conn) Reachable() bool {
	select {
	case <-c.done:
		return false
	default:
	}
	return time.Since(time.Unix(0, c.lastSeen.Load())) < c.t.Stale
}

// setReason records why the connection ended unless a reason is recorded
// (the first failure is the cause); a timeout here is the read deadline's.
func (c *conn) setReason(err error) { c.ended(err, "no pong or frame for "+c.t.Dead.String(), "") }

// ended records err as why the connection ended, worded as timedOut when
// it is a timeout, or as prefix and its text; the first reason stays.
func (c *conn) ended(err error, timedOut, prefix string) {
	why := prefix + err.Error()
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		why = timedOut
	}
	c.why.CompareAndSwap(nil, why)
}

func (c *conn) reason() string {
	s, _ := c.why.Load().(string)
	return cmp.Or(s, "closed")
}

// writeLoop is the socket's one writer: frames, pings, pongs and the close;
// closing the socket at the end ends the reader.
func (c *conn) writeLoop() {
	ping := time.NewTicker(c.t.Ping)
	defer func() {
		ping.Stop()
		// Flush what was queued before the close (a displaced notice).
		var err error
		for len(c.send) > 0 && err == nil {
			err = write(c.ws, websocket.TextMessage, <-c.send, closeWait)
		}
		if err == nil {
			write(c.ws, websocket.CloseMessage, closeGoingAway, closeWait)
		}
		c.ws.Close()
		close(c.finished)
	}()
	for {
		var err error
		select {
		case f := <-c.send:
			err = c.writeQueued(f)
		case data := <-c.pong:
			err = write(c.ws, websocket.PongMessage, data, c.wait)
		case <-ping.C:
			err = write(c.ws, websocket.PingMessage, nil, c.wait)
		case <-c.done:
			return
		}
		if err != nil {
			// A write that ran out of writeWait is a tab that is not
			// taking its frames, not one that is silent.
			c.ended(err, "a write to the tab timed out after "+c.wait.String()+" (it is not reading its frames)", "writing to the tab failed: ")
			c.Close()
			return
		}
	}
}

var closeGoingAway = websocket.FormatCloseMessage(websocket.CloseGoingAway, "")

// writeQueued writes f and the frames queued behind it (a queue's worth at
// most, so a pong waits no longer), each framed by gorilla with its own
// deadline, in one write to the socket: under load a tab's calls then cost
// one system call, and one wake-up of the tab, together.
func (c *conn) writeQueued(f []byte) error {
	if c.out != nil {
		c.out.hold = true
		defer func() { c.out.hold = false }()
	}
	for n := 1; ; n++ {
		if err := write(c.ws, websocket.TextMessage, f, c.wait); err != nil {
			return err
		}
		if len(c.send) == 0 || n == sendQueue {
			return c.out.flush()
		}
		f = <-c.send
	}
}

// heldMax bounds the bytes a page's socket holds for one write.
const heldMax = 64 << 10

// heldConn is a page's socket under gorilla. While the page writer holds it
// (writeQueued), what gorilla writes waits in held, to leave in one write
// at flush or once heldMax would be passed; otherwise writes go straight
// through. Only the page writer writes once it runs, so held needs no
// lock; reads, deadlines and Close pass through, and the write deadline
// set last, a frame's own, bounds the flush.
type heldConn struct {
	net.Conn
	hold bool
	held []byte
}

func (h *heldConn) Write(p []byte) (int, error) {
	if !h.hold || len(h.held)+len(p) > heldMax {
		if err := h.flush(); err != nil {
			return 0, err
		}
		return h.Conn.Write(p)
	}
	h.held = append(h.held, p...)
	return len(p), nil
}

// flush writes what is held; on nil, nothing.
func (h *heldConn) flush() error {
	if h == nil || len(h.held) == 0 {
		return nil
	}
	_, err := h.Conn.Write(h.held)
	h.held = h.held[:0]
	return err
}

// holding hands gorilla's Upgrade the hijacked socket as a heldConn.
type holding struct{ http.ResponseWriter }

func (h holding) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	return &heldConn{Conn: c}, brw, err
}

// write is the one way a frame reaches a page, each with a fresh deadline:
// one set only now and then would have expired when a large frame follows
// a quiet spell, and drop a healthy tab.
func write(ws *websocket.Conn, kind int, payload []byte, wait time.Duration) error {
	ws.SetWriteDeadline(time.Now().Add(wait))
	return ws.WriteMessage(kind, payload)
}
