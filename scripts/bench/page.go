package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// pageDialer is the page's WebSocket client, and the floor's. A browser
// sends a message as one frame; gorilla's client cuts a message into frames
// of its write buffer, so a 1 MiB buffer keeps a 43 MB data URL at about 43
// frames instead of about 11 000.
var pageDialer = &websocket.Dialer{HandshakeTimeout: guard, WriteBufferSize: 1 << 20}

// page plays the browser tab: it dials the bridge, hands over the pairing
// secret, sends its tool list and answers every command frame from its read
// loop, one at a time, as a tab's single thread would:
//
//	echo  -> {"id":N,"ok":true,"echo":<args>}
//	image -> {"id":N,"ok":true,"dataUrl":"data:image/png;base64,<image>"}
type page struct {
	conn  *websocket.Conn
	image []byte // the base64 the image command answers with
	done  chan struct{}

	mu      sync.Mutex
	lastReq []byte // the last command frame the bridge sent
}

var pageTools = []byte(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"image","inputSchema":{"type":"object"}}]}`)

// attachPage dials the bridge on port, hands over secret, checks the hello
// and sends the tool list.
func attachPage(port int, secret string, image []byte) (*page, error) {
	conn, err := dialPage(port)
	if err != nil {
		return nil, err
	}
	first, _ := json.Marshal(map[string]string{"secret": secret})
	conn.SetWriteDeadline(time.Now().Add(guard))
	conn.SetReadDeadline(time.Now().Add(guard))
	if err := conn.WriteMessage(websocket.TextMessage, first); err != nil {
		conn.Close()
		return nil, fmt.Errorf("page: send handshake: %w", err)
	}
	_, msg, err := conn.ReadMessage()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("page: read hello: %w", err)
	}
	var hello struct {
		Hello string `json:"hello"`
	}
	if json.Unmarshal(msg, &hello) != nil || hello.Hello != "stitchslop-connector" {
		conn.Close()
		return nil, fmt.Errorf("page: handshake answered %s, want a hello", msg)
	}
	if err := conn.WriteMessage(websocket.TextMessage, pageTools); err != nil {
		conn.Close()
		return nil, fmt.Errorf("page: send tools: %w", err)
	}
	conn.SetReadDeadline(time.Time{})
	conn.SetWriteDeadline(time.Time{})
	return servePage(conn, image), nil
}

// attachBarePage dials the minimal relay on port and answers its command
// frames, with no handshake and no tool list: the minimal relay wants
// neither.
func attachBarePage(port int) (*page, error) {
	conn, err := dialPage(port)
	if err != nil {
		return nil, err
	}
	return servePage(conn, nil), nil
}

// dialPage opens the page's socket to port with the page's Origin.
func dialPage(port int) (*websocket.Conn, error) {
	h := http.Header{}
	h.Set("Origin", origin)
	conn, resp, err := pageDialer.Dial(fmt.Sprintf("ws://127.0.0.1:%d/", port), h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return nil, fmt.Errorf("page: dial port %d: %v (HTTP %d)", port, err, status)
	}
	return conn, nil
}

func servePage(conn *websocket.Conn, image []byte) *page {
	p := &page{conn: conn, image: image, done: make(chan struct{})}
	go p.serve()
	return p
}

// serve answers command frames until the socket closes. gorilla's default
// ping handler answers the bridge's pings from inside ReadMessage.
func (p *page) serve() {
	defer close(p.done)
	for {
		_, msg, err := p.conn.ReadMessage()
		if err != nil {
			return
		}
		var f struct {
			ID      json.RawMessage `json:"id"`
			Command string          `json:"command"`
			Args    json.RawMessage `json:"args"`
		}
		if json.Unmarshal(msg, &f) != nil || f.ID == nil || f.Command == "" {
			continue // not a command: nothing to answer
		}
		p.mu.Lock()
		p.lastReq = msg
		p.mu.Unlock()
		p.conn.SetWriteDeadline(time.Now().Add(imageGuard))
		if err := p.answer(f.ID, f.Command, f.Args); err != nil {
			return
		}
	}
}

// answer writes the page's reply to one command frame. The reply is written
// in pieces into one message, so that the page does not copy a 43 MB data
// URL before sending it.
func (p *page) answer(id json.RawMessage, command string, args json.RawMessage) error {
	w, err := p.conn.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	switch {
	case command == "echo":
		w.Write(echoReply(id, args))
	case command == "image" && p.image != nil:
		w.Write(imageHead(id))
		w.Write(p.image)
		w.Write(imageTail)
	default:
		fmt.Fprintf(w, `{"id":%s,"ok":false,"message":"This page has no %q command."}`, id, command)
	}
	return w.Close()
}

func echoReply(id, args json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	b.Write(id)
	b.WriteString(`,"ok":true,"echo":`)
	b.Write(args)
	b.WriteString(`}`)
	return b.Bytes()
}

var imageTail = []byte(`"}`)

func imageHead(id json.RawMessage) []byte {
	return fmt.Appendf(nil, `{"id":%s,"ok":true,"dataUrl":"data:image/png;base64,`, id)
}

// imageReply is the whole reply image would get, as one slice.
func imageReply(id json.RawMessage, b64 []byte) []byte {
	b := imageHead(id)
	b = append(b, b64...)
	return append(b, imageTail...)
}

// lastRequest returns the last command frame the bridge sent.
func (p *page) lastRequest() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastReq
}

// close closes the socket and waits for the read loop to end.
func (p *page) close() {
	p.conn.Close()
	select {
	case <-p.done:
	case <-time.After(guard):
	}
}
