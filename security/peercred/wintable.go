package peercred

// Parsing the tables Windows' GetExtendedTcpTable fills for
// TCP_TABLE_OWNER_PID_ALL, and choosing rows from them. No OS calls here:
// the Windows file makes the call; these functions are tested on byte
// fixtures on every platform.

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

// winRow is one row of either table.
type winRow struct {
	Local, Remote netip.AddrPort
	State         uint32
	PID           uint32
}

// parseTCPTable parses a MIB_TCPTABLE_OWNER_PID (AF_INET).
func parseTCPTable(buf []byte) ([]winRow, error) {
	return parseWinTable(buf, tcpRowSize, func(r []byte) winRow {
		le := binary.LittleEndian
		return winRow{
			State:  le.Uint32(r[0:]),
			Local:  netip.AddrPortFrom(netip.AddrFrom4([4]byte(r[4:8])), binary.BigEndian.Uint16(r[8:])),
			Remote: netip.AddrPortFrom(netip.AddrFrom4([4]byte(r[12:16])), binary.BigEndian.Uint16(r[16:])),
			PID:    le.Uint32(r[20:]),
		}
	})
}

// parseTCP6Table parses a MIB_TCP6TABLE_OWNER_PID (AF_INET6). Scope ids
// are ignored: loopback has none.
func parseTCP6Table(buf []byte) ([]winRow, error) {
	return parseWinTable(buf, tcp6RowSize, func(r []byte) winRow {
		le := binary.LittleEndian
		return winRow{
			Local:  netip.AddrPortFrom(netip.AddrFrom16([16]byte(r[0:16])), binary.BigEndian.Uint16(r[20:])),
			Remote: netip.AddrPortFrom(netip.AddrFrom16([16]byte(r[24:40])), binary.BigEndian.Uint16(r[44:])),
			State:  le.Uint32(r[48:]),
			PID:    le.Uint32(r[52:]),
		}
	})
}

func parseWinTable(buf []byte, rowSize int, row func([]byte) winRow) ([]winRow, error) {
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
	rows := make([]winRow, 0, n)
	for i := uint64(0); i < n; i++ {
		off := tableHeaderSize + int(i)*rowSize
		rows = append(rows, row(buf[off:off+rowSize]))
	}
	return rows, nil
}

// winConnState reports whether a row in state st can be the live client
// end of a connection; TIME_WAIT rows have no owning process.
func winConnState(st uint32) bool {
	switch st {
	case winSynSent, winEstab, winFinWait1, winFinWait2, winCloseWait, winClosing, winLastAck:
		return true
	}
	return false
}

// winPeerPID finds the owning pid of the other end of a connection whose
// own ends are local and remote (canonical form). Pid 0 (System Idle, no
// owner) never matches.
func winPeerPID(rows []winRow, local, remote netip.AddrPort) (uint32, error) {
	var pid uint32
	found := false
	for _, r := range rows {
		if !winConnState(r.State) || r.PID == 0 {
			continue
		}
		if canon(r.Local) != remote || canon(r.Remote) != local {
			continue
		}
		if found && r.PID != pid {
			return 0, errAmbiguousPeer
		}
		pid, found = r.PID, true
	}
	if !found {
		return 0, errNoPeer
	}
	return pid, nil
}

// winListeners returns the LISTEN rows on port whose local address
// receives(addr) accepts.
func winListeners(rows []winRow, port uint16, receives func(netip.Addr) bool) []winRow {
	var out []winRow
	for _, r := range rows {
		if r.State == winListen && r.Local.Port() == port && receives(r.Local.Addr()) {
			out = append(out, r)
		}
	}
	return out
}
