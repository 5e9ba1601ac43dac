package page

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// readMessage returns every frame whole, whatever its size and whatever the
// size of the long frame before it, and never keeps more than twice a
// frame's size alive.
func TestReadMessage(t *testing.T) {
	sizes := []int{0, 10, readChunk, readChunk + 1, 100 << 10, 5 << 20, 6 << 20, 50 << 10, 3 << 20}
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
