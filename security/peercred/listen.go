package peercred

// Every socket the binary accepts on is made by Listen, so no face of the
// binary can serve around the peer check.

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

// Listen listens on addr, a loopback "host:port", through OwnUserOnly; log
// hears each refusal.
func Listen(addr string, log *slog.Logger) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return OwnUserOnly(ln, log), nil
}

// OwnUserOnly wraps ln so that Accept returns only connections SameUser
// passes (THREAT_MODEL T10, T17); others are closed unread. Where the OS
// cannot say (ErrUnsupported), every connection passes and log hears that
// once.
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

// String names the socket and its owner for a message to the person.
func (s Squatter) String() string {
	return fmt.Sprintf("%s (%s)", netip.AddrPortFrom(s.Addr, uint16(s.Port)), s.Owner)
}

// Receives127 reports whether the squatter gets connections made to
// 127.0.0.1, the address the tab and the shell verbs dial; one on [::1]
// alone gets those made to localhost where it resolves to ::1.
func (s Squatter) Receives127() bool { return receives127(s.Addr) }

// Squatters lists the sockets, not proven this user's, listening where a
// connection to 127.0.0.1:port or [::1]:port would land, one per address
// and owner. After our own bind it finds another user's socket sharing the
// port on the other loopback address, or through SO_REUSEADDR on Windows.
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
