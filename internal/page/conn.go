package page

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/stitchslop/stitchslop-bridge/security/limits"
)

// sendQueue is how many frames may wait for the writer. A page that lets
// this many pile up is not reading and is dropped, so no caller ever blocks
// on it.
const sendQueue = 64

var (
	errClosed = errors.New("the tab's connection is closed")
	errSlow   = errors.New("the tab is not reading its frames")
)

// conn is an attached page. Its writer goroutine does every write, pings
// included; its reader is Server.serve.
type conn struct {
	ws       *websocket.Conn
	t        Timings
	send     chan []byte
	done     chan struct{}
	once     sync.Once
	lastSeen atomic.Int64 // unix nanoseconds of the last frame or pong
	why      atomic.Value // string: why the connection ended
	scratch  []byte       // the reader's first buffer for every frame
	lastLong int          // the size of the last frame longer than scratch
}

func newConn(ws *websocket.Conn, t Timings) *conn {
	c := &conn{ws: ws, t: t, send: make(chan []byte, sendQueue), done: make(chan struct{})}
	c.heard()
	ws.SetPongHandler(func(string) error { c.heard(); return nil })
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
		return nil
	default:
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

func (c *conn) setReason(err error) {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		c.why.CompareAndSwap(nil, "no pong or frame for "+c.t.Dead.String())
		return
	}
	c.why.CompareAndSwap(nil, err.Error())
}

func (c *conn) reason() string {
	s, _ := c.why.Load().(string)
	if s == "" {
		return "closed"
	}
	return s
}

// write sends one frame within limits.WriteWait.
func (c *conn) write(f []byte) error {
	c.ws.SetWriteDeadline(time.Now().Add(limits.WriteWait))
	return c.ws.WriteMessage(websocket.TextMessage, f)
}

// writeLoop sends queued frames and pings until the connection closes, then
// closes the socket, which ends the reader.
func (c *conn) writeLoop() {
	ping := time.NewTicker(c.t.Ping)
	defer func() {
		ping.Stop()
		c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
		c.ws.Close()
	}()
	for {
		select {
		case f := <-c.send:
			if err := c.write(f); err != nil {
				c.setReason(err)
				c.Close()
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(limits.WriteWait)); err != nil {
				c.setReason(err)
				c.Close()
				return
			}
		case <-c.done:
			// Flush what was queued before the close (a displaced notice).
			for {
				select {
				case f := <-c.send:
					if c.write(f) != nil {
						return
					}
				default:
					return
				}
			}
		}
	}
}
