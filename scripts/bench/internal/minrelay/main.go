// Command minrelay is the reference relay of scripts/bench: the cheapest
// program that makes the bridge's moves for a tools/call, so that the bench
// can set the bridge beside it in the same run. It checks nothing and
// sanitises nothing.
//
// It listens on 127.0.0.1 at -port, says "listening on 127.0.0.1:PORT" on
// stderr, and accepts one WebSocket from any Origin with no handshake: the
// first frame the page sends is already traffic. It reads MCP lines from
// stdin, one goroutine:
//
//   - tools/call: it writes the page the command frame
//     {"id":N,"command":NAME,"args":ARGS} itself, N counted here and mapped
//     back to the JSON-RPC id in a map under a mutex.
//   - initialize: it answers with a minimal result.
//   - any other request (ping, tools/list): it answers {"result":{}}.
//   - a notification (no id): nothing.
//
// The socket's reader goroutine takes each reply frame's id, finds the
// JSON-RPC id, and writes
// {"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":<the reply frame as a string>}],"isError":false}}
// to a buffered stdout and flushes. A frame with no known id is dropped.
// End of stdin ends the process with status 0.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/gorilla/websocket"
)

type relay struct {
	ready chan struct{} // closed once conn is set
	conn  *websocket.Conn

	outMu sync.Mutex // stdout is written by both goroutines
	out   *bufio.Writer

	mu      sync.Mutex
	pending map[int64]json.RawMessage // frame id -> JSON-RPC id
}

func main() {
	port := flag.Int("port", 0, "loopback port to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "minrelay:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "minrelay: listening on %s\n", ln.Addr())

	r := &relay{ready: make(chan struct{}), out: bufio.NewWriterSize(os.Stdout, 64<<10),
		pending: map[int64]json.RawMessage{}}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	var once sync.Once
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		taken := true
		once.Do(func() { taken = false })
		if taken {
			http.Error(w, "one page only", http.StatusConflict)
			return
		}
		conn, err := up.Upgrade(w, req, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "minrelay: upgrade:", err)
			os.Exit(1)
		}
		r.conn = conn
		close(r.ready)
		r.readSocket()
	}))

	r.readStdin()
	r.outMu.Lock()
	r.out.Flush()
	os.Exit(0)
}

// readStdin handles MCP lines until stdin ends.
func (r *relay) readStdin() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	var next int64
	var frame []byte
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      json.RawMessage `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "tools/call":
			next++
			r.mu.Lock()
			r.pending[next] = m.ID
			r.mu.Unlock()
			args := m.Params.Arguments
			if args == nil {
				args = json.RawMessage(`{}`)
			}
			frame = append(frame[:0], `{"id":`...)
			frame = strconv.AppendInt(frame, next, 10)
			frame = append(frame, `,"command":`...)
			frame = append(frame, m.Params.Name...)
			frame = append(frame, `,"args":`...)
			frame = append(frame, args...)
			frame = append(frame, '}')
			<-r.ready
			if err := r.conn.WriteMessage(websocket.TextMessage, frame); err != nil {
				fmt.Fprintln(os.Stderr, "minrelay: write frame:", err)
			}
		case "initialize":
			r.answer(m.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"minrelay","version":"0"}}`)
		default:
			r.answer(m.ID, `{}`)
		}
	}
}

// answer writes a response line with a fixed result.
func (r *relay) answer(id json.RawMessage, result string) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	r.out.WriteString(`{"jsonrpc":"2.0","id":`)
	r.out.Write(id)
	r.out.WriteString(`,"result":`)
	r.out.WriteString(result)
	r.out.WriteString("}\n")
	r.out.Flush()
}

// readSocket writes a response line for every reply frame until the socket
// closes.
func (r *relay) readSocket() {
	var line []byte
	for {
		_, msg, err := r.conn.ReadMessage()
		if err != nil {
			return
		}
		var f struct {
			ID int64 `json:"id"`
		}
		if json.Unmarshal(msg, &f) != nil {
			continue
		}
		r.mu.Lock()
		id, ok := r.pending[f.ID]
		delete(r.pending, f.ID)
		r.mu.Unlock()
		if !ok {
			continue
		}
		line = append(line[:0], `{"jsonrpc":"2.0","id":`...)
		line = append(line, id...)
		line = append(line, `,"result":{"content":[{"type":"text","text":`...)
		line = appendString(line, msg)
		line = append(line, `}],"isError":false}}`+"\n"...)
		r.outMu.Lock()
		r.out.Write(line)
		r.out.Flush()
		r.outMu.Unlock()
	}
}

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, everything else as it is.
func appendString(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
