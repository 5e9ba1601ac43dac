//go:build unix

package e2e

// Tests that read /proc, send SIGUSR1 or take flock: the black-box suite
// skips itself on Windows, but must still compile there.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

var hookRE = regexp.MustCompile(`goroutines=(\d+) heapKB=(\d+)`)

// goroutines asks a test-hooks bridge for its goroutine count (SIGUSR1).
func (b *bridge) goroutines() int {
	n, _ := b.hookFigures()
	return n
}

// hookFigures asks a test-hooks bridge for its goroutine count and its
// live heap after a collection, in KB (SIGUSR1).
func (b *bridge) hookFigures() (goroutines, heapKB int) {
	b.t.Helper()
	from := b.stderr.lines.len()
	b.signal(syscall.SIGUSR1)
	line, _, ok := b.stderr.lines.await(from, guard, hookRE.MatchString)
	if !ok {
		b.t.Fatalf("no goroutine count on SIGUSR1; stderr:\n%s", b.stderr)
	}
	m := hookRE.FindStringSubmatch(line)
	goroutines, _ = strconv.Atoi(m[1])
	heapKB, _ = strconv.Atoi(m[2])
	return goroutines, heapKB
}

// rssKB reads the bridge's resident set from /proc.
func (b *bridge) rssKB() int {
	b.t.Helper()
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(b.pid()), "status"))
	if err != nil {
		b.t.Skipf("no /proc here: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	b.t.Fatal("no VmRSS in /proc/<pid>/status")
	return 0
}

// THREAT_MODEL T8/T9: a page that floods tool lists while the client does
// not read stdout grows neither the goroutine count nor memory: changes
// collapse into one signal, and the client, once it reads again, gets a
// handful of list_changed notifications, not one per list.
func TestSpec3_3_ToolListFloodWhileStdoutStalled(t *testing.T) {
	if testing.Short() {
		t.Skip("floods 5,000 frames")
	}
	t.Parallel()
	gate := make(chan struct{})
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, mcp: true, stdoutGate: gate})
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}()
	p := openPage(t, b.port, false)
	wantHello(t, p.handshake(map[string]any{"token": tok}), b.port)
	// Stall stdout: the pipe holds about 64 KiB, and the answer to a ping
	// whose id is 256 KiB does not fit, so the bridge's writer blocks on it
	// as on a client that stopped reading. The page then sees a call sent
	// after the ping: the reader has handed the ping's answer on.
	b.rpc.sendLine(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	b.rpc.sendLine(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	b.rpc.sendLine(`{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 256<<10) + `","method":"ping"}`)
	probe := b.rpc.request("tools/call", map[string]any{"name": "probe", "arguments": map[string]any{}})
	f, _ := p.command(0)
	before, rssBefore := b.goroutines(), b.rssKB()

	const lists = 5000
	for i := range lists {
		p.mustSend(map[string]any{"tools": []any{map[string]any{"name": "t" + strconv.Itoa(i%7), "inputSchema": map[string]any{"type": "object"}}}})
	}
	// Frames are read in order: once this list is in, all the rest are.
	p.mustSend(map[string]any{"tools": withTools("last")})
	b.awaitStatus("the last tool list", func(st map[string]any) bool { tools, _ := st["tools"].([]any); return len(tools) == 3 })
	after, rssAfter := b.goroutines(), b.rssKB()
	t.Logf("goroutines %d -> %d, RSS %d -> %d KiB", before, after, rssBefore, rssAfter)
	if after > before+4 {
		t.Errorf("goroutines grew from %d to %d while %d tool lists met a stalled stdout", before, after, lists)
	}
	if rssAfter-rssBefore > 64<<10 {
		t.Errorf("RSS grew by %d KiB while %d tool lists met a stalled stdout", rssAfter-rssBefore, lists)
	}

	close(gate)
	p.reply(f, map[string]any{"ok": true})
	b.rpc.response(probe)
	b.rpc.call("ping", nil)
	n := 0
	for _, m := range b.rpc.msgs.all() {
		if m.method() == listChanged {
			n++
		}
	}
	// Collapsed: a handful, not one per list. Once the writer is blocked,
	// every change folds into one signal; before it reaches the ping it may
	// pick a waiting signal a few times (each pick is a coin toss against
	// the queued ping), so a loaded machine can see a few more than one.
	if n < 1 || n > 10 {
		t.Fatalf("the client got %d list_changed notifications for %d tool lists, want a handful (collapsed)", n, lists)
	}
}

// Redeeming a token takes the pairing file's lock. While another process
// holds it, the redemption waits, but nothing else does: /status and
// tools/list answer.
func TestSpec2_4_StatusWhilePairingLocked(t *testing.T) {
	t.Parallel()
	b, tok := mcpBridge(t, "")
	b.rpc.initialize()
	lock, err := os.OpenFile(filepath.Join(b.configDir, "pairing.json.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	p := openPage(t, b.port, false)
	p.mustSend(map[string]any{"token": tok})
	awaitLockWaiter(t, b.pid())

	status, st := b.ctl("GET", "/status", nil)
	if status != 200 || st["connected"] != false {
		t.Fatalf("/status while the tab's token is being redeemed: got %d %v, want 200 and not connected", status, st)
	}
	if names := b.rpc.toolNames(); len(names) != len(bridgeTools) {
		t.Fatalf("tools/list during redemption: got %v", names)
	}
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	f, _ := p.frameAt(0, nil)
	wantHello(t, f, b.port)
	if f.str("pairingSecret") == "" {
		t.Fatalf("hello after the lock was released: %s, want a pairingSecret", f.raw)
	}
}

// awaitLockWaiter waits until pid is blocked on a file lock (/proc/locks
// lists waiters with "->").
func awaitLockWaiter(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Skipf("no /proc/locks: %v", err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			fs := strings.Fields(l)
			if len(fs) > 5 && fs[1] == "->" && fs[5] == strconv.Itoa(pid) {
				return
			}
		}
		time.Sleep(5 * time.Millisecond) // polling /proc: there is no event to wait on
	}
	t.Fatalf("bridge pid %d never waited on the pairing lock", pid)
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

// figures are the bridge's goroutines, descriptors, live heap and
// resident set.
type figures struct{ goroutines, fds, heapKB, rssKB int }

func (f figures) String() string {
	return fmt.Sprintf("%d goroutines, %d fds, %d KB live heap, %d KB RSS", f.goroutines, f.fds, f.heapKB, f.rssKB)
}

func (b *bridge) figures() figures {
	g, heap := b.hookFigures()
	return figures{g, b.fdCount(), heap, b.rssKB()}
}

// heapSlackKB is how far above its starting level the live heap may settle
// after a load. What a load leaves behind by design stays under it: the
// runtime keeps the descriptor of every goroutine it ever ran for reuse
// (about 1 MB after a thousand calls in flight at once), a map grown for
// those calls keeps its buckets, the page reader keeps a buffer the size
// of the last long frame. A leak shows as growth between rounds of the
// same load instead, which heapGrowthKB bounds far tighter.
const heapSlackKB = 2048

// heapGrowthKB is how much the live heap may grow from one round of the
// same load to the next. A leak grows it every round: 300 bytes a call over
// a thousand calls is over it. A round that peaks at more goroutines than
// any before leaves their descriptors behind, but only once: growth of
// 263 KB between two rounds was seen once under -race. So wantNoGrowth
// takes three rounds and fails only growth at every step.
const heapGrowthKB = 256

// awaitBaseline waits until the bridge's goroutines and descriptors are
// back within slack of base (the runtime closes sockets and ends their
// goroutines a moment after the peer has gone) and its live heap within
// heapSlackKB, and returns the figures it settled on. RSS is not among
// them: Go keeps freed memory for reuse and gives it back to the OS
// slowly, so RSS is checked by wantNoGrowth across rounds of the same load
// instead.
func (b *bridge) awaitBaseline(base figures, slack int) figures {
	b.t.Helper()
	deadline := time.Now().Add(3 * guard)
	for {
		now := b.figures()
		if now.goroutines <= base.goroutines+slack && now.fds <= base.fds+slack && now.heapKB <= base.heapKB+heapSlackKB {
			return now
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("after the load: %v, want goroutines and fds back to %v (slack %d) and the live heap within %d KB of it", now, base, slack, heapSlackKB)
		}
		time.Sleep(100 * time.Millisecond) // polling /proc; nothing to await
	}
}

// rssGrowthKB is how much RSS may grow between two rounds of the same
// load: memory the first round took is reused by the second, so a leak
// shows as growth past this.
const rssGrowthKB = 8 << 10

// wantNoGrowth fails if the live heap grew by more than heapGrowthKB from
// every round to the next, or RSS by more than rssGrowthKB: a leak grows
// them every round, a one-off (a higher peak of goroutines than any round
// before) once. It takes at least three rounds. Under -race the RSS check
// only logs: the race detector's shadow memory grows with every goroutine
// ever started and says nothing about the bridge.
func wantNoGrowth(t *testing.T, rounds []figures) {
	t.Helper()
	if len(rounds) < 3 {
		t.Fatalf("wantNoGrowth needs three rounds or more to tell a leak from a one-off; got %d", len(rounds))
	}
	growth := func(kb func(figures) int, bound int) (every bool, steps []int) {
		every = true
		for i := 1; i < len(rounds); i++ {
			d := kb(rounds[i]) - kb(rounds[i-1])
			steps = append(steps, d)
			every = every && d > bound
		}
		return every, steps
	}
	if every, steps := growth(func(f figures) int { return f.heapKB }, heapGrowthKB); every {
		t.Errorf("live heap grew %v KB from round to round; want some step under %d KB (a leak grows every round)", steps, heapGrowthKB)
	}
	if every, steps := growth(func(f figures) int { return f.rssKB }, rssGrowthKB); every {
		if raceEnabled {
			t.Logf("RSS grew %v KB from round to round under -race (not checked)", steps)
		} else {
			t.Errorf("RSS grew %v KB from round to round; want some step under %d KB (a leak grows every round)", steps, rssGrowthKB)
		}
	}
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
