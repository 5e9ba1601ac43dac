package peercred

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// helperEnv, when set, turns the test binary into a helper process that
// the tests start as another user (see runHelper).
const helperEnv = "PEERCRED_TEST_HELPER"

// nobody is the uid and gid the helper runs as.
const nobody = 65534

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper is the helper process: "listen" listens on 127.0.0.1:0 and
// prints its port, "listen6" the same on [::1]:0; "dial:PORT" connects to
// 127.0.0.1:PORT and prints "ok", "dial6:PORT" the same from an IPv6
// socket, as ::ffff:127.0.0.1 (a dual-stack client).
// Either then holds its socket until its stdin is closed.
func runHelper(mode string) int {
	var keep io.Closer
	switch {
	case mode == "listen" || mode == "listen6":
		addr := "127.0.0.1:0"
		if mode == "listen6" {
			addr = "[::1]:0"
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		keep = ln
		fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	case strings.HasPrefix(mode, "dial6:"):
		// net.Dial would pick an IPv4 socket for a mapped address.
		port, _ := strconv.Atoi(strings.TrimPrefix(mode, "dial6:"))
		fd, err := syscall.Socket(syscall.AF_INET6, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err == nil {
			err = syscall.Connect(fd, &syscall.SockaddrInet6{Port: port, Addr: [16]byte{10: 0xff, 11: 0xff, 12: 127, 15: 1}})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		keep = os.NewFile(uintptr(fd), "dial6")
		fmt.Println("ok")
	case strings.HasPrefix(mode, "dial:"):
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strings.TrimPrefix(mode, "dial:")), liveTimeout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		keep = c
		fmt.Println("ok")
	default:
		fmt.Fprintln(os.Stderr, "helper: unknown mode")
		return 2
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	keep.Close()
	return 0
}

// swap sets *p to v for the rest of the test.
func swap[T any](t *testing.T, p *T, v T) {
	t.Helper()
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

// fakeTables points the package at the kernel tables in entries and a
// procfs of fixtures holding /proc/<pid>/fd only, seen by uid 1000.
func fakeTables(t *testing.T, entries []entry) {
	t.Helper()
	root := t.TempDir()
	fds := map[string][]string{
		"4242": {"/dev/null", "socket:[45678]", "pipe:[9]", "socket:[45679]"},
		"4343": {"socket:[50002]"},
		"4444": {"socket:[45690]", "anon_inode:[eventpoll]", "socket:[50002]"},
	}
	for pid, links := range fds {
		dir := filepath.Join(root, pid, "fd")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, target := range links {
			if err := os.Symlink(target, filepath.Join(dir, strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	swap(t, &procRoot, root)
	table := func() ([]entry, error) { return slices.Clone(entries), nil }
	swap(t, &peerTable, func(netip.AddrPort, netip.AddrPort) ([]entry, error) { return table() })
	swap(t, &listenTable, table)
	swap(t, &getuid, func() int { return 1000 })
}

var (
	// 127.0.0.1:55555 -> 127.0.0.1:8787, uid 1000: a client of ours.
	eOurClient4 = entry{ap("127.0.0.1:55555"), ap("127.0.0.1:8787"), linuxEstablished, 1000, 45682}
	// 127.0.0.1:8790 listening, uid 1000, beside eAny6's [::]:8790.
	eListen8790 = entry{ap("127.0.0.1:8790"), ap("0.0.0.0:0"), linuxListen, 1000, 45690}
	// 127.0.0.2:8791 listening, uid 65534: gets nothing sent to 127.0.0.1.
	eListen127002 = entry{ap("127.0.0.2:8791"), ap("0.0.0.0:0"), linuxListen, 65534, 45700}

	fixture = []entry{eListen4, eServer4, eClient4, eTimeWait4, eAny4, eOurClient4, eListen8790, eListen127002,
		eListen6, eAny6, eMapped}
)

func tcpConn(local, remote string) net.Conn {
	addr := func(s string) *net.TCPAddr {
		a := ap(s)
		// net.IP in its 16-byte form, as the net package usually holds it.
		return &net.TCPAddr{IP: net.IP(a.Addr().AsSlice()).To16(), Port: int(a.Port())}
	}
	return fakeConn{local: addr(local), remote: addr(remote)}
}

func TestSameUserFixture(t *testing.T) {
	fakeTables(t, fixture)
	tests := []struct {
		name          string
		uid           int
		local, remote string
		ok            bool
		other         int // uid in the *OtherUserError, if one is wanted
	}{
		{"client of ours", 1000, "127.0.0.1:8787", "127.0.0.1:55555", true, 0},
		{"ipv4-mapped client of ours", 1000, "127.0.0.1:8787", "127.0.0.1:40001", true, 0},
		{"client of uid 65534", 1000, "127.0.0.1:8787", "127.0.0.1:54321", false, 65534},
		{"we are root: a time-wait entry's uid 0 is no proof", 0, "127.0.0.1:56706", "127.0.0.1:34977", false, -1},
		{"no such connection", 1000, "127.0.0.1:8787", "127.0.0.1:1", false, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			swap(t, &getuid, func() int { return tt.uid })
			err := SameUser(tcpConn(tt.local, tt.remote))
			if tt.ok {
				if err != nil {
					t.Errorf("SameUser(%s <- %s) = %v, want nil", tt.local, tt.remote, err)
				}
				return
			}
			var oe *OtherUserError
			switch {
			case err == nil:
				t.Errorf("SameUser(%s <- %s) = nil, want an error", tt.local, tt.remote)
			case tt.other >= 0 && (!errors.As(err, &oe) || oe.Owner.UID != tt.other || oe.Owner.Mine):
				t.Errorf("SameUser(%s <- %s) = %v, want *OtherUserError for uid %d", tt.local, tt.remote, err, tt.other)
			case tt.other < 0 && errors.As(err, &oe):
				t.Errorf("SameUser(%s <- %s) = %v, want a lookup failure, not a verdict", tt.local, tt.remote, err)
			}
		})
	}
}

func TestListenerOwnerFixture(t *testing.T) {
	fakeTables(t, fixture)
	tests := []struct {
		port  int
		found bool
		want  Owner
	}{
		{8787, true, Owner{UID: 1000, Mine: true}},
		{8788, true, Owner{UID: 65534}},            // 0.0.0.0
		{8789, true, Owner{UID: 1000, Mine: true}}, // [::1]
		{8790, true, Owner{UID: 65534}},            // ours on 127.0.0.1, theirs on [::]: theirs wins
		{8791, false, Owner{}},                     // 127.0.0.2 only
		{54321, false, Owner{}},                    // a connection, not a listener
		{9999, false, Owner{}},
	}
	for _, tt := range tests {
		got, found, err := ListenerOwner(tt.port)
		if err != nil || found != tt.found || got != tt.want {
			t.Errorf("ListenerOwner(%d) = %+v, %v, %v; want %+v, %v, nil", tt.port, got, found, err, tt.want, tt.found)
		}
	}
}

func TestSquattersFixture(t *testing.T) {
	fakeTables(t, fixture)
	nob := Owner{UID: 65534}
	tests := []struct {
		port int
		want []Squatter
	}{
		{8787, nil}, // ours alone
		{8788, []Squatter{{netip.MustParseAddr("0.0.0.0"), 8788, nob}}},
		{8789, nil}, // ours on [::1]
		{8790, []Squatter{{netip.IPv6Unspecified(), 8790, nob}}}, // ours on 127.0.0.1 is left out
		{8791, nil}, // 127.0.0.2 gets nothing sent to loopback
		{9999, nil},
	}
	for _, tt := range tests {
		got, err := Squatters(tt.port)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Squatters(%d) = %v, %v; want %v, nil", tt.port, got, err, tt.want)
		}
	}
	if got := (Squatter{netip.IPv6Loopback(), 8788, nob}).String(); got != "[::1]:8788 (uid 65534)" {
		t.Errorf("Squatter.String() = %q, want %q", got, "[::1]:8788 (uid 65534)")
	}
	if _, err := Squatters(0); err == nil {
		t.Errorf("Squatters(0) = nil error, want out of range")
	}
}

func TestHoldsPortFixture(t *testing.T) {
	fakeTables(t, fixture)
	tests := []struct {
		pid, port int
		want      bool
		wantErr   bool
	}{
		{4242, 8787, true, false},
		{4343, 8787, false, false},
		{4242, 8788, false, false},  // 0.0.0.0:8788 is not 4242's
		{4242, 8789, false, false},  // only [::1]: no connection to 127.0.0.1 lands there
		{4343, 8790, false, false},  // holds [::]:8790 but not 127.0.0.1:8790
		{4444, 8790, true, false},   // holds both
		{4242, 9999, false, false},  // nothing listens
		{777, 8787, false, true},    // no such process
		{4242, 54321, false, false}, // a connection, not a listener
	}
	for _, tt := range tests {
		got, err := HoldsPort(tt.pid, tt.port)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("HoldsPort(%d, %d) = %v, %v; want %v, error %v", tt.pid, tt.port, got, err, tt.want, tt.wantErr)
		}
	}
}

// Where the kernel's socket table cannot be read (no netlink sock_diag:
// WSL1, a sandbox), every function fails, never a default answer: no
// connection passes, and the error says why.
func TestFailClosedWithoutSockDiag(t *testing.T) {
	swap(t, &openDiag, func() (int, error) { return -1, syscall.EAFNOSUPPORT })
	if err := SameUser(tcpConn("127.0.0.1:8787", "127.0.0.1:55555")); !errors.Is(err, syscall.EAFNOSUPPORT) ||
		!strings.Contains(err.Error(), "every one is refused") {
		t.Errorf("SameUser = %v, want the sock_diag failure, saying connections are refused", err)
	}
	if o, found, err := ListenerOwner(8787); err == nil {
		t.Errorf("ListenerOwner(8787) = %+v, %v, nil; want an error", o, found)
	}
	if sq, err := Squatters(8787); err == nil {
		t.Errorf("Squatters(8787) = %v, nil; want an error", sq)
	}
	if held, err := HoldsPort(os.Getpid(), 8787); err == nil || held {
		t.Errorf("HoldsPort = %v, %v; want false and an error", held, err)
	}

	// A real connection of our own user is closed unread, and the log
	// says why.
	lines := make(chan string, 16)
	ln, err := Listen("127.0.0.1:0", slog.New(slog.NewTextHandler(chanWriter(lines), nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case line := <-lines:
		if !strings.Contains(line, "refused a connection whose owner could not be checked") || !strings.Contains(line, "sock_diag") {
			t.Errorf("log = %q, want the refusal and its cause", line)
		}
	case c := <-accepted:
		c.Close()
		t.Fatal("Accept returned a connection whose owner could not be checked")
	case <-time.After(liveTimeout):
		t.Fatal("no refusal logged")
	}
	c.SetReadDeadline(time.Now().Add(liveTimeout))
	if n, err := c.Read(make([]byte, 1)); err == nil || n != 0 {
		t.Fatalf("our own connection, unchecked, read %d bytes, %v; want it closed", n, err)
	}
}

// chanWriter sends each write, a log line, to its channel.
type chanWriter chan string

func (w chanWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

func TestHoldsPortPID1(t *testing.T) {
	ln, _, _ := pair(t, "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	held, err := HoldsPort(1, port)
	if err != nil {
		t.Skipf("pid 1's file descriptors are not readable here: %v", err)
	}
	if held {
		t.Errorf("HoldsPort(1, %d) = true, want false", port)
	}
}

// TestOtherUserLive starts the test binary as uid 65534 (nobody): its
// connection to our listener must be refused by SameUser, and its own
// listener reported by ListenerOwner as not ours.
func TestOtherUserLive(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root: cannot start a process as uid 65534 (nobody) to play another user")
	}
	bin := helperBinary(t)

	// dial6: the same from a dual-stack socket, which the kernel describes
	// as AF_INET6 with IPv4-mapped addresses: still found, still refused
	// as another user's (TestSec_SameUserIPv4MappedClient is ours).
	for _, mode := range []string{"dial", "dial6"} {
		t.Run(mode, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			ln := l.(*net.TCPListener)
			startHelper(t, bin, mode+":"+strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
			c := accept(t, ln)
			err = SameUser(c)
			var oe *OtherUserError
			if !errors.As(err, &oe) || oe.Owner.UID != nobody || oe.Owner.Mine {
				t.Errorf("SameUser(connection from uid %d) = %v, want *OtherUserError for uid %d", nobody, err, nobody)
			}
		})
	}

	t.Run("listen", func(t *testing.T) {
		cmd, line := startHelper(t, bin, "listen")
		port, err := strconv.Atoi(line)
		if err != nil {
			t.Fatalf("helper printed %q, want a port", line)
		}
		var o Owner
		var found bool
		eventually(t, fmt.Sprintf("a listener on port %d", port), func() bool {
			o, found, err = ListenerOwner(port)
			return err != nil || found
		})
		if err != nil || !found || o.UID != nobody || o.Mine {
			t.Errorf("ListenerOwner(%d) = %+v, %v, %v; want uid %d, not ours", port, o, found, err, nobody)
		}
		if held, err := HoldsPort(os.Getpid(), port); err != nil || held {
			t.Errorf("HoldsPort(self, %d) = %v, %v; want false, nil", port, held, err)
		}
		if held, err := HoldsPort(cmd.Process.Pid, port); err != nil || !held {
			t.Errorf("HoldsPort(helper, %d) = %v, %v; want true, nil", port, held, err)
		}
	})
}

// TestListenLive: a listener made by Listen hands out our own connection
// and never one of uid 65534, which it closes unread.
func TestListenLive(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root: cannot start a process as uid 65534 (nobody) to play another user")
	}
	bin := helperBinary(t)
	var log strings.Builder
	l, err := Listen("127.0.0.1:0", slog.New(slog.NewTextHandler(&logWriter{b: &log}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	startHelper(t, bin, "dial:"+strconv.Itoa(port)) // connected before ours
	mine, err := net.DialTimeout("tcp", l.Addr().String(), liveTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	l.(*ownUserOnly).Listener.(*net.TCPListener).SetDeadline(time.Now().Add(liveTimeout))
	c, err := l.Accept()
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	defer c.Close()
	if c.RemoteAddr().String() != mine.LocalAddr().String() {
		t.Errorf("Accept() = a connection from %v, want ours from %v (uid %d's came first)", c.RemoteAddr(), mine.LocalAddr(), nobody)
	}
	if !strings.Contains(log.String(), "uid 65534") {
		t.Errorf("log = %q, want the refusal naming uid %d", log.String(), nobody)
	}
}

// TestSquattersLive: a listener of uid 65534 on [::1] is a squatter of
// its port, before and after we bind 127.0.0.1 there; ours is not.
func TestSquattersLive(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root: cannot start a process as uid 65534 (nobody) to play another user")
	}
	bin := helperBinary(t)
	_, line := startHelper(t, bin, "listen6")
	port, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("helper printed %q, want a port", line)
	}
	want := []Squatter{{Addr: netip.IPv6Loopback(), Port: port, Owner: Owner{UID: nobody}}}
	if got, err := Squatters(port); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Squatters(%d) = %v, %v; want %v", port, got, err, want)
	}
	ours, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Skipf("cannot bind 127.0.0.1:%d beside [::1]: %v", port, err)
	}
	defer ours.Close()
	if got, err := Squatters(port); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Squatters(%d) with ours on 127.0.0.1 = %v, %v; want %v", port, got, err, want)
	}
}

// logWriter is a strings.Builder safe for a logger.
type logWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// eventually polls cond until it is true, failing after liveTimeout.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", liveTimeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// helperBinary copies the test binary where uid 65534 may run it.
func helperBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary: %v", err)
	}
	dir, err := os.MkdirTemp("", "peercred-helper-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(dir, "peercred-helper")
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// startHelper runs bin as uid and gid 65534 in mode (see runHelper) and
// returns its first line of output. It skips the test when the system
// will not start a process as another user (no CAP_SETUID, a noexec temp
// directory, an unmapped uid in a user namespace).
func startHelper(t *testing.T, bin, mode string) (*exec.Cmd, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveTimeout)
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		cancel()
		r.Close()
		w.Close()
		t.Skipf("cannot start a process as uid %d here: %v", nobody, err)
	}
	w.Close()
	t.Cleanup(func() {
		stdin.Close() // the helper's signal to let go and exit
		_ = cmd.Wait()
		cancel()
		r.Close()
	})
	if err := r.SetReadDeadline(time.Now().Add(liveTimeout)); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("helper (uid %d, %s) printed nothing: %v", nobody, mode, err)
	}
	return cmd, strings.TrimSpace(line)
}
