package client

import (
	"context"
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
)

// A bridge too frozen to accept: its listen queue is full, so Linux drops
// the client's SYN and the connect hangs. The client gives up after the
// connect timeout, long before the request's own, and says it cannot
// connect (exit 3).
func TestConnectTimeout(t *testing.T) {
	shortConnect(t, testTimeout)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	// A backlog of 0 queues one connection; the test takes that place.
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*syscall.SockaddrInet4).Port
	first, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Close() })

	err = within(t, func() error {
		_, err := New(session.File{Port: port, Key: "k", PID: 4242}).Do(context.Background(), Request{Method: "GET", Path: "/status", Timeout: guardTimeout})
		return err
	})
	var ce *Error
	want := "cannot connect to the bridge on port " + strconv.Itoa(port) + ": it did not accept the connection within 0.1 s (pid 4242 may be frozen)"
	if !errors.As(err, &ce) || ce.Exit != exitcode.NoBridge || ce.Msg != want {
		t.Fatalf("Do to a full listen queue = %v, want exit 3 and %q", err, want)
	}
}
