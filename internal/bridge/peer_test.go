package bridge

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
)

// lines is a log sink that hands each line to whoever waits for one.
type lines struct {
	mu   sync.Mutex
	all  []string
	more chan struct{}
}

func newLines() *lines { return &lines{more: make(chan struct{})} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, strings.Split(strings.TrimRight(string(p), "\n"), "\n")...)
	close(l.more)
	l.more = make(chan struct{})
	return len(p), nil
}

// await waits for a line holding text.
func (l *lines) await(t *testing.T, text string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		for _, s := range l.all {
			if strings.Contains(s, text) {
				l.mu.Unlock()
				return
			}
		}
		more := l.more
		l.mu.Unlock()
		select {
		case <-more:
		case <-timeout:
			t.Fatalf("no log line holds %q; got:\n%s", text, strings.Join(l.all, "\n"))
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

// fakeSquatters swaps findSquatters for a table of port -> squatters.
func fakeSquatters(t *testing.T, table func(port int) []peercred.Squatter) {
	t.Helper()
	old := findSquatters
	findSquatters = func(p int) ([]peercred.Squatter, error) { return table(p), nil }
	t.Cleanup(func() { findSquatters = old })
}

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out
}

func nobodyOn(addr string, port int) peercred.Squatter {
	return peercred.Squatter{Addr: netip.MustParseAddr(addr), Port: port, Owner: peercred.Owner{UID: 65534}}
}

// A port another user shares on [::1] is skipped for the next; alone, it
// is refused. One held on 127.0.0.1 stops the scan, as before.
func TestListenSharedPort(t *testing.T) {
	ports := freePorts(t, 2)
	p1, p2 := ports[0], ports[1]
	fakeSquatters(t, func(p int) []peercred.Squatter {
		if p == p1 {
			return []peercred.Squatter{nobodyOn("::1", p1)}
		}
		return nil
	})
	log := ui.NewLogger(newLines())
	ln, port, skipped, err := listen([]int{p1, p2}, nil, log)
	if err != nil {
		t.Fatalf("listen(%d,%d) = %v", p1, p2, err)
	}
	ln.Close()
	if port != p2 || len(skipped) != 1 || skipped[0] != nobodyOn("::1", p1) {
		t.Errorf("listen(%d,%d) = port %d, skipped %v; want %d, skipping [::1]:%d", p1, p2, port, skipped, p2, p1)
	}
	_, _, _, err = listen([]int{p1}, nil, log)
	var se *squatError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), fmt.Sprintf("[::1]:%d (uid 65534)", p1)) {
		t.Errorf("listen(%d) = %v, want a squatError naming [::1]:%d (uid 65534)", p1, err, p1)
	}

	// Held on 127.0.0.1 by another user: the bind fails, and the scan stops.
	held, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p1)))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	fakeSquatters(t, func(p int) []peercred.Squatter {
		if p == p1 {
			return []peercred.Squatter{nobodyOn("127.0.0.1", p1)}
		}
		return nil
	})
	if _, _, _, err := listen([]int{p1, p2}, nil, log); !errors.As(err, &se) {
		t.Errorf("listen(%d,%d) with 127.0.0.1:%d held by uid 65534 = %v, want a squatError", p1, p2, p1, err)
	}
}

// A squatter that arrives while the bridge serves is found by the next
// look, reported once on stderr, put in the hub's state and notice, and
// dropped when it goes.
func TestWatchSquatters(t *testing.T) {
	var arrived atomic.Bool
	fakeSquatters(t, func(p int) []peercred.Squatter {
		if p == 8788 && arrived.Load() {
			return []peercred.Squatter{nobodyOn("::1", 8788)}
		}
		return nil
	})
	out := newLines()
	b := &bridge{t: Timings{Squat: time.Millisecond}, log: ui.NewLogger(out), hub: hub.New(time.Second),
		sites: sites.New("https://www.stitchslop.com", "")}
	scan := scanList(nil, 8787)
	if !b.lookForSquatters(scan, 8787) {
		t.Fatal("lookForSquatters = false, want true")
	}
	if st := b.hub.State(); st.Squatters == nil || len(st.Squatters) != 0 || st.Notice != "" {
		t.Fatalf("hub state with no squatter = %+v, %q; want an empty list, no notice", st.Squatters, st.Notice)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { b.watchSquatters(scan, 8787, stop); close(done) }()
	defer func() { close(stop); <-done }()

	arrived.Store(true)
	out.await(t, "port 8788 on ::1 is held by a listener of another user (uid 65534)")
	st := b.hub.State()
	if len(st.Squatters) != 1 || st.Squatters[0].Address != "::1" || st.Squatters[0].Port != 8788 || st.Squatters[0].UID == nil || *st.Squatters[0].UID != 65534 {
		t.Errorf("hub squatters = %+v, want [::1]:8788 of uid 65534", st.Squatters)
	}
	if !strings.Contains(st.Notice, "[::1]:8788") {
		t.Errorf("hub notice = %q, want it to name [::1]:8788", st.Notice)
	}
	arrived.Store(false)
	out.await(t, "the listener of another user on [::1]:8788 (uid 65534) is gone")
	if n := strings.Count(out.String(), "is held by a listener of another user"); n != 1 {
		t.Errorf("the squatter was reported %d times, want once:\n%s", n, out)
	}
	if st := b.hub.State(); len(st.Squatters) != 0 || st.Notice != "" {
		t.Errorf("hub state after it went = %+v, %q; want none", st.Squatters, st.Notice)
	}
}

// A table that names no owner (Wine's: pid 0 for every socket) cannot tell
// another user's listener from the bridge's own: the bridge listens on the
// first port all the same, says once that it cannot look, and stops
// looking, rather than taking its own socket for a squatter on every port.
func TestNoOwnersInTheTable(t *testing.T) {
	old := findSquatters
	findSquatters = func(int) ([]peercred.Squatter, error) { return nil, peercred.ErrNoOwners }
	t.Cleanup(func() { findSquatters = old })
	out := newLines()
	port := freePorts(t, 1)[0]
	ln, got, skipped, err := listen([]int{port}, nil, ui.NewLogger(out))
	if err != nil || got != port || len(skipped) != 0 {
		t.Fatalf("listen with a table of no owners = %v, %d, %v; want port %d", err, got, skipped, port)
	}
	ln.Close()
	b := &bridge{t: Timings{Squat: time.Millisecond}, log: ui.NewLogger(out), hub: hub.New(time.Second),
		sites: sites.New("https://www.stitchslop.com", "")}
	if b.lookForSquatters(scanList(nil, port), port) {
		t.Error("lookForSquatters with a table of no owners = true, want false: it cannot look")
	}
	out.await(t, "cannot look for other users' listeners")
}

// TestDefaultPortsAreTheTabs: the ports scanned with no --port are the
// four the tab dials, in its order (protocol.md §2.1), written from the
// spec. The black-box tests of the scan run on ports of their own
// (a test-tagged build's STITCHSLOP_TEST_PORTS), so this is where the numbers themselves are held.
func TestDefaultPortsAreTheTabs(t *testing.T) {
	if want := []int{8787, 8788, 8789, 8790}; !slices.Equal(DefaultPorts, want) {
		t.Errorf("DefaultPorts = %v, want %v", DefaultPorts, want)
	}
}

func TestPortList(t *testing.T) {
	for _, tt := range []struct {
		ports []int
		want  string
	}{
		{[]int{8787, 8788, 8789, 8790}, "8787-8790"},
		{[]int{9420, 9401}, "9420, 9401"},
		{[]int{9401, 9402}, "9401, 9402"},
		{[]int{9401}, "9401"},
		{[]int{1, 2, 4}, "1, 2, 4"},
	} {
		if got := portList(tt.ports, ", "); got != tt.want {
			t.Errorf("portList(%v) = %q, want %q", tt.ports, got, tt.want)
		}
	}
}
