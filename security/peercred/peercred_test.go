package peercred

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

func TestOwnerString(t *testing.T) {
	tests := []struct {
		o    Owner
		want string
	}{
		{Owner{UID: 65534}, "uid 65534"},
		{Owner{UID: 0, Mine: true}, "uid 0"},
		{Owner{UID: -1, PID: 4812, SID: "S-1-5-21-1-2-3-1001"}, "pid 4812 (S-1-5-21-1-2-3-1001)"},
		{Owner{UID: -1, PID: 4}, "pid 4 (owner unknown)"},
	}
	for _, tt := range tests {
		if got := tt.o.String(); got != tt.want {
			t.Errorf("Owner%+v.String() = %q, want %q", tt.o, got, tt.want)
		}
	}
	e := &OtherUserError{Owner: Owner{UID: 65534}}
	if got, want := e.Error(), "peercred: peer belongs to another user (uid 65534)"; got != want {
		t.Errorf("OtherUserError.Error() = %q, want %q", got, want)
	}
}

// fakeConn has only addresses; SameUser must look at nothing else.
type fakeConn struct {
	net.Conn
	local, remote net.Addr
}

func (c fakeConn) LocalAddr() net.Addr  { return c.local }
func (c fakeConn) RemoteAddr() net.Addr { return c.remote }

func TestSameUserRefusesNonTCP(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	tcp := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787}
	tests := []struct {
		name string
		c    net.Conn
	}{
		{"nil", nil},
		{"pipe", a},
		{"unix", fakeConn{local: &net.UnixAddr{Name: "/tmp/s", Net: "unix"}, remote: &net.UnixAddr{Name: "@", Net: "unix"}}},
		{"nil local", fakeConn{local: nil, remote: tcp}},
		{"nil remote TCPAddr", fakeConn{local: tcp, remote: (*net.TCPAddr)(nil)}},
		{"no IP", fakeConn{local: tcp, remote: &net.TCPAddr{Port: 1}}},
		{"port 0", fakeConn{local: tcp, remote: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}},
	}
	for _, tt := range tests {
		err := SameUser(tt.c)
		if err == nil || errors.Is(err, ErrUnsupported) {
			t.Errorf("SameUser(%s) = %v, want an error about the connection", tt.name, err)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for _, port := range []int{0, -1, 65536, 1 << 20} {
		if _, _, err := ListenerOwner(port); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("ListenerOwner(%d) error = %v, want out of range", port, err)
		}
		if _, err := HoldsPort(1, port); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("HoldsPort(1, %d) error = %v, want out of range", port, err)
		}
	}
	for _, pid := range []int{0, -1} {
		if held, err := HoldsPort(pid, 8787); held || err == nil {
			t.Errorf("HoldsPort(%d, 8787) = %v, %v; want false and an error", pid, held, err)
		}
	}
}

func TestCanon(t *testing.T) {
	tests := []struct{ in, want string }{
		{"127.0.0.1:8787", "127.0.0.1:8787"},
		{"[::ffff:127.0.0.1]:8787", "127.0.0.1:8787"},
		{"[::1]:8787", "[::1]:8787"},
		{"[fe80::1%eth0]:8787", "[fe80::1]:8787"},
	}
	for _, tt := range tests {
		if got := canon(ap(tt.in)); got != ap(tt.want) {
			t.Errorf("canon(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
