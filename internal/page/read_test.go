package page

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// readMessage returns every frame whole, whatever its size and whatever the
// size of the long frame before it, and never keeps more than twice a
// frame's size alive.
func TestReadMessage(t *testing.T) {
	sizes := []int{0, 10, readChunk, readChunk + 1, 100 << 10, 5 << 20, 6 << 20, 50 << 10, 3 << 20, exportPast + 1, 40 << 20, 1 << 20}
	got := make(chan []byte, len(sizes))
	errs := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			errs <- err
			return
		}
		defer ws.Close()
		c := &conn{ws: ws}
		for range sizes {
			m, err := c.readMessage()
			if err != nil {
				errs <- err
				return
			}
			got <- m
		}
	}))
	defer srv.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for i, n := range sizes {
		want := bytes.Repeat([]byte{byte('a' + i)}, n)
		if err := ws.WriteMessage(websocket.TextMessage, want); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if !bytes.Equal(m, want) {
				t.Fatalf("frame %d of %d bytes read back as %d bytes, or changed", i, n, len(m))
			}
			if n > 0 && cap(m) > 2*n {
				t.Errorf("frame %d of %d bytes is held in %d bytes, want at most twice its size", i, n, cap(m))
			}
		case err := <-errs:
			t.Fatalf("frame %d: %v", i, err)
		}
	}
}

// The writer answers the page's pings, sends queued frames whole and in
// order (several per write), and closes with 1001.
func TestWriter(t *testing.T) {
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
	c := <-ready

	pong := make(chan string, 1)
	ws.SetPongHandler(func(s string) error { pong <- s; return nil })
	if err := ws.WriteControl(websocket.PingMessage, []byte("are you there"), time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 50 {
		f := strings.Repeat(string(rune('a'+i%26)), i*i*40) // up to 96 KB: every length encoding
		want = append(want, f)
		if err := c.Send([]byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	// One reader for the whole test: the pong is handled inside
	// ReadMessage, and may come after the last frame.
	type read struct {
		m   []byte
		err error
	}
	reads := make(chan read, len(want)+1)
	go func() {
		for {
			_, m, err := ws.ReadMessage()
			reads <- read{m, err}
			if err != nil {
				return
			}
		}
	}()
	for i, w := range want {
		r := <-reads
		if r.err != nil || string(r.m) != w {
			t.Fatalf("frame %d: got %d bytes (err %v), want %d", i, len(r.m), r.err, len(w))
		}
	}
	select {
	case s := <-pong:
		if s != "are you there" {
			t.Fatalf("pong %q, want the ping's data", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no pong for the page's ping")
	}
	c.Close()
	if err := (<-reads).err; !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Fatalf("after Close the page read %v, want a 1001 close frame", err)
	}
}
