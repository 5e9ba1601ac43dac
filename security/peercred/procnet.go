package peercred

// Parsing Linux's /proc/net/tcp and /proc/net/tcp6, and choosing entries
// from them. No OS calls here: the Linux file reads, these functions are
// tested on fixture text (and fuzzed) on every platform.

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Linux TCP states as /proc/net/tcp prints them ("st", two hex digits;
// include/net/tcp_states.h).
const (
	linuxEstablished = 0x01
	linuxSynSent     = 0x02
	linuxSynRecv     = 0x03
	linuxFinWait1    = 0x04
	linuxFinWait2    = 0x05
	linuxTimeWait    = 0x06
	linuxClose       = 0x07
	linuxCloseWait   = 0x08
	linuxLastAck     = 0x09
	linuxListen      = 0x0A
	linuxClosing     = 0x0B
)

// procEntry is one socket line of /proc/net/tcp or /proc/net/tcp6.
// Addresses are kept as printed: an IPv4-mapped address in tcp6 stays
// IPv4-mapped (compare through canon).
type procEntry struct {
	Local, Remote netip.AddrPort
	State         uint8
	// UID is the uid of the socket's creator, as seen from our user
	// namespace. The kernel prints 0 for TIME_WAIT sockets.
	UID uint32
	// Inode is the socket's inode, 0 once no process holds it (orphaned,
	// TIME_WAIT).
	Inode uint64
}

// procFields is the fewest whitespace-separated fields a socket line has:
// sl, local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when,
// retrnsmt, uid, timeout, inode (more follow; they are ignored).
const procFields = 10

// parseProcNetTCP parses the text of /proc/net/tcp or /proc/net/tcp6. The
// kernel prints each 32-bit word of an address as the hex of its value in
// host byte order, which is order (binary.NativeEndian on the host that
// wrote it); ports are plain hex numbers. The first non-blank line must be
// the header; blank lines are skipped; any malformed line fails the whole
// parse, since a table half understood cannot prove anything.
func parseProcNetTCP(data []byte, order binary.ByteOrder) ([]procEntry, error) {
	if len(data) > maxTableBytes {
		return nil, fmt.Errorf("peercred: socket table larger than %d bytes", maxTableBytes)
	}
	var entries []procEntry
	header := false
	for n, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !header {
			if f := strings.Fields(line); f[0] != "sl" {
				return nil, errors.New("peercred: socket table has no header line")
			}
			header = true
			continue
		}
		e, err := parseProcLine(line, order)
		if err != nil {
			// The line number only: the text is not worth echoing.
			return nil, fmt.Errorf("peercred: socket table line %d: %w", n+1, err)
		}
		entries = append(entries, e)
	}
	if !header {
		return nil, errors.New("peercred: socket table is empty")
	}
	return entries, nil
}

func parseProcLine(line string, order binary.ByteOrder) (procEntry, error) {
	f := strings.Fields(line)
	if len(f) < procFields {
		return procEntry{}, fmt.Errorf("%d fields, want at least %d", len(f), procFields)
	}
	slot, ok := strings.CutSuffix(f[0], ":")
	if !ok || !isDecimal(slot) {
		return procEntry{}, errors.New("malformed slot number")
	}
	var e procEntry
	var err error
	if e.Local, err = parseProcAddr(f[1], order); err != nil {
		return procEntry{}, fmt.Errorf("local address: %w", err)
	}
	if e.Remote, err = parseProcAddr(f[2], order); err != nil {
		return procEntry{}, fmt.Errorf("remote address: %w", err)
	}
	if e.Local.Addr().Is4() != e.Remote.Addr().Is4() {
		return procEntry{}, errors.New("local and remote addresses of different families")
	}
	st, err := hex.DecodeString(f[3])
	if err != nil || len(st) != 1 {
		return procEntry{}, errors.New("malformed state")
	}
	e.State = st[0]
	if !isDecimal(f[7]) {
		return procEntry{}, errors.New("malformed uid")
	}
	uid, err := strconv.ParseUint(f[7], 10, 32)
	if err != nil {
		return procEntry{}, errors.New("malformed uid")
	}
	e.UID = uint32(uid)
	if !isDecimal(f[9]) {
		return procEntry{}, errors.New("malformed inode")
	}
	if e.Inode, err = strconv.ParseUint(f[9], 10, 64); err != nil {
		return procEntry{}, errors.New("malformed inode")
	}
	return e, nil
}

// parseProcAddr parses "0100007F:2253" (IPv4, 8 hex digits) or 32 hex
// digits of IPv6, a colon and a 4-hex-digit port.
func parseProcAddr(s string, order binary.ByteOrder) (netip.AddrPort, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok || (len(a) != 8 && len(a) != 32) || len(p) != 4 {
		return netip.AddrPort{}, errors.New("not ADDR:PORT in hex")
	}
	raw, err := hex.DecodeString(a)
	if err != nil {
		return netip.AddrPort{}, errors.New("address is not hex")
	}
	pb, err := hex.DecodeString(p)
	if err != nil {
		return netip.AddrPort{}, errors.New("port is not hex")
	}
	// Each group of 8 digits is a 32-bit value; its bytes in memory, in
	// host order, are the address bytes in network order.
	var b [16]byte
	for i := 0; i < len(raw); i += 4 {
		order.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	port := binary.BigEndian.Uint16(pb)
	if len(raw) == 4 {
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[:4])), port), nil
	}
	return netip.AddrPortFrom(netip.AddrFrom16(b), port), nil
}

func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// procConnState reports whether a socket in state st can be the live
// client end of a connection. Excluded: LISTEN; SYN_RECV and NEW_SYN_RECV,
// which are the server side's request sockets; TIME_WAIT and CLOSE, whose
// entries the kernel prints with uid 0.
func procConnState(st uint8) bool {
	switch st {
	case linuxEstablished, linuxSynSent, linuxFinWait1, linuxFinWait2,
		linuxCloseWait, linuxLastAck, linuxClosing:
		return true
	}
	return false
}

var (
	errNoPeer        = errors.New("peercred: no open socket is the other end of this connection (not local, or already closed)")
	errAmbiguousPeer = errors.New("peercred: the other end of this connection matches sockets of different owners")
)

// procPeerUID finds the other end of a connection whose own ends are
// local and remote (canonical form): the entry whose local end is remote
// and whose remote end is local. It must be in a connection state and
// still held by a process (inode not 0): a FIN_WAIT2 or TIME_WAIT socket
// whose process closed it is printed with uid 0, which would otherwise
// pass for root's.
func procPeerUID(entries []procEntry, local, remote netip.AddrPort) (uint32, error) {
	var uid uint32
	found := false
	for _, e := range entries {
		if !procConnState(e.State) || e.Inode == 0 {
			continue
		}
		if canon(e.Local) != remote || canon(e.Remote) != local {
			continue
		}
		if found && e.UID != uid {
			return 0, errAmbiguousPeer
		}
		uid, found = e.UID, true
	}
	if !found {
		return 0, errNoPeer
	}
	return uid, nil
}

// procListeners returns the LISTEN entries on port whose local address
// receives(addr) accepts.
func procListeners(entries []procEntry, port uint16, receives func(netip.Addr) bool) []procEntry {
	var out []procEntry
	for _, e := range entries {
		if e.State == linuxListen && e.Local.Port() == port && receives(e.Local.Addr()) {
			out = append(out, e)
		}
	}
	return out
}

// parseSocketLink parses the target of a /proc/<pid>/fd/N link to a
// socket, "socket:[12345]", into its inode.
func parseSocketLink(target string) (uint64, bool) {
	s, ok := strings.CutPrefix(target, "socket:[")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "]")
	if !ok || !isDecimal(s) {
		return 0, false
	}
	ino, err := strconv.ParseUint(s, 10, 64)
	if err != nil || ino == 0 {
		return 0, false
	}
	return ino, true
}
