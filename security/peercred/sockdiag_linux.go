package peercred

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// The kernel's socket diagnostics (netlink NETLINK_SOCK_DIAG, as ss uses):
// an exact lookup by four-tuple and a dump of listeners only, where
// /proc/net/tcp would walk the whole connection table (docs/performance.md).
// It is the one way: where it is unavailable every lookup fails, so every
// connection is refused (noDiagError).

// Layout of struct inet_diag_req_v2 and struct inet_diag_msg
// (linux/inet_diag.h), in the kernel's native byte order except the
// ports and addresses, which are big-endian.
const (
	nlmsgHdrLen   = 16
	diagReqLen    = 56
	diagMsgLen    = 72
	diagSockIDOff = 4 // of the id in both structs
	tcpfAll       = 0xFFFFFFFF
	tcpfListen    = 1 << linuxListen
	// diagMaxReply bounds one read of the dump; a dump larger than
	// maxTableBytes in all is refused.
	diagMaxReply = 1 << 16
)

// openDiag is a test hook.
var openDiag = func() (int, error) {
	return unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
}

// noDiagError is a system where no socket's owner can be looked up: WSL1, or
// a sandbox that denies netlink sockets.
type noDiagError struct{ err error }

func (e *noDiagError) Error() string {
	return "peercred: this system does not let the bridge read the kernel's socket table (netlink sock_diag: " + e.err.Error() +
		"), so no connection's owner can be checked and every one is refused"
}

func (e *noDiagError) Unwrap() error { return e.err }

// diagPeer looks up the other end of our connection, as a table of at most
// one entry.
func diagPeer(local, remote netip.AddrPort) ([]entry, error) {
	req := diagRequest(remote, local, tcpfAll)
	msgs, err := diagRoundTrip(req, false)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	return msgs, err
}

// diagListeners returns every listening TCP socket, IPv4 and IPv6.
func diagListeners() ([]entry, error) {
	var all []entry
	for _, a := range []netip.Addr{netip.IPv4Unspecified(), netip.IPv6Unspecified()} {
		anyPort := netip.AddrPortFrom(a, 0)
		msgs, err := diagRoundTrip(diagRequest(anyPort, anyPort, tcpfListen), true)
		if err != nil {
			return nil, err
		}
		all = append(all, msgs...)
	}
	return all, nil
}

// diagRequest builds an inet_diag_req_v2 for TCP sockets in states whose
// own end is src and other end is dst.
func diagRequest(src, dst netip.AddrPort, states uint32) []byte {
	b := make([]byte, diagReqLen)
	b[0] = unix.AF_INET6
	if src.Addr().Is4() {
		b[0] = unix.AF_INET
	}
	b[1] = unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(b[4:], states)
	id := b[8:]
	binary.BigEndian.PutUint16(id[0:], src.Port())
	binary.BigEndian.PutUint16(id[2:], dst.Port())
	// 4 bytes for IPv4, 16 for IPv6, each at the start of its 16.
	copy(id[4:], src.Addr().AsSlice())
	copy(id[20:], dst.Addr().AsSlice())
	// idiag_if 0 (any), idiag_cookie INET_DIAG_NOCOOKIE.
	binary.NativeEndian.PutUint32(id[40:], 0xFFFFFFFF)
	binary.NativeEndian.PutUint32(id[44:], 0xFFFFFFFF)
	return b
}

// diagRoundTrip sends one request and parses the inet_diag_msg replies.
func diagRoundTrip(req []byte, dump bool) ([]entry, error) {
	fd, err := openDiag()
	if err != nil {
		return nil, &noDiagError{err}
	}
	defer unix.Close(fd)
	tv := unix.Timeval{Sec: 2}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	flags := uint16(unix.NLM_F_REQUEST)
	if dump {
		flags |= unix.NLM_F_DUMP
	}
	msg := make([]byte, nlmsgHdrLen, nlmsgHdrLen+len(req))
	binary.NativeEndian.PutUint32(msg[0:], uint32(nlmsgHdrLen+len(req)))
	binary.NativeEndian.PutUint16(msg[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(msg[6:], flags)
	binary.NativeEndian.PutUint32(msg[8:], 1) // sequence
	msg = append(msg, req...)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("peercred: sock_diag request: %w", err)
	}
	var out []entry
	buf := make([]byte, diagMaxReply)
	total := 0
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, fmt.Errorf("peercred: sock_diag reply: %w", err)
		}
		if total += n; total > maxTableBytes {
			return nil, fmt.Errorf("peercred: sock_diag reply over %d bytes; refusing to half-read it", maxTableBytes)
		}
		done, err := parseDiag(buf[:n], &out)
		if err != nil || done || !dump {
			return out, err
		}
	}
}

// parseDiag appends the sockets in one netlink datagram to out. done is
// true at NLMSG_DONE; a NLMSG_ERROR becomes its errno.
func parseDiag(b []byte, out *[]entry) (done bool, err error) {
	for len(b) >= nlmsgHdrLen {
		l := int(binary.NativeEndian.Uint32(b[0:]))
		typ := binary.NativeEndian.Uint16(b[4:])
		if l < nlmsgHdrLen || l > len(b) {
			return false, errors.New("peercred: malformed sock_diag reply")
		}
		body := b[nlmsgHdrLen:l]
		switch typ {
		case unix.NLMSG_DONE:
			return true, nil
		case unix.NLMSG_ERROR:
			if len(body) < 4 {
				return false, errors.New("peercred: malformed sock_diag error")
			}
			if errno := -int32(binary.NativeEndian.Uint32(body)); errno != 0 {
				return false, unix.Errno(errno)
			}
			return true, nil
		case unix.SOCK_DIAG_BY_FAMILY:
			if len(body) < diagMsgLen {
				return false, errors.New("peercred: short sock_diag message")
			}
			*out = append(*out, diagEntry(body))
		}
		b = b[(l+3)&^3:]
	}
	return false, nil
}

// diagEntry decodes one inet_diag_msg, its addresses by its own family
// (idiag_family), not the one asked for: an AF_INET request finds an
// IPv6 socket's IPv4-mapped connection (a dual-stack client dialling
// 127.0.0.1), described as AF_INET6. Another family gives no address,
// which matches nothing; callers compare through canon, which unmaps.
func diagEntry(m []byte) entry {
	id := m[diagSockIDOff:]
	addr := func(a []byte) netip.Addr {
		switch m[0] {
		case unix.AF_INET:
			return netip.AddrFrom4([4]byte(a[:4]))
		case unix.AF_INET6:
			return netip.AddrFrom16([16]byte(a[:16]))
		}
		return netip.Addr{}
	}
	return entry{
		Local:  netip.AddrPortFrom(addr(id[4:]), binary.BigEndian.Uint16(id[0:])),
		Remote: netip.AddrPortFrom(addr(id[20:]), binary.BigEndian.Uint16(id[2:])),
		State:  uint32(m[1]),
		ID:     binary.NativeEndian.Uint32(m[64:]),
		Inode:  uint64(binary.NativeEndian.Uint32(m[68:])),
	}
}
