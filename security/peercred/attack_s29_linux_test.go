package peercred

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSec_SameUserIPv4MappedClient: a client of this user whose socket is
// IPv6 (dual-stack, as Java's and some runtimes' are) dials 127.0.0.1 as
// ::ffff:127.0.0.1. The kernel finds it by the IPv4 four-tuple but
// describes it as the AF_INET6 socket it is, its addresses IPv4-mapped in
// 16 bytes; read as IPv4 (the first 4 bytes, all zero), it matches
// nothing, and this user's own connection is refused as having no peer.
//
// Fails on main: diagEntry (security/peercred/sockdiag_linux.go) decodes
// addresses by the family asked for (v4), not by the message's own
// idiag_family (m[0]).
func TestSec_SameUserIPv4MappedClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skip("no IPv6 here:", err)
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0); err != nil {
		t.Skip(err)
	}
	to := &unix.SockaddrInet6{Port: ln.Addr().(*net.TCPAddr).Port, Addr: [16]byte{10: 0xff, 11: 0xff, 12: 127, 15: 1}}
	if err := unix.Connect(fd, to); err != nil {
		t.Skip("cannot dial an IPv4-mapped address here:", err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if err := SameUser(server); err != nil {
		t.Errorf("SameUser of this user's own dual-stack client = %v; want nil", err)
	}
}
