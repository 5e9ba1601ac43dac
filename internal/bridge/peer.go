package bridge

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/stitchslop/stitchslop-bridge/security/peercred"
)

// ownUserOnly accepts only connections whose other end belongs to the
// bridge's own user (THREAT_MODEL T10): a process of another local account
// that dials the port, with or without a secret it learned, is closed
// before a byte of it is read, on the page side and the control plane
// alike. A lookup that fails closes the connection too (fail closed).
// Where the OS cannot say (macOS, FreeBSD: peercred.ErrUnsupported), every
// connection is let through and that is logged once at start.
type ownUserOnly struct {
	net.Listener
	log *slog.Logger
	// sameUser is peercred.SameUser; a test hook.
	sameUser func(net.Conn) error
	once     sync.Once
}

func (l *ownUserOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		err = l.sameUser(c)
		if err == nil {
			return c, nil
		}
		if errors.Is(err, peercred.ErrUnsupported) {
			l.once.Do(func() {
				l.log.Warn("this system cannot tell which user dialled the bridge; connections of other local users are not refused here (THREAT_MODEL T10)")
			})
			return c, nil
		}
		c.Close()
		var other *peercred.OtherUserError
		if errors.As(err, &other) {
			l.log.Warn("refused a connection from another local user's process", "owner", other.Owner.String())
		} else {
			l.log.Warn("refused a connection whose owner could not be checked", "err", err.Error())
		}
	}
}

// squatted reports a port of the scan list held by another user's
// listener: the tab dials the ports in order and would hand its secret to
// the first that answers, so the bridge must not start behind it.
func squatted(port int) error {
	owner, found, err := peercred.ListenerOwner(port)
	if err != nil || !found || owner.Mine {
		return nil // nothing there, ours, or no way to tell
	}
	return fmt.Errorf("port %d on 127.0.0.1 is held by a listener of another user (%s): the Stitch Slop tab dials %d first and would send its secret there", port, owner, port)
}
