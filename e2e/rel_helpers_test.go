package e2e

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Helpers of the reliability and load tests (issue 13).

// callEnv posts one /call and decodes its envelope; safe from any
// goroutine (it reports errors instead of failing the test).
func callEnv(port int, key string, body map[string]any) (map[string]any, error) {
	status, data, err := ctlRaw(port, "POST", "/call", body, keyHeader(key), "")
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("HTTP %d, body %q is not a JSON object: %v", status, data, err)
	}
	return m, nil
}

// fdCount is the number of descriptors the bridge holds open.
func (b *bridge) fdCount() int {
	b.t.Helper()
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(b.pid()), "fd"))
	if err != nil {
		b.t.Skipf("no /proc here: %v", err)
	}
	return len(ents)
}

// figures are the bridge's goroutines, descriptors and resident set.
type figures struct{ goroutines, fds, rssKB int }

func (f figures) String() string {
	return fmt.Sprintf("%d goroutines, %d fds, %d KB RSS", f.goroutines, f.fds, f.rssKB)
}

func (b *bridge) figures() figures {
	return figures{b.goroutines(), b.fdCount(), b.rssKB()}
}

// awaitBaseline waits until the bridge's goroutines and descriptors are
// back within slack of base (the runtime closes sockets and ends their
// goroutines a moment after the peer has gone), and returns the figures
// it settled on. RSS is not among them: Go keeps freed memory for reuse
// and gives it back to the OS slowly, so RSS is checked by wantNoGrowth
// across rounds of the same load instead.
func (b *bridge) awaitBaseline(base figures, slack int) figures {
	b.t.Helper()
	deadline := time.Now().Add(3 * guard)
	for {
		now := b.figures()
		if now.goroutines <= base.goroutines+slack && now.fds <= base.fds+slack {
			return now
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("after the load: %v, want goroutines and fds back to %v (slack %d)", now, base, slack)
		}
		time.Sleep(100 * time.Millisecond) // polling /proc; nothing to await
	}
}

// rssGrowthKB is how much RSS may grow between two rounds of the same
// load: memory the first round took is reused by the second, so a leak
// shows as growth past this.
const rssGrowthKB = 8 << 10

// wantNoGrowth fails if RSS after a later round exceeds the first round's
// by more than rssGrowthKB. Under -race it only logs: the race detector's
// shadow memory grows with every goroutine ever started and says nothing
// about the bridge.
func wantNoGrowth(t *testing.T, rounds []figures) {
	t.Helper()
	for i := 1; i < len(rounds); i++ {
		if rounds[i].rssKB > rounds[0].rssKB+rssGrowthKB {
			if raceEnabled {
				t.Logf("RSS grew %d KB from round 1 to %d under -race (not checked)", rounds[i].rssKB-rounds[0].rssKB, i+1)
				continue
			}
			t.Errorf("RSS after round %d: %d KB, after round 1: %d KB; want growth under %d KB (a leak grows every round)", i+1, rounds[i].rssKB, rounds[0].rssKB, rssGrowthKB)
		}
	}
}

// maskedFrame is one client frame (RFC 6455 §5.2: a client masks), with
// fin and opcode as given.
func maskedFrame(fin bool, op byte, payload []byte) []byte {
	h := op
	if fin {
		h |= 0x80
	}
	out := []byte{h}
	n := len(payload)
	switch {
	case n < 126:
		out = append(out, 0x80|byte(n))
	case n <= 0xFFFF:
		out = append(out, 0x80|126, byte(n>>8), byte(n))
	default:
		out = append(out, 0x80|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	var key [4]byte
	rand.Read(key[:])
	out = append(out, key[:]...)
	for i, c := range payload {
		out = append(out, c^key[i%4])
	}
	return out
}

// fragmented is msg as a text message split into parts fragments, with a
// ping between every tenth (control frames may come between fragments).
func fragmented(msg []byte, parts int) []byte {
	var out []byte
	size := max(1, len(msg)/parts)
	for i := 0; i < len(msg); i += size {
		end := min(len(msg), i+size)
		op := byte(0x0) // continuation
		if i == 0 {
			op = 0x1 // text
		}
		out = append(out, maskedFrame(end == len(msg), op, msg[i:end])...)
		if (i/size)%10 == 5 {
			out = append(out, maskedFrame(true, 0x9, []byte("p"))...)
		}
	}
	return out
}

// smallBufferDialer dials with a tiny receive buffer, so a page that stops
// reading fills it after a few KB.
var smallBufferDialer = &websocket.Dialer{
	HandshakeTimeout: 5 * time.Second,
	NetDial: func(network, addr string) (net.Conn, error) {
		d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
			var serr error
			c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
			return serr
		}}
		return d.Dial(network, addr)
	},
}

// wantFailure checks that env is the bridge's own failure with one of codes.
func wantFailure(t *testing.T, what string, env map[string]any, codes ...string) {
	t.Helper()
	if env["ok"] != false {
		t.Errorf("%s: got %v, want ok:false", what, env)
		return
	}
	for _, c := range codes {
		if env["error"] == c {
			return
		}
	}
	t.Errorf("%s: got error %v (%v), want one of %q", what, env["error"], env, codes)
}

// frameOf decodes a raw frame as the page reader does.
func frameOf(data []byte) frame {
	f := frame{raw: data}
	json.Unmarshal(data, &f.m)
	return f
}
