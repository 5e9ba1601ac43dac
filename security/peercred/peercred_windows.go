package peercred

import (
	"errors"
	"fmt"
	"net/netip"
	"unsafe"

	"golang.org/x/sys/windows"
)

// golang.org/x/sys/windows has no wrapper for GetExtendedTcpTable.
var procGetExtendedTcpTable = windows.NewLazySystemDLL("iphlpapi.dll").NewProc("GetExtendedTcpTable")

const (
	afInet  = 2  // AF_INET
	afInet6 = 23 // AF_INET6
	// tcpTableOwnerPIDAll is TCP_TABLE_OWNER_PID_ALL.
	tcpTableOwnerPIDAll = 5
	// tableAttempts bounds the size-and-retry loop: the table may grow
	// between the call that says how big it is and the one that fills it.
	tableAttempts = 4
	// tableSlack is added to the size Windows asks for, for the same reason.
	tableSlack = 64 * tcp6RowSize
	// stillActive is STILL_ACTIVE, the exit code of a running process.
	stillActive = 259
)

func sameUser(local, remote netip.AddrPort) error {
	rows, err := readWinTables()
	if err != nil {
		return err
	}
	pid, err := peerID(rows, local, remote, winLive)
	if err != nil {
		return err
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return fmt.Errorf("peercred: opening peer process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	// The open handle keeps pid from being reused. Check that the process
	// is alive and that the connection is still its: if the peer exited
	// between the table read and OpenProcess, pid may name a newcomer.
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil || code != stillActive {
		return fmt.Errorf("peercred: peer process %d has exited", pid)
	}
	if rows, err = readWinTables(); err != nil {
		return err
	}
	if again, err := peerID(rows, local, remote, winLive); err != nil || again != pid {
		return errors.New("peercred: the other end of this connection changed hands while being checked")
	}
	sid, err := processUser(h)
	if err != nil {
		return fmt.Errorf("peercred: owner of peer process %d: %w", pid, err)
	}
	me, err := currentUser()
	if err != nil {
		return err
	}
	if !windows.EqualSid(sid, me) {
		return &OtherUserError{Owner: Owner{UID: -1, SID: sid.String(), PID: int(pid)}}
	}
	return nil
}

func listenersOn(port uint16) ([]Squatter, error) {
	rows, err := readWinTables()
	if err != nil {
		return nil, err
	}
	ls := listenersAt(rows, winListen, port, receivesLoopback)
	if len(ls) == 0 {
		return nil, nil
	}
	me, err := currentUser()
	if err != nil {
		return nil, err
	}
	owners := map[uint32]Owner{}
	var out []Squatter
	for _, l := range ls {
		o, ok := owners[l.ID]
		if !ok {
			o = ownerOf(l.ID, me)
			owners[l.ID] = o
		}
		out = append(out, Squatter{Addr: l.Local.Addr(), Port: int(port), Owner: o})
	}
	return out, nil
}

// ownerOf names the user of process pid. A process whose token cannot be
// read (a service, an elevated process, pid 0 or 4) is reported with no
// SID and Mine false: it is not proven ours.
func ownerOf(pid uint32, me *windows.SID) Owner {
	o := Owner{UID: -1, PID: int(pid)}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return o
	}
	defer windows.CloseHandle(h)
	sid, err := processUser(h)
	if err != nil {
		return o
	}
	o.SID = sid.String()
	o.Mine = windows.EqualSid(sid, me)
	return o
}

func holdsPort(pid int, port uint16) (bool, error) {
	rows, err := readWinTables()
	if err != nil {
		return false, err
	}
	ls := listenersAt(rows, winListen, port, receives127)
	if len(ls) == 0 {
		return false, nil
	}
	for _, l := range ls {
		if int64(l.ID) != int64(pid) {
			return false, nil
		}
	}
	return true, nil
}

// processUser returns the user SID of the token of the process behind h.
func processUser(h windows.Handle) (*windows.SID, error) {
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return nil, err
	}
	defer tok.Close()
	tu, err := tok.GetTokenUser()
	if err != nil {
		return nil, err
	}
	return tu.User.Sid, nil
}

// currentUser returns the user SID of this process's token (not of an
// impersonating thread).
func currentUser() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("peercred: this process's user: %w", err)
	}
	return tu.User.Sid, nil
}

// readWinTables reads the IPv4 and IPv6 TCP tables with owning pids.
func readWinTables() ([]entry, error) {
	if err := procGetExtendedTcpTable.Find(); err != nil {
		return nil, fmt.Errorf("peercred: %w", err)
	}
	var all []entry
	for _, t := range []struct {
		af    uint32
		parse func([]byte) ([]entry, error)
	}{{afInet, parseTCPTable}, {afInet6, parseTCP6Table}} {
		buf, err := extendedTCPTable(t.af)
		if err != nil {
			return nil, err
		}
		rows, err := t.parse(buf)
		if err != nil {
			return nil, err
		}
		all = append(all, rows...)
	}
	return all, nil
}

// extendedTCPTable calls GetExtendedTcpTable for family af, growing the
// buffer to the size Windows asks for, at most tableAttempts times and
// never beyond maxTableBytes.
func extendedTCPTable(af uint32) ([]byte, error) {
	size := uint32(tableHeaderSize + 64*tcp6RowSize)
	for range tableAttempts {
		// A []byte of this size is 8-byte aligned, enough for the DWORDs.
		buf := make([]byte, size)
		n := size
		r, _, _ := procGetExtendedTcpTable.Call(
			uintptr(unsafe.Pointer(&buf[0])),
			uintptr(unsafe.Pointer(&n)),
			0, // unsorted
			uintptr(af),
			tcpTableOwnerPIDAll,
			0,
		)
		switch windows.Errno(r) {
		case 0:
			return buf, nil
		case windows.ERROR_INSUFFICIENT_BUFFER:
			if n <= size {
				return nil, errors.New("peercred: GetExtendedTcpTable wants more room but asks for none")
			}
			if uint64(n)+tableSlack > maxTableBytes {
				return nil, fmt.Errorf("peercred: TCP table of %d bytes is over the %d-byte bound", n, maxTableBytes)
			}
			size = n + tableSlack
		default:
			return nil, fmt.Errorf("peercred: GetExtendedTcpTable: %w", windows.Errno(r))
		}
	}
	return nil, errors.New("peercred: TCP table kept growing while being read")
}
