// Package peercred asks the OS which user is on the other end of a loopback
// TCP connection, and who holds a listening port (THREAT_MODEL.md T10,
// T17). Linux reads netlink sock_diag (and /proc/<pid>/fd for HoldsPort);
// Windows GetExtendedTcpTable and the owning token's SID; elsewhere every
// function returns ErrUnsupported (the BSD pcblist layout changes between
// releases and cannot be read reliably without cgo).
//
// Fail closed: every function returns an error when it cannot prove its
// answer, and callers treat that as a refusal or "not held". Residual risk:
// the same user's other processes (T11), root, a socket handed to another
// user's process, pid reuse, and a squatter that binds between looks.
package peercred

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// ErrUnsupported is every function's answer but on Linux and Windows.
var ErrUnsupported = errors.New("peercred: finding the owner of a socket is not supported on this platform")

// ErrNoOwners is Squatters where the table names pid 0 for every listener
// (Wine): another user's cannot then be told from ours.
var ErrNoOwners = errors.New("peercred: the system's socket table names no owner for a listener, so another user's cannot be told from this one's")

// Owner is the owner of a socket, as far as the OS says: UID on Linux (-1
// on Windows), SID and PID on Windows.
type Owner struct {
	UID int
	SID string
	PID int
	// Mine is true only when the owner is proven to be this process's user.
	Mine bool
}

func (o Owner) String() string {
	var parts []string
	if o.UID >= 0 {
		parts = append(parts, "uid "+strconv.Itoa(o.UID))
	}
	if o.PID > 0 {
		parts = append(parts, "pid "+strconv.Itoa(o.PID))
	}
	switch {
	case o.SID != "":
		parts = append(parts, "("+o.SID+")")
	case o.UID < 0:
		parts = append(parts, "(owner unknown)")
	}
	return strings.Join(parts, " ")
}

// OtherUserError is SameUser's answer for a peer proven another user's.
type OtherUserError struct {
	Owner Owner
}

func (e *OtherUserError) Error() string {
	return "peercred: peer belongs to another user (" + e.Owner.String() + ")"
}

// SameUser returns nil only if the remote end of c, an accepted loopback
// connection, is this user's; any error is a refusal.
func SameUser(c net.Conn) error {
	if c == nil {
		return errors.New("peercred: nil connection")
	}
	local, err := tcpAddrPort(c.LocalAddr())
	if err != nil {
		return fmt.Errorf("peercred: local address: %w", err)
	}
	remote, err := tcpAddrPort(c.RemoteAddr())
	if err != nil {
		return fmt.Errorf("peercred: remote address: %w", err)
	}
	return sameUser(local, remote)
}

// ListenerOwner reports who listens where 127.0.0.1:port or [::1]:port
// lands, for doctor: one not proven ours if there is one.
func ListenerOwner(port int) (owner Owner, found bool, err error) {
	if err := checkPort(port); err != nil {
		return Owner{}, false, err
	}
	ls, err := listenersOn(uint16(port))
	if err != nil || len(ls) == 0 {
		return Owner{}, false, err
	}
	for _, l := range ls {
		if !l.Owner.Mine {
			return l.Owner, true, nil
		}
	}
	return ls[0].Owner, true, nil
}

// HoldsPort reports whether process pid holds every socket listening where
// a connection to 127.0.0.1:port would land.
func HoldsPort(pid, port int) (bool, error) {
	if pid <= 0 {
		return false, fmt.Errorf("peercred: pid %d is not a process id", pid)
	}
	if err := checkPort(port); err != nil {
		return false, err
	}
	return holdsPort(pid, uint16(port))
}

func checkPort(port int) error {
	if port < 1 || port > 65535 {
		return fmt.Errorf("peercred: port %d out of range 1-65535", port)
	}
	return nil
}

func tcpAddrPort(a net.Addr) (netip.AddrPort, error) {
	ta, ok := a.(*net.TCPAddr)
	if !ok || ta == nil {
		return netip.AddrPort{}, fmt.Errorf("not a TCP address (%T)", a)
	}
	ap := ta.AddrPort()
	if !ap.Addr().IsValid() || ap.Port() == 0 {
		return netip.AddrPort{}, errors.New("no IP address or port")
	}
	return canon(ap), nil
}

// canon unmaps an IPv4-mapped address and drops any zone, so an IPv4
// client seen by a dual-stack socket compares equal to its own entry.
func canon(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())
}

// receives127 reports whether a socket listening at a gets connections
// made to 127.0.0.1. [::] counts even if IPV6_V6ONLY: the tables do not
// say, and counting it only makes HoldsPort stricter.
func receives127(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	return a == netip.AddrFrom4([4]byte{127, 0, 0, 1}) || a.IsUnspecified()
}
