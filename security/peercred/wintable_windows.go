package peercred

// Parsing GetExtendedTcpTable's TCP_TABLE_OWNER_PID_ALL tables, apart from
// the OS calls (peercred_windows.go), so its tests need no real table.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// MIB_TCP_STATE values (tcpmib.h).
const (
	winClosed    = 1
	winListen    = 2
	winSynSent   = 3
	winSynRcvd   = 4
	winEstab     = 5
	winFinWait1  = 6
	winFinWait2  = 7
	winCloseWait = 8
	winClosing   = 9
	winLastAck   = 10
	winTimeWait  = 11
	winDeleteTCB = 12
)

// Layouts (iprtrmib.h, tcpmib.h). Both tables are a DWORD dwNumEntries and
// then the rows; every field is a DWORD or bytes, so there is no padding.
// Windows runs little-endian on every architecture Go supports. Addresses
// are in network order in memory; a port is in network order in the low
// 16 bits of its DWORD (its first two bytes), the upper bits undefined.
const (
	tableHeaderSize = 4
	// MIB_TCPROW_OWNER_PID: dwState, dwLocalAddr, dwLocalPort,
	// dwRemoteAddr, dwRemotePort, dwOwningPid.
	tcpRowSize = 24
	// MIB_TCP6ROW_OWNER_PID: ucLocalAddr[16], dwLocalScopeId, dwLocalPort,
	// ucRemoteAddr[16], dwRemoteScopeId, dwRemotePort, dwState,
	// dwOwningPid.
	tcp6RowSize = 56
)

// parseTCPTable parses a MIB_TCPTABLE_OWNER_PID (AF_INET).
func parseTCPTable(buf []byte) ([]entry, error) {
	return parseWinTable(buf, tcpRowSize, func(r []byte) entry {
		le := binary.LittleEndian
		return entry{
			State:  le.Uint32(r[0:]),
			Local:  netip.AddrPortFrom(netip.AddrFrom4([4]byte(r[4:8])), binary.BigEndian.Uint16(r[8:])),
			Remote: netip.AddrPortFrom(netip.AddrFrom4([4]byte(r[12:16])), binary.BigEndian.Uint16(r[16:])),
			ID:     le.Uint32(r[20:]),
		}
	})
}

// parseTCP6Table parses a MIB_TCP6TABLE_OWNER_PID (AF_INET6). Scope ids
// are ignored: loopback has none.
func parseTCP6Table(buf []byte) ([]entry, error) {
	return parseWinTable(buf, tcp6RowSize, func(r []byte) entry {
		le := binary.LittleEndian
		return entry{
			Local:  netip.AddrPortFrom(netip.AddrFrom16([16]byte(r[0:16])), binary.BigEndian.Uint16(r[20:])),
			Remote: netip.AddrPortFrom(netip.AddrFrom16([16]byte(r[24:40])), binary.BigEndian.Uint16(r[44:])),
			State:  le.Uint32(r[48:]),
			ID:     le.Uint32(r[52:]),
		}
	})
}

func parseWinTable(buf []byte, rowSize int, row func([]byte) entry) ([]entry, error) {
	if len(buf) > maxTableBytes {
		return nil, fmt.Errorf("peercred: TCP table larger than %d bytes", maxTableBytes)
	}
	if len(buf) < tableHeaderSize {
		return nil, errors.New("peercred: TCP table shorter than its header")
	}
	n := uint64(binary.LittleEndian.Uint32(buf))
	if need := tableHeaderSize + n*uint64(rowSize); need > uint64(len(buf)) {
		return nil, fmt.Errorf("peercred: TCP table claims %d rows, its %d bytes hold fewer", n, len(buf))
	}
	rows := make([]entry, 0, n)
	for i := uint64(0); i < n; i++ {
		off := tableHeaderSize + int(i)*rowSize
		rows = append(rows, row(buf[off:off+rowSize]))
	}
	return rows, nil
}

// winLive reports whether e can be the live client end of a connection:
// in a connection state, and with an owning process (TIME_WAIT rows have
// none; pid 0, System Idle, never matches).
func winLive(e entry) bool {
	switch e.State {
	case winSynSent, winEstab, winFinWait1, winFinWait2, winCloseWait, winClosing, winLastAck:
		return e.ID != 0
	}
	return false
}
