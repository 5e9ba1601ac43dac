package peercred

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Test hooks, swapped in t.Cleanup: where procfs is, who "we" are, and the
// kernel's socket tables (sockdiag_linux.go).
var (
	procRoot    = "/proc"
	getuid      = os.Getuid
	peerTable   = diagPeer
	listenTable = diagListeners
)

const (
	// maxFDs bounds the entries HoldsPort reads from /proc/<pid>/fd; a
	// process with more open files is refused rather than half-read.
	maxFDs = 1 << 20
	// fdBatch is how many /proc/<pid>/fd entries are read at a time.
	fdBatch = 1024
)

func sameUser(local, remote netip.AddrPort) error {
	entries, err := peerTable(local, remote)
	if err != nil {
		return err
	}
	uid, err := peerID(entries, local, remote, live)
	if err != nil {
		return err
	}
	if uid != uint32(getuid()) {
		return &OtherUserError{Owner: Owner{UID: int(uid)}}
	}
	return nil
}

func listenersOn(port uint16) ([]Squatter, error) {
	entries, err := listenTable()
	if err != nil {
		return nil, err
	}
	me := uint32(getuid())
	var out []Squatter
	for _, l := range listenersAt(entries, linuxListen, port, receivesLoopback) {
		out = append(out, Squatter{Addr: l.Local.Addr(), Port: int(port), Owner: Owner{UID: int(l.ID), Mine: l.ID == me}})
	}
	return out, nil
}

func holdsPort(pid int, port uint16) (bool, error) {
	entries, err := listenTable()
	if err != nil {
		return false, err
	}
	ls := listenersAt(entries, linuxListen, port, receives127)
	if len(ls) == 0 {
		return false, nil
	}
	held, err := socketInodes(pid)
	if err != nil {
		return false, err
	}
	for _, l := range ls {
		if l.Inode == 0 {
			return false, fmt.Errorf("peercred: a listener on port %d has no inode; cannot tell whose it is", port)
		}
		if !held[l.Inode] {
			return false, nil
		}
	}
	return true, nil
}

// socketInodes returns the inodes of the sockets process pid has open, from
// the links in /proc/<pid>/fd. Reading another user's process needs the
// right to ptrace it (root, or CAP_SYS_PTRACE); without it this fails.
func socketInodes(pid int) (map[uint64]bool, error) {
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("peercred: file descriptors of pid %d: %w", pid, err)
	}
	defer d.Close()
	inodes := map[uint64]bool{}
	seen := 0
	for {
		des, err := d.ReadDir(fdBatch)
		seen += len(des)
		if seen > maxFDs {
			return nil, fmt.Errorf("peercred: pid %d has more than %d open files; refusing to half-read them", pid, maxFDs)
		}
		for _, de := range des {
			target, err := os.Readlink(filepath.Join(dir, de.Name()))
			if err != nil {
				// Closed since the directory was read: not a holder.
				continue
			}
			if ino, ok := parseSocketLink(target); ok {
				inodes[ino] = true
			}
		}
		if errors.Is(err, io.EOF) {
			return inodes, nil
		}
		if err != nil {
			return nil, fmt.Errorf("peercred: file descriptors of pid %d: %w", pid, err)
		}
	}
}

// Linux TCP states (include/net/tcp_states.h), as sock_diag gives them.
const (
	linuxEstablished = 0x01
	linuxSynSent     = 0x02
	linuxFinWait1    = 0x04
	linuxFinWait2    = 0x05
	linuxCloseWait   = 0x08
	linuxLastAck     = 0x09
	linuxListen      = 0x0A
	linuxClosing     = 0x0B
)

// live reports whether e can be the live client end of a connection: in a
// connection state and still held by a process (inode not 0), since a
// socket its process closed is given uid 0, which would pass for root's.
func live(e entry) bool {
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
