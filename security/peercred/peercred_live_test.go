//go:build linux || windows

package peercred

import (
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

// liveTimeout bounds every wait on a real socket or helper process.
const liveTimeout = 20 * time.Second

// pair returns both ends of a fresh connection to a listener on addr.
func pair(t *testing.T, addr string) (ln *net.TCPListener, client, server net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	ln = l.(*net.TCPListener)
	client, err = net.DialTimeout("tcp", ln.Addr().String(), liveTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server = accept(t, ln)
	return ln, client, server
}

func accept(t *testing.T, ln *net.TCPListener) net.Conn {
	t.Helper()
	if err := ln.SetDeadline(time.Now().Add(liveTimeout)); err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSameUserLive(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(addr, func(t *testing.T) {
			_, client, server := pair(t, addr)
			if err := SameUser(server); err != nil {
				t.Errorf("SameUser(accepted from %s) = %v, want nil", client.LocalAddr(), err)
			}
			// The other way round: the client's peer is our accepted end.
			if err := SameUser(client); err != nil {
				t.Errorf("SameUser(dialled to %s) = %v, want nil", client.RemoteAddr(), err)
			}
			// On Linux, once the client end is closed no process holds it
			// (inode 0, or a TIME_WAIT entry printed as uid 0): refused.
			if runtime.GOOS == "linux" {
				client.Close()
				if err := SameUser(server); err == nil {
					t.Errorf("SameUser(accepted, client closed) = nil, want an error")
				}
			}
		})
	}
}

func TestListenerOwnerLive(t *testing.T) {
	ln, _, _ := pair(t, "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	o, found, err := ListenerOwner(port)
	if err != nil || !found || !o.Mine {
		t.Fatalf("ListenerOwner(%d) = %+v, %v, %v; want ours, found, nil", port, o, found, err)
	}
	if want := os.Getuid(); want >= 0 && o.UID != want {
		t.Errorf("ListenerOwner(%d).UID = %d, want %d", port, o.UID, want)
	}
	ln.Close()
	if o, found, err := ListenerOwner(port); err != nil || found {
		t.Errorf("ListenerOwner(%d) after Close = %+v, %v, %v; want not found", port, o, found, err)
	}
}

func TestHoldsPortLive(t *testing.T) {
	ln, _, _ := pair(t, "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	if held, err := HoldsPort(os.Getpid(), port); err != nil || !held {
		t.Errorf("HoldsPort(self, %d) = %v, %v; want true, nil", port, held, err)
	}
	// Our parent (go test, or a shell) holds nothing. It is usually the
	// same user; when it is not, its descriptors may be unreadable, and
	// the error is the right answer too.
	if held, err := HoldsPort(os.Getppid(), port); held {
		t.Errorf("HoldsPort(parent, %d) = true, %v; want false", port, err)
	} else if err != nil {
		t.Logf("HoldsPort(parent, %d): %v", port, err)
	}
	ln.Close()
	if held, err := HoldsPort(os.Getpid(), port); err != nil || held {
		t.Errorf("HoldsPort(self, %d) after Close = %v, %v; want false, nil", port, held, err)
	}
}
