package peercred

import (
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// acceptOne dials ln n times and returns what one Accept hands out, with
// the client ends in the order they were dialled.
func acceptOne(t *testing.T, ln net.Listener, n int) (net.Conn, []net.Conn) {
	t.Helper()
	var clients []net.Conn
	for range n {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		clients = append(clients, c)
	}
	ln.(*ownUserOnly).Listener.(*net.TCPListener).SetDeadline(time.Now().Add(20 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, clients
}

// OwnUserOnly closes, unread, every connection checkPeer does not pass,
// whether proven another user's or not checkable, and hands out the next.
func TestOwnUserOnlyRefuses(t *testing.T) {
	for name, refusal := range map[string]error{"another user": &OtherUserError{Owner: Owner{UID: 65534}}, "not checkable": errors.New("peercred: no open socket is the other end")} {
		t.Run(name, func(t *testing.T) {
			var log strings.Builder
			ln, err := Listen("127.0.0.1:0", slog.New(slog.NewTextHandler(&log, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			calls := 0
			old := checkPeer
			checkPeer = func(net.Conn) error {
				if calls++; calls == 1 {
					return refusal
				}
				return nil
			}
			t.Cleanup(func() { checkPeer = old })
			c, clients := acceptOne(t, ln, 2)
			if c.RemoteAddr().String() != clients[1].LocalAddr().String() {
				t.Errorf("Accept() = the connection from %v, want the second (%v)", c.RemoteAddr(), clients[1].LocalAddr())
			}
			clients[0].SetReadDeadline(time.Now().Add(20 * time.Second))
			if _, err := clients[0].Read(make([]byte, 1)); err == nil {
				t.Errorf("the refused connection is still open")
			}
			if !strings.Contains(log.String(), "refused a connection") {
				t.Errorf("log = %q, want the refusal", log.String())
			}
		})
	}
}

// Where the system cannot tell, connections pass and that is said once.
func TestOwnUserOnlyUnsupported(t *testing.T) {
	var log strings.Builder
	ln, err := Listen("127.0.0.1:0", slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	old := checkPeer
	checkPeer = func(net.Conn) error { return ErrUnsupported }
	t.Cleanup(func() { checkPeer = old })
	acceptOne(t, ln, 1)
	acceptOne(t, ln, 1)
	if n := strings.Count(log.String(), "cannot tell which user"); n != 1 {
		t.Errorf("log = %q: %d warnings, want exactly 1", log.String(), n)
	}
}

// TestOnlyListenListens holds the line that Listen is the one way the
// binary listens: no other non-test Go file under cmd/, internal/ or
// security/ calls net.Listen or its relatives, so no socket is served
// around the peer check. (scripts/ holds benchmarks and tools, not the
// binary.)
func TestOnlyListenListens(t *testing.T) {
	root := filepath.Join("..", "..")
	forbidden := regexp.MustCompile(`\bnet\.(Listen|ListenTCP|ListenConfig|FileListener)\b|\.Listen\(ctx|httptest\.`)
	for _, top := range []string{"cmd", "internal", "security"} {
		walk(t, root, filepath.Join(root, top), forbidden)
	}
}

func walk(t *testing.T, root, dir string, forbidden *regexp.Regexp) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "e2e") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			filepath.Dir(path) == filepath.Join(root, "security", "peercred") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := forbidden.Find(b); m != nil {
			t.Errorf("%s calls %s: listen through peercred.Listen instead", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
