package peercred

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
)

// Test hooks, swapped in t.Cleanup: where procfs is, the byte order the
// kernel prints address words in, and who "we" are.
var (
	procRoot                     = "/proc"
	useSockDiag                  = true // ask the kernel by netlink first
	hostOrder   binary.ByteOrder = binary.NativeEndian
	getuid                       = os.Getuid
)

const (
	// maxFDs bounds the entries HoldsPort reads from /proc/<pid>/fd; a
	// process with more open files is refused rather than half-read.
	maxFDs = 1 << 20
	// fdBatch is how many /proc/<pid>/fd entries are read at a time.
	fdBatch = 1024
)

func sameUser(local, remote netip.AddrPort) error {
	entries, err := sockets(func() ([]entry, error) { return diagPeer(local, remote) })
	if err != nil {
		return err
	}
	uid, err := peerID(entries, local, remote, procLive)
	if err != nil {
		return err
	}
	if uid != uint32(getuid()) {
		return &OtherUserError{Owner: Owner{UID: int(uid)}}
	}
	return nil
}

func listenersOn(port uint16) ([]Squatter, error) {
	entries, err := sockets(diagListeners)
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
	entries, err := sockets(diagListeners)
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

// sockets asks the kernel by sock_diag (diag) or, where that is not
// available, reads /proc.
func sockets(diag func() ([]entry, error)) ([]entry, error) {
	if useSockDiag {
		if entries, err := diag(); err == nil {
			return entries, nil
		}
	}
	return readProcTables()
}

// readProcTables reads and parses /proc/net/tcp and /proc/net/tcp6, the
// sockets of this process's network namespace. A kernel without IPv6 has
// no tcp6 file and no IPv6 sockets to miss.
func readProcTables() ([]entry, error) {
	var all []entry
	for _, name := range []string{"tcp", "tcp6"} {
		path := filepath.Join(procRoot, "net", name)
		data, err := readCapped(path, maxTableBytes)
		if name == "tcp6" && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		entries, err := parseProcNetTCP(data, hostOrder)
		if err != nil {
			return nil, fmt.Errorf("%w (%s)", err, path)
		}
		all = append(all, entries...)
	}
	return all, nil
}

// readCapped reads a whole file of at most max bytes. procfs reports size
// 0, so the bound is applied to the read itself.
func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("peercred: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("peercred: reading %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("peercred: %s is larger than %d bytes; refusing to half-read it", path, max)
	}
	return data, nil
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
