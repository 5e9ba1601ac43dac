package peercred

import (
	"net"
	"net/netip"
	"testing"
)

// The kernel's answer by netlink and its answer in /proc/net/tcp are the
// same socket: same ends, state, owner and inode, for a connection's other
// end and for a listener.
func TestSockDiagAgreesWithProc(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	local, _ := tcpAddrPort(server.LocalAddr())
	remote, _ := tcpAddrPort(server.RemoteAddr())

	byDiag, err := diagPeer(canon(local), canon(remote))
	if err != nil || len(byDiag) != 1 {
		t.Fatalf("diagPeer = %v, %v; want the one client socket", byDiag, err)
	}
	fromProc, err := readProcTables()
	if err != nil {
		t.Fatal(err)
	}
	var want entry
	for _, e := range fromProc {
		if canon(e.Local) == canon(remote) && canon(e.Remote) == canon(local) {
			want = e
		}
	}
	if got := byDiag[0]; canon(got.Local) != canon(want.Local) || canon(got.Remote) != canon(want.Remote) ||
		got.State != want.State || got.ID != want.ID || got.Inode != want.Inode || got.Inode == 0 {
		t.Fatalf("netlink says %+v, /proc says %+v", got, want)
	}

	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	ls, err := diagListeners()
	if err != nil {
		t.Fatal(err)
	}
	a, b := listenersAt(ls, linuxListen, port, receives127), listenersAt(fromProc, linuxListen, port, receives127)
	if len(a) != 1 || len(b) != 1 || a[0].ID != b[0].ID || a[0].Inode != b[0].Inode {
		t.Fatalf("listener on %d: netlink %+v, /proc %+v", port, a, b)
	}

	// No such socket: an empty answer, not an error.
	none, err := diagPeer(netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"))
	if err != nil || len(none) != 0 {
		t.Fatalf("diagPeer of no socket = %v, %v; want nothing", none, err)
	}
}
