package peercred

// Parsing Linux's /proc/net/tcp{,6}, with no OS calls, so it is tested and
// fuzzed on every platform.

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

// procFields is the fewest whitespace-separated fields a socket line has:
// sl, local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when,
// retrnsmt, uid, timeout, inode (more follow; they are ignored).
const procFields = 10

// parseProcNetTCP parses /proc/net/tcp or /proc/net/tcp6, whose address
// words are hex in the writing host's byte order (order). Any malformed
// line fails the whole parse: a table half understood proves nothing.
func parseProcNetTCP(data []byte, order binary.ByteOrder) ([]entry, error) {
	if len(data) > maxTableBytes {
		return nil, fmt.Errorf("peercred: socket table larger than %d bytes", maxTableBytes)
	}
	var entries []entry
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

func parseProcLine(line string, order binary.ByteOrder) (entry, error) {
	f := strings.Fields(line)
	if len(f) < procFields {
		return entry{}, fmt.Errorf("%d fields, want at least %d", len(f), procFields)
	}
	slot, ok := strings.CutSuffix(f[0], ":")
	if _, err := strconv.ParseUint(slot, 10, 64); !ok || err != nil {
		return entry{}, errors.New("malformed slot number")
	}
	var e entry
	var err error
	if e.Local, err = parseProcAddr(f[1], order); err != nil {
		return entry{}, fmt.Errorf("local address: %w", err)
	}
	if e.Remote, err = parseProcAddr(f[2], order); err != nil {
		return entry{}, fmt.Errorf("remote address: %w", err)
	}
	if e.Local.Addr().Is4() != e.Remote.Addr().Is4() {
		return entry{}, errors.New("local and remote addresses of different families")
	}
	st, err := hex.DecodeString(f[3])
	if err != nil || len(st) != 1 {
		return entry{}, errors.New("malformed state")
	}
	e.State = uint32(st[0])
	// Base 10: digits only, no sign, no underscores.
	uid, err := strconv.ParseUint(f[7], 10, 32)
	if err != nil {
		return entry{}, errors.New("malformed uid")
	}
	e.ID = uint32(uid)
	if e.Inode, err = strconv.ParseUint(f[9], 10, 64); err != nil {
		return entry{}, errors.New("malformed inode")
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
	// Base 16: hex digits only, no sign, prefix or underscore.
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, errors.New("port is not hex")
	}
	// Each group of 8 digits is a 32-bit value; its bytes in memory, in
	// host order, are the address bytes in network order.
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		order.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(b) // 4 or 16 bytes: IPv4 or IPv6
	return netip.AddrPortFrom(addr, uint16(port)), nil
}

// procLive reports whether e can be the live client end of a connection:
// in a connection state and still held by a process (inode not 0), since
// a socket its process closed is printed with uid 0, which would pass for
// root's.
func procLive(e entry) bool {
	switch e.State {
	case linuxEstablished, linuxSynSent, linuxFinWait1, linuxFinWait2,
		linuxCloseWait, linuxLastAck, linuxClosing:
		return e.Inode != 0
	}
	return false
}

// parseSocketLink parses the target of a /proc/<pid>/fd/N link to a
// socket, "socket:[12345]", into its inode.
func parseSocketLink(target string) (uint64, bool) {
	s, ok := strings.CutPrefix(target, "socket:[")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "]")
	ino, err := strconv.ParseUint(s, 10, 64)
	if !ok || err != nil || ino == 0 {
		return 0, false
	}
	return ino, true
}
