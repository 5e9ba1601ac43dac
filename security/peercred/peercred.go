// Package peercred asks the operating system which user is on the other
// end of a loopback TCP connection, and who holds a listening port. It
// mitigates THREAT_MODEL.md T10 (other-user) and T17 (demo): a process of
// another local account that dials the bridge or the demo's page server,
// perhaps replaying a secret it learned, or that squats a port the tab
// dials, before the bridge starts or while it serves.
//
//   - Listen(addr, log) is the one way the binary listens: the bridge's
//     port and the demo's page server alike (T17). What it returns is
//     OwnUserOnly(ln): its Accept hands out only connections SameUser
//     passes, and closes the others before a byte of them is read.
//   - SameUser(c) proves that the remote end of an accepted loopback
//     connection is a socket owned by this process's own user. A client of
//     another account is refused before anything it sent is read. The
//     connection's four-tuple cannot be taken over by another socket while
//     the bridge's end is open, so the answer cannot be swapped under it.
//   - Squatters(port) lists the sockets, not this user's, listening where a
//     connection to 127.0.0.1:port or [::1]:port would land (127.0.0.1,
//     ::1, 0.0.0.0, :: and IPv4-mapped forms), each with its address and
//     owner: "[::1]:8787 (uid 65534)". The bridge calls it for every port
//     of its scan list when it binds, after its own Listen (so it also
//     catches another user's socket sharing the port on the other loopback
//     address, or through SO_REUSEADDR on Windows), and again every
//     bridge.SquatCheckEvery while it serves. ListenerOwner(port) answers
//     the same question with one owner, for doctor.
//   - HoldsPort(pid, port) proves that process pid holds every socket that
//     would receive a connection to 127.0.0.1:port, so the CLI sends the
//     control-plane key to the bridge named in the session file and not to
//     a squatter that took the port after it.
//
// How, per system:
//   - Linux (and Android): the kernel's socket diagnostics (netlink
//     sock_diag: an exact lookup by four-tuple, a dump of listeners only)
//     give each socket's addresses, state, owner uid and inode, in
//     microseconds; where netlink is not available, /proc/net/tcp and
//     /proc/net/tcp6 give the same, at a few milliseconds a read. The peer
//     of a connection is the entry whose local end is our remote end and
//     whose remote end is our local end, compared with os.Getuid(). HoldsPort
//     looks for the listener's inode among the /proc/<pid>/fd links
//     "socket:[inode]", which for another user's process needs root or
//     CAP_SYS_PTRACE (else an error). All are supported.
//   - Windows: GetExtendedTcpTable (iphlpapi.dll, TCP_TABLE_OWNER_PID_ALL,
//     IPv4 and IPv6) gives each socket's owning pid; the user is that
//     process token's SID (OpenProcess with
//     PROCESS_QUERY_LIMITED_INFORMATION, OpenProcessToken, GetTokenUser),
//     compared with this process's token user by EqualSid. HoldsPort
//     compares the listener's owning pid directly. All are supported.
//   - macOS, FreeBSD and every other system: ErrUnsupported from all of
//     them; a Listen listener then lets every connection through, saying
//     so once.
//
// Parsing is kept apart from the OS reads (procnet.go, wintable.go) so it
// is tested on fixtures on every platform, and fuzzed
// (FuzzParseProcNetTCP). A /proc or Windows table is read whole afresh on
// each call, bounded by maxTableBytes.
//
// Fail closed. Every function returns an error when it cannot prove its
// answer: no matching entry, a table that does not parse, a table or fd
// list over its bound, a peer socket already closed (TIME_WAIT or
// orphaned: the kernel no longer says whose it was, and prints uid 0 for
// it), a process that cannot be opened. Callers must treat any error from
// SameUser as a refusal and any error from HoldsPort as "not held". Mine is
// true only when proven.
//
// What it does not cover (residual risk):
//   - Another process of the same user is indistinguishable from the
//     bridge's own clients (T11): same uid, same SID.
//   - The owner is the socket's creator (Linux) or the process the table
//     names (Windows). A socket created by this user and handed to, or
//     inherited by, another user's process still counts as ours; that needs
//     this user's cooperation.
//   - Root (or an administrator) can do anything: impersonate the user,
//     read the session file, ptrace the bridge. When the bridge itself runs
//     as root, only root's own live sockets pass.
//   - macOS, FreeBSD and other systems: their net.inet.tcp.pcblist sysctl
//     carries the owner, but its records (struct xinpcb, xtcpcb, xsocket)
//     change layout between releases and cannot be parsed reliably without
//     cgo. The caller skips the checks there with one warning; another
//     user can then dial the port (the credentials of T5 still stand) and
//     squat it, undetected.
//   - Where /proc/net is hidden (a sandbox, Android's SELinux policy) every
//     call fails, and fail-closed callers refuse every client.
//   - Network namespaces: the tables are those of the namespace the bridge
//     runs in, which is the only one whose loopback reaches it. In a user
//     namespace an unmapped owner shows as the overflow uid (65534): not
//     ours.
//   - On Windows a process whose token this user may not read (a service,
//     an elevated process, System) cannot be proven ours: SameUser refuses
//     it and ListenerOwner reports it with Mine false and no SID.
//   - A pid is a name that can be reused: HoldsPort proves that pid holds
//     the port at the time of the call, nothing about what the pid was
//     when the session file was written.
//   - Squatters and ListenerOwner are snapshots: a squatter may bind a
//     port a moment after they answer. On the port the bridge holds, the
//     bind then fails for 127.0.0.1 but not for [::1]; on the others
//     nothing stops it. The bridge's periodic look finds it within a
//     period and reports it; it cannot take the port back.
package peercred

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// maxTableBytes bounds one read of a kernel TCP table (/proc/net/tcp,
// /proc/net/tcp6, or the buffer GetExtendedTcpTable fills), and what the
// parsers accept. At about 150 bytes a line that is some 100,000 sockets.
// A larger table is refused rather than truncated: a truncated table could
// hide the very entry that matters.
const maxTableBytes = 16 << 20

// ErrUnsupported is returned by every function on platforms where the
// owner of a socket cannot be found (macOS, FreeBSD and all but Linux and
// Windows). The caller may skip the check there, once, with a warning.
var ErrUnsupported = errors.New("peercred: finding the owner of a socket is not supported on this platform")

// ErrNoOwners is Squatters on a system whose socket table names no owning
// process for a listener (Windows' table says pid 0, which no listener has:
// Wine's does, for every socket). Another user's listener then cannot be
// told from the caller's own, so nothing is found; the caller says it
// could not look, as where the check is unsupported.
var ErrNoOwners = errors.New("peercred: the system's socket table names no owner for a listener, so another user's cannot be told from this one's")

// Owner is the owner of a socket, as far as the operating system says.
type Owner struct {
	// UID is the owner's numeric user id on Linux; -1 on Windows.
	UID int
	// SID is the owner's security identifier on Windows, such as
	// "S-1-5-21-...-1001"; "" on Linux, or when it could not be read.
	SID string
	// PID is the owning process on Windows; 0 on Linux, whose table does
	// not name one.
	PID int
	// Mine is true only when the owner is proven to be this process's own
	// user.
	Mine bool
}

// String describes the owner for a message to the person, e.g.
// "uid 65534" or "pid 4812 (S-1-5-21-1-2-3-1001)".
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

// OtherUserError is SameUser's answer when the peer is proven to belong to
// another user. Any other error means the owner could not be found.
type OtherUserError struct {
	Owner Owner
}

func (e *OtherUserError) Error() string {
	return "peercred: peer belongs to another user (" + e.Owner.String() + ")"
}

// SameUser returns nil only if the remote end of c, an accepted loopback
// TCP connection, is a socket owned by this process's user. It returns an
// *OtherUserError when the peer is proven to be someone else's, and another
// error when the owner cannot be found; either way the caller refuses the
// connection. c may wrap a TCP connection (TLS): only its addresses are
// used.
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

// ListenerOwner reports who holds a TCP socket listening on port at an
// address that receives connections to 127.0.0.1 or [::1] (127.0.0.1, ::1,
// 0.0.0.0, :: and their IPv4-mapped forms). found is false, with a nil
// error, when there is none. When several sockets listen there (both
// loopback addresses, SO_REUSEPORT), one not proven ours is reported in
// preference, so Mine is true only if every one of them is ours.
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

// HoldsPort reports whether process pid holds every TCP socket listening
// on port at an address that receives connections to 127.0.0.1 (127.0.0.1,
// 0.0.0.0, :: and their IPv4-mapped forms). It is false, with a nil error,
// when nothing listens there or when some listener is not pid's. It is an
// error when that cannot be told: on Linux, pid's /proc/<pid>/fd is
// unreadable (no such process, or another user's without root) or a
// listener has no inode. A caller treats an error as "not held".
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

// tcpAddrPort turns a connection's address into the form the tables are
// compared in: IPv4-mapped IPv6 unmapped, no zone.
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

// canon unmaps an IPv4-mapped address and drops any zone, so that an IPv4
// client seen by a dual-stack socket compares equal to its own entry.
func canon(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())
}

// receives127 reports whether a socket listening at address a gets
// connections made to 127.0.0.1: 127.0.0.1 itself, 0.0.0.0 or [::]
// (IsUnspecified). [::] counts even though an IPV6_V6ONLY socket would
// not: the tables do not say, and counting it can only make HoldsPort
// stricter.
func receives127(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	return a == netip.AddrFrom4([4]byte{127, 0, 0, 1}) || a.IsUnspecified()
}

// receivesLoopback reports whether a socket listening at address a gets
// connections made to 127.0.0.1 or to [::1].
func receivesLoopback(a netip.Addr) bool {
	return receives127(a) || a.WithZone("") == netip.IPv6Loopback()
}

// entry is one socket of a kernel table: /proc/net/tcp or sock_diag on
// Linux, GetExtendedTcpTable on Windows. Addresses are kept as the table
// gives them: an IPv4-mapped address stays IPv4-mapped (compare through
// canon).
type entry struct {
	Local, Remote netip.AddrPort
	// State is in the table's own numbering (linux*, win*).
	State uint32
	// ID is the owner. On Linux it is the uid of the socket's creator, as
	// seen from our user namespace (the kernel prints 0 for TIME_WAIT
	// sockets); on Windows the owning pid (0: none).
	ID uint32
	// Inode is the socket's inode on Linux, 0 once no process holds it
	// (orphaned, TIME_WAIT); 0 on Windows.
	Inode uint64
}

var (
	errNoPeer        = errors.New("peercred: no open socket is the other end of this connection (not local, or already closed)")
	errAmbiguousPeer = errors.New("peercred: the other end of this connection matches sockets of different owners")
)

// peerID finds the owner of the other end of a connection whose own ends
// are local and remote (canonical form): the entry whose local end is
// remote and whose remote end is local, among those live says can be the
// live client end of a connection (procLive, winLive).
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
