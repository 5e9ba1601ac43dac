//go:build linux || windows

package peercred

import (
	"errors"
	"net/netip"
)

// The kernel's TCP tables, as Linux (sock_diag) and Windows
// (GetExtendedTcpTable) give them; no other system reads one.

// maxTableBytes bounds a kernel TCP table; a larger one is refused, since a
// truncated one could hide the entry that matters.
const maxTableBytes = 16 << 20

// entry is one socket of a kernel table (compare addresses through canon).
type entry struct {
	Local, Remote netip.AddrPort
	// State is in the table's own numbering (linux*, win*).
	State uint32
	// ID is the creator's uid on Linux (0 for TIME_WAIT), the pid on Windows.
	ID uint32
	// Inode is the socket's inode on Linux, 0 once no process holds it.
	Inode uint64
}

var (
	errNoPeer        = errors.New("peercred: no open socket is the other end of this connection (not local, or already closed)")
	errAmbiguousPeer = errors.New("peercred: the other end of this connection matches sockets of different owners")
)

// peerID is the owner of the live entry whose ends are the connection's
// swapped.
func peerID(entries []entry, local, remote netip.AddrPort, live func(entry) bool) (uint32, error) {
	var id uint32
	found := false
	for _, e := range entries {
		if !live(e) || canon(e.Local) != remote || canon(e.Remote) != local {
			continue
		}
		if found && e.ID != id {
			return 0, errAmbiguousPeer
		}
		id, found = e.ID, true
	}
	if !found {
		return 0, errNoPeer
	}
	return id, nil
}

// listenersAt returns the entries in state listen (linuxListen,
// winListen) on port whose local address receives(addr) accepts.
func listenersAt(entries []entry, listen uint32, port uint16, receives func(netip.Addr) bool) []entry {
	var out []entry
	for _, e := range entries {
		if e.State == listen && e.Local.Port() == port && receives(e.Local.Addr()) {
			out = append(out, e)
		}
	}
	return out
}

// receivesLoopback reports whether a socket listening at a gets connections
// made to 127.0.0.1 or to [::1].
func receivesLoopback(a netip.Addr) bool {
	return receives127(a) || a.WithZone("") == netip.IPv6Loopback()
}
