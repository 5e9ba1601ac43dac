package peercred

// The one listener wrapper: every socket the binary accepts on (the
// bridge's port, the demo's page server) is made by Listen, so no face of
// the binary can serve around the peer check. tailscale's safesocket is
// the shape: one constructor, and what it returns already refuses
// strangers.

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"sync"
)

// checkPeer is SameUser; a test hook.
var checkPeer = SameUser

// Listen listens on addr, a loopback "host:port" for TCP, and returns a
// listener whose Accept hands out only connections whose other end is a
// socket of this process's own user (OwnUserOnly). log hears each refusal.
func Listen(addr string, log *slog.Logger) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return OwnUserOnly(ln, log), nil
}

// OwnUserOnly wraps ln so that Accept returns only connections that
// SameUser proves to come from this process's user (THREAT_MODEL T10,
// T17). A connection of another user's process is closed before a byte of
// it is read; so is one whose owner cannot be found (fail closed). Where
// the OS cannot say at all (ErrUnsupported: macOS, FreeBSD), every
// connection is let through and log hears that once, at the first.
func OwnUserOnly(ln net.Listener, log *slog.Logger) net.Listener {
	return &ownUserOnly{Listener: ln, log: log}
}

type ownUserOnly struct {
	net.Listener
	log  *slog.Logger
	once sync.Once
}

func (l *ownUserOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		err = checkPeer(c)
		if err == nil {
			return c, nil
		}
		if errors.Is(err, ErrUnsupported) {
			l.once.Do(func() {
				l.log.Warn("this system cannot tell which user dialled " + c.LocalAddr().String() + "; connections of other local users are not refused here (THREAT_MODEL T10)")
			})
			return c, nil
		}
		c.Close()
		var other *OtherUserError
		if errors.As(err, &other) {
			l.log.Warn("refused a connection from another local user's process", "owner", other.Owner.String())
		} else {
			l.log.Warn("refused a connection whose owner could not be checked", "err", err.Error())
		}
	}
}

// Squatter is a socket listening where a connection to 127.0.0.1:Port or
// [::1]:Port would land, not proven to be this user's.
type Squatter struct {
	Addr  netip.Addr // 127.0.0.1, ::1, 0.0.0.0 or :: (unmapped, no zone)
	Port  int
	Owner Owner
}

// String names the socket and its owner for a message to the person:
// "[::1]:8788 (uid 65534)".
func (s Squatter) String() string {
	return fmt.Sprintf("%s (%s)", netip.AddrPortFrom(s.Addr, uint16(s.Port)), s.Owner)
}

// Receives127 reports whether the squatter gets connections made to
// 127.0.0.1, the address the tab and the shell verbs dial; one on [::1]
// alone gets those made to localhost where it resolves to ::1.
func (s Squatter) Receives127() bool { return receives127(s.Addr) }

// Squatters lists the sockets listening on port at an address that
// receives connections to 127.0.0.1 or [::1] (127.0.0.1, ::1, 0.0.0.0, ::
// and IPv4-mapped forms) and not proven to be this user's, one per
// address and owner, in the order the system lists them. Called after a
// listener of our own is bound, it is the post-listen check: another
// user's socket sharing the port on the other loopback address, on ::
// beside our 127.0.0.1, or through SO_REUSEADDR on Windows. Empty, with a
// nil error, when every listener there is ours or there is none.
func Squatters(port int) ([]Squatter, error) {
	if err := checkPort(port); err != nil {
		return nil, err
	}
	all, err := listenersOn(uint16(port))
	if err != nil {
		return nil, err
	}
	var out []Squatter
	for _, s := range all {
		if s.Owner.UID < 0 && s.Owner.PID == 0 {
			return nil, ErrNoOwners
		}
		if s.Owner.Mine {
			continue
		}
		s.Addr = s.Addr.Unmap().WithZone("")
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
