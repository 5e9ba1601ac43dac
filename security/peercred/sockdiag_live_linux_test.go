package peercred

import (
	"net"
	"net/netip"
	"os"
	"testing"
)

// The kernel's answer by netlink names a live connection's other end and a
// listener as they are: their ends, state, this user and an inode that this
// process's /proc/self/fd holds.
func TestSockDiagLive(t *testing.T) {
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
	held, err := socketInodes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}

	got, err := diagPeer(local, remote)
	if err != nil || len(got) != 1 {
		t.Fatalf("diagPeer = %v, %v; want the one client socket", got, err)
	}
	if e := got[0]; canon(e.Local) != remote || canon(e.Remote) != local || e.State != linuxEstablished ||
		e.ID != uint32(os.Getuid()) || !held[e.Inode] {
		t.Fatalf("diagPeer = %+v; want %v -> %v, established, uid %d, an inode of ours", e, remote, local, os.Getuid())
	}

	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	ls, err := diagListeners()
	if err != nil {
		t.Fatal(err)
	}
	if l := listenersAt(ls, linuxListen, port, receives127); len(l) != 1 || l[0].ID != uint32(os.Getuid()) || !held[l[0].Inode] {
		t.Fatalf("listeners on %d = %+v; want ours", port, l)
	}

	// No such socket: an empty answer, not an error.
	none, err := diagPeer(netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"))
	if err != nil || len(none) != 0 {
		t.Fatalf("diagPeer of no socket = %v, %v; want nothing", none, err)
	}
}
