//go:build unix

package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/stitchslop/stitchslop-bridge/internal/bridge"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
)

// The relay's own cost per call, in process: a real bridge (bridge.Run) on
// pipes for stdin and stdout and a loopback port, a page that answers echo
// from its read loop as a tab's single thread does, and an MCP client on the
// pipes. The calls are the bench's (scripts/bench): echo with a 200-byte
// pad. Take -cpuprofile and -memprofile of these to see where the bridge
// spends per call; the client and the page run in this process too, so
// look at the bridge's packages in the profile. Unix only: getrusage gives
// the CPU time per call.
//
//	go test -run '^$' -bench Relay -cpuprofile cpu.out ./internal/bridge

const benchSite = "https://www.stitchslop.com"

// relayRig is one bridge, its page and its MCP client.
type relayRig struct {
	in   *os.File // the bridge's stdin, written by the client
	out  *bufio.Reader
	page *websocket.Conn
	stop func()
}

func startRelay(b *testing.B) *relayRig {
	b.Helper()
	dir := b.TempDir()
	secret, err := pairing.New(dir, slog.New(slog.DiscardHandler)).Redeem(benchSite, "tok_0123456789abcdef")
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	listening := &seen{msg: "session file written", ch: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- bridge.Run(ctx, bridge.Config{Origin: benchSite, Ports: []int{port}, ConfigDir: dir,
			Stdin: inR, Stdout: outW, Log: slog.New(listening)})
		outW.Close()
	}()
	select {
	case <-listening.ch:
	case err := <-done:
		b.Fatalf("bridge.Run returned before listening: %v", err)
	}

	h := http.Header{}
	h.Set("Origin", benchSite)
	ws, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(port)+"/", h)
	if err != nil {
		b.Fatal(err)
	}
	first, _ := json.Marshal(map[string]string{"secret": secret})
	if err := ws.WriteMessage(websocket.TextMessage, first); err != nil {
		b.Fatal(err)
	}
	if _, hello, err := ws.ReadMessage(); err != nil || !strings.Contains(string(hello), `"hello"`) {
		b.Fatalf("page: hello %s, %v", hello, err)
	}
	r := &relayRig{in: inW, out: bufio.NewReaderSize(outR, 64<<10), page: ws}
	r.line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
	r.read(b)
	r.line(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)); err != nil {
		b.Fatal(err)
	}
	if got := r.read(b); !strings.Contains(string(got), "notifications/tools/list_changed") {
		b.Fatalf("want tools/list_changed, got %s", got)
	}
	pageDone := make(chan struct{})
	go func() {
		defer close(pageDone)
		servePage(ws)
	}()
	r.stop = func() {
		inW.Close()
		ws.Close()
		<-pageDone
		if err := <-done; err != nil {
			b.Errorf("bridge.Run: %v", err)
		}
		cancel()
		io.Copy(io.Discard, outR)
		outR.Close()
	}
	return r
}

// servePage answers every command frame {"id":N,…,"args":A} with
// {"id":N,"ok":true,"echo":A}, as the bench's page does.
func servePage(ws *websocket.Conn) {
	var reply []byte
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		var f struct {
			ID   json.RawMessage `json:"id"`
			Args json.RawMessage `json:"args"`
		}
		if json.Unmarshal(msg, &f) != nil || f.ID == nil {
			continue
		}
		reply = append(reply[:0], `{"id":`...)
		reply = append(reply, f.ID...)
		reply = append(reply, `,"ok":true,"echo":`...)
		reply = append(reply, f.Args...)
		reply = append(reply, '}')
		if ws.WriteMessage(websocket.TextMessage, reply) != nil {
			return
		}
	}
}

func (r *relayRig) line(s string) {
	r.in.WriteString(s + "\n")
}

func (r *relayRig) read(b *testing.B) []byte {
	line, err := r.out.ReadBytes('\n')
	if err != nil {
		b.Fatalf("reading stdout: %v", err)
	}
	return line
}

var pad = strings.Repeat("0123456789", 20)

func callLine(id int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"pad":%q}}}`+"\n", id, pad)
}

// answer reads the next response, passing over notifications, and fails
// on anything but a result with isError false.
func (r *relayRig) answer(b *testing.B) {
	line := r.read(b)
	for strings.Contains(string(line), `"method":`) {
		line = r.read(b)
	}
	if !strings.Contains(string(line), `"isError":false`) {
		b.Fatalf("want a result with isError false, got %s", line)
	}
}

// BenchmarkRelaySequential is one call at a time, as the bench's relay p50.
func BenchmarkRelaySequential(b *testing.B) {
	r := startRelay(b)
	defer r.stop()
	defer cpuPerOp(b)()
	for i := range b.N {
		r.in.Write(callLine(i + 1))
		r.answer(b)
	}
}

// BenchmarkRelay64InFlight keeps 64 calls waiting at once, as the bench's
// concurrent calls.
func BenchmarkRelay64InFlight(b *testing.B) {
	const inFlight = 64
	r := startRelay(b)
	defer r.stop()
	slots := make(chan struct{}, inFlight)
	wrote := make(chan struct{})
	defer cpuPerOp(b)()
	go func() {
		defer close(wrote)
		for i := range b.N {
			slots <- struct{}{}
			r.in.Write(callLine(i + 1))
		}
	}()
	for range b.N {
		r.answer(b)
		<-slots
	}
	<-wrote
}

// cpuPerOp resets the timer and returns the func that reports the
// process's CPU time (user and system) per op since: the bridge's, the
// page's and the client's, which stay the same from build to build.
func cpuPerOp(b *testing.B) func() {
	cpu := func() time.Duration {
		var u syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &u)
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	start := cpu()
	b.ResetTimer()
	return func() {
		b.ReportMetric(float64((cpu()-start).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

// seen is a log handler that closes ch at the first record of msg.
type seen struct {
	msg  string
	ch   chan struct{}
	once sync.Once
}

func (l *seen) Enabled(context.Context, slog.Level) bool { return true }
func (l *seen) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *seen) WithGroup(string) slog.Handler            { return l }
func (l *seen) Handle(_ context.Context, r slog.Record) error {
	if r.Message == l.msg {
		l.once.Do(func() { close(l.ch) })
	}
	return nil
}
