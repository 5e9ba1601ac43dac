//go:build !linux && !windows

package peercred

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// Where the owner of a socket cannot be found, every function says so
// with ErrUnsupported, never with a default answer.
func TestUnsupported(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ln := l.(*net.TCPListener)
	client, err := net.DialTimeout("tcp", ln.Addr().String(), 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if err := ln.SetDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	if err := SameUser(server); !errors.Is(err, ErrUnsupported) {
		t.Errorf("SameUser(accepted) = %v, want ErrUnsupported", err)
	}
	if o, found, err := ListenerOwner(port); !errors.Is(err, ErrUnsupported) || found || o.Mine {
		t.Errorf("ListenerOwner(%d) = %+v, %v, %v; want ErrUnsupported", port, o, found, err)
	}
	if held, err := HoldsPort(os.Getpid(), port); !errors.Is(err, ErrUnsupported) || held {
		t.Errorf("HoldsPort(self, %d) = %v, %v; want false, ErrUnsupported", port, held, err)
	}
}
