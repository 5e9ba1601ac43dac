package page

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// attached serves one page socket with a conn whose writer runs, reading
// its frames as Server.serve does, and returns the conn and the page's end.
// A page with a small buffer has its socket's receive buffer at 4 KB, so
// that one that stops reading fills it at once.
func attached(t testing.TB, smallBuffer bool) (*conn, *websocket.Conn) {
	t.Helper()
	ready := make(chan *conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(holding{w}, r, nil)
		if err != nil {
			return
		}
		c := newConn(ws, DefaultTimings)
		go c.writeLoop()
		ready <- c
		for {
			if _, err := c.readMessage(); err != nil {
				c.setReason(err)
				c.Close()
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	d := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
		c, err := net.Dial(network, addr)
		if err == nil && smallBuffer {
			err = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		}
		return c, err
	}}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return <-ready, ws
}

// shortWriteWait makes writeWait d for one test.
func shortWriteWait(t testing.TB, d time.Duration) {
	old := writeWait
	writeWait = d
	t.Cleanup(func() { writeWait = old })
}

// A large frame, sent after more than writeWait of
// quiet, reaches the page: it is written against its own deadline, not the
// long-expired one of the flush before it.
func TestWriterDeadlinePerFrame(t *testing.T) {
	shortWriteWait(t, 100*time.Millisecond)
	c, ws := attached(t, false)
	small := []byte(`{"hello":"stitchslop-connector"}`)
	if err := c.Send(small); err != nil {
		t.Fatal(err)
	}
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, m, err := ws.ReadMessage(); err != nil || !bytes.Equal(m, small) {
		t.Fatalf("first frame: got %q (err %v), want %q", m, err, small)
	}
	// The quiet is the point: the last deadline set must be long past.
	time.Sleep(3 * writeWait)
	big := bytes.Repeat([]byte("x"), 192<<10) // more than a socket buffer takes at once
	if err := c.Send(big); err != nil {
		t.Fatalf("Send of %d bytes after the quiet: %v", len(big), err)
	}
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, m, err := ws.ReadMessage(); err != nil || !bytes.Equal(m, big) {
		t.Fatalf("frame of %d bytes after %v of quiet: got %d bytes (err %v, the connection ended: %q), want it whole",
			len(big), 3*writeWait, len(m), err, c.reason())
	}
}

// A page that stops reading is dropped at its write deadline, and the
// reason recorded says so: not "no pong or frame", which is the read
// deadline's.
func TestWriterTimeoutReason(t *testing.T) {
	shortWriteWait(t, 100*time.Millisecond)
	c, _ := attached(t, true) // the page never reads
	// More than the socket buffers hold, and fewer frames than the send
	// queue, so no Send waits (a sender that waits out writeWait records a
	// reason of its own).
	blob := bytes.Repeat([]byte("y"), 1<<20)
	for range sendQueue / 2 {
		if err := c.Send(blob); err != nil {
			t.Fatalf("Send: %v", err)
		}
	}
	select {
	case <-c.finished:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer is still running 10 s after the page stopped reading")
	}
	if why := c.reason(); !strings.Contains(why, "write to the tab timed out") {
		t.Fatalf("reason of a page that stopped reading: %q, want a write timeout", why)
	}
}

// The writer's cost per frame, one frame at a time (each flushed alone, as
// sequential calls are) and 64 at a time (batched into few writes, as
// concurrent calls are); the page reads every frame.
func BenchmarkWriter(b *testing.B) {
	frame := bytes.Repeat([]byte("z"), 300)
	for _, batch := range []int{1, 64} {
		b.Run("batch="+strconv.Itoa(batch), func(b *testing.B) {
			c, ws := attached(b, false)
			for b.Loop() {
				for range batch {
					c.Send(frame)
				}
				for range batch {
					if _, _, err := ws.ReadMessage(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/frame")
		})
	}
}

// countingConn counts the writes that reach the socket.
type countingConn struct {
	net.Conn
	writes atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// Frames that wait for the writer together leave in one write to the
// socket, each framed whole (the tab reads them one by one), where gorilla
// alone makes a system call per frame.
func TestWriterOneWriteForQueuedFrames(t *testing.T) {
	ready := make(chan *conn, 1)
	counted := make(chan *countingConn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(holding{w}, r, nil)
		if err != nil {
			return
		}
		c := newConn(ws, DefaultTimings)
		if c.out == nil {
			t.Error("the upgraded socket is not held: every frame is a write of its own")
			ws.Close()
			return
		}
		cc := &countingConn{Conn: c.out.Conn}
		c.out.Conn = cc
		counted <- cc
		ready <- c
		for {
			if _, err := c.readMessage(); err != nil {
				c.Close()
				return
			}
		}
	}))
	defer srv.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	c, cc := <-ready, <-counted
	const frames = 10
	for i := range frames {
		c.send <- []byte(`{"id":` + strconv.Itoa(i) + `,"command":"echo","args":{}}`)
	}
	go c.writeLoop()
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for i := range frames {
		_, m, err := ws.ReadMessage()
		if want := `{"id":` + strconv.Itoa(i) + `,`; err != nil || !strings.HasPrefix(string(m), want) {
			t.Fatalf("frame %d: %q (err %v), want one starting %s", i, m, err, want)
		}
	}
	if n := cc.writes.Load(); n != 1 {
		t.Errorf("%d frames queued together took %d writes to the socket, want 1", frames, n)
	}
}
