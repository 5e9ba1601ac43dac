package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
)

// testTimeout is how long the tests here let the client take to give up;
// guard fails a test whose client is still waiting long after that.
const testTimeout = 100 * time.Millisecond

// guardTimeout is far longer than any timeout the tests set: a call still
// running then has not given up at all.
const guardTimeout = 20 * time.Second

// shortConnect swaps in a short connect timeout for one test.
func shortConnect(t *testing.T, d time.Duration) {
	t.Helper()
	old := connectTimeout
	connectTimeout = d
	t.Cleanup(func() { connectTimeout = old })
}

// frozenBridge starts a server that takes requests and answers none, or,
// with headers true, sends its headers and the start of a body and then
// nothing more. Its handlers return once the client hangs up or the test
// ends.
func frozenBridge(t *testing.T, headers bool) session.File {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices the client hang up
		if headers {
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, `{"ok":true,"dataUrl":"data:image/png;base64,AAAA`)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: handlers return, then Close
	return session.File{Port: serverPort(t, srv), Key: "k", PID: os.Getpid()}
}

func serverPort(t *testing.T, srv *httptest.Server) int {
	t.Helper()
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(p)
	return port
}

// within runs f and fails the test if it has not returned by guardTimeout.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(guardTimeout):
		t.Fatalf("the client was still waiting after %v; want it to give up after %v", guardTimeout, testTimeout)
		return nil
	}
}

func wantNoAnswer(t *testing.T, what string, err error, port int) {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("%s = %v, want an *Error", what, err)
	}
	want := "the bridge on port " + strconv.Itoa(port) + " (pid " + strconv.Itoa(os.Getpid()) + ") did not answer within 0.1 s"
	if ce.Exit != exitcode.Failed || ce.Code != "no_answer" || ce.Msg != want {
		t.Errorf("%s = exit %d, code %q, %q; want exit 1, code no_answer, %q", what, ce.Exit, ce.Code, ce.Msg, want)
	}
}

func TestDoGivesUpOnFrozenBridge(t *testing.T) {
	for _, headers := range []bool{false, true} {
		t.Run("headers="+strconv.FormatBool(headers), func(t *testing.T) {
			s := frozenBridge(t, headers)
			err := within(t, func() error {
				_, err := New(s).Do(context.Background(), Request{Method: "GET", Path: "/status", Timeout: testTimeout})
				return err
			})
			wantNoAnswer(t, "Do", err, s.Port)
		})
	}
}

func TestDoGivesUpOnFrozenBody(t *testing.T) {
	s := frozenBridge(t, true)
	err := within(t, func() error {
		_, err := New(s).Do(context.Background(), Request{Method: "POST", Path: "/call", Body: map[string]any{}, Timeout: testTimeout})
		return err
	})
	wantNoAnswer(t, "Do with a 200 answer whose body stops", err, s.Port)
}

func TestRefusedIsStale(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now
	_, err = New(session.File{Port: port, Key: "k", PID: 4242}).Do(context.Background(), Request{Method: "GET", Path: "/status", Timeout: guardTimeout})
	var ce *Error
	if !errors.As(err, &ce) || ce.Exit != exitcode.NoBridge || ce.Code != "stale_session" {
		t.Fatalf("Do to a closed port = %v, want exit 3, stale_session", err)
	}
}

func TestNoTimeoutIsRefused(t *testing.T) {
	_, err := New(session.File{Port: 1, Key: "k", PID: 1}).Do(context.Background(), Request{Method: "GET", Path: "/status"})
	if err == nil || !strings.Contains(err.Error(), "no timeout") {
		t.Fatalf("Do without a Timeout = %v, want an error naming the missing timeout", err)
	}
}

func TestOpenAnswers(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		exit    int
		code    string
		msgPart string
	}{
		{"401", http.StatusUnauthorized, `{"ok":false}`, exitcode.NoBridge, "stale_session", "refused the key"},
		{"refusal envelope", http.StatusBadRequest, `{"ok":false,"error":"bad_request","message":"\"args\" must be a JSON object"}`,
			exitcode.Failed, "bad_request", `the bridge answered 400 Bad Request: "args" must be a JSON object`},
		{"odd code not taken", http.StatusBadRequest, `{"ok":false,"error":"Bad\u001b[31m","message":"no"}`,
			exitcode.Failed, "http_400", `the bridge answered 400 Bad Request: no`},
		{"control bytes quoted", http.StatusInternalServerError, "boom\x1b[31m",
			exitcode.Failed, "http_500", `the bridge answered 500 Internal Server Error: "boom\x1b[31m"`},
		{"long body cut", http.StatusBadGateway, strings.Repeat("x", 10000),
			exitcode.Failed, "http_502", strings.Repeat("x", maxErrorText) + "..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			_, err := New(session.File{Port: serverPort(t, srv), Key: "k", PID: os.Getpid()}).Do(context.Background(), Request{Method: "GET", Path: "/tools", Timeout: guardTimeout})
			var ce *Error
			if !errors.As(err, &ce) || ce.Exit != tt.exit || ce.Code != tt.code || !strings.Contains(ce.Msg, tt.msgPart) {
				t.Fatalf("Do with a %d answer = %#v, want exit %d, code %s, message with %q", tt.status, err, tt.exit, tt.code, tt.msgPart)
			}
			if strings.Contains(ce.Msg, "\x1b") {
				t.Errorf("Do message %q holds a raw escape byte", ce.Msg)
			}
		})
	}
}

// The request carries the key in the header the spec names, and a 200
// body comes back unchanged.
func TestDoReturnsTheBody(t *testing.T) {
	want := strings.Repeat("0123456789", 100000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-stitchslop-key") != "the-key" || r.Header.Get("Origin") != "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, want)
	}))
	defer srv.Close()
	got, err := New(session.File{Port: serverPort(t, srv), Key: "the-key", PID: os.Getpid()}).Do(context.Background(), Request{Method: "GET", Path: "/status", Timeout: guardTimeout})
	if err != nil || string(got) != want {
		t.Fatalf("Do body = %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
}

// The key goes only to the process the session file names: a listener on
// its port that is not that pid gets nothing, and the file is stale (exit 3).
func TestKeyOnlyToTheNamedBridge(t *testing.T) {
	sent := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent <- r.Header.Get("x-stitchslop-key")
	}))
	defer srv.Close()
	_, err := New(session.File{Port: serverPort(t, srv), Key: "the-key", PID: os.Getppid()}).Do(context.Background(), Request{Method: "GET", Path: "/status", Timeout: guardTimeout})
	var ce *Error
	if !errors.As(err, &ce) || ce.Exit != exitcode.NoBridge || ce.Code != "stale_session" || !strings.Contains(ce.Msg, "not sent") {
		t.Fatalf("a listener that is not the named pid: %v, want exit 3 stale_session saying the key was not sent", err)
	}
	select {
	case k := <-sent:
		t.Fatalf("the listener received the key %q", k)
	default:
	}
}

// Where the system cannot say which process holds the port (no sock_diag,
// say), the key is not sent either, and the error gives the cause instead
// of calling the session file stale.
func TestKeyNotSentWhenHolderUnknown(t *testing.T) {
	cause := errors.New("peercred: the socket table cannot be read")
	old := holdsPort
	holdsPort = func(int, int) (bool, error) { return false, cause }
	t.Cleanup(func() { holdsPort = old })
	sent := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent <- r.Header.Get("x-stitchslop-key")
	}))
	defer srv.Close()
	_, err := New(session.File{Port: serverPort(t, srv), Key: "the-key", PID: os.Getpid()}).Do(context.Background(), Request{Method: "GET", Path: "/status", Timeout: guardTimeout})
	var ce *Error
	if !errors.As(err, &ce) || ce.Exit != exitcode.NoBridge || !strings.Contains(ce.Msg, "key was not sent") ||
		!strings.Contains(ce.Msg, cause.Error()) || strings.Contains(ce.Msg, "stale") {
		t.Fatalf("an unknown holder: %v, want exit 3 saying the key was not sent and why", err)
	}
	select {
	case k := <-sent:
		t.Fatalf("the listener received the key %q", k)
	default:
	}
}

// shortAnswer swaps in a small answer bound for one test.
func shortAnswer(t *testing.T, n int64) {
	t.Helper()
	old := maxAnswer
	maxAnswer = n
	t.Cleanup(func() { maxAnswer = old })
}

// A 200 answer is read up to the bound and no further, whether the
// server says its length first or streams it: one byte over is an error
// with its own code.
func TestAnswerBounded(t *testing.T) {
	const bound = 1000
	shortAnswer(t, bound)
	for _, tt := range []struct {
		name     string
		size     int
		chunked  bool
		wantFail bool
	}{
		{"at the bound", bound, false, false},
		{"at the bound, streamed", bound, true, false},
		{"one byte over", bound + 1, false, true},
		{"one byte over, streamed", bound + 1, true, true},
		{"far over, streamed", 100 * bound, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b := strings.Repeat("x", tt.size)
				if !tt.chunked {
					w.Header().Set("Content-Length", strconv.Itoa(len(b)))
				} else {
					w.(http.Flusher).Flush() // headers out first: no length
				}
				io.WriteString(w, b)
			}))
			defer srv.Close()
			c := New(session.File{Port: serverPort(t, srv), Key: "k", PID: os.Getpid()})
			got, err := c.Do(context.Background(), Request{Method: "GET", Path: "/status", Timeout: guardTimeout})
			var ce *Error
			switch {
			case !tt.wantFail && (err != nil || len(got) != tt.size):
				t.Fatalf("Do of a %d-byte answer = %d bytes, %v; want it whole", tt.size, len(got), err)
			case tt.wantFail && (!errors.As(err, &ce) || ce.Code != "too_large" || ce.Exit != exitcode.Failed):
				t.Fatalf("Do of a %d-byte answer with a bound of %d = %d bytes, %v; want a too_large error", tt.size, bound, len(got), err)
			}
		})
	}
}

// What holds the port may answer anything: refusal shows its text quoted
// once, by the one rule, whenever it holds a character that would not
// show as itself, and as it is otherwise.
func TestRefusalText(t *testing.T) {
	for _, tc := range []struct {
		body, code, text string
	}{
		{`{"error":"origin_not_allowed","message":"no origin here"}`, "origin_not_allowed", "no origin here"},
		{`{"error":"Bad Code","message":"x"}`, "http_403", "x"},
		{"plain body", "http_403", "plain body"},
		{"\x1b[2Jwiped", "http_403", `"\x1b[2Jwiped"`},
		{`{"message":"fill\u3164er"}`, "http_403", `"fill\u3164er"`},
		{`{"message":"pua\ue000 vs\ufe0f"}`, "http_403", `"pua\ue000 vs\ufe0f"`},
		// Through the door: a name given twice is read neither way.
		{`{"error":"forbidden","error":"unauthorized","message":"a","message":"b"}`, "http_403", `{"error":"forbidden","error":"unauthorized","message":"a","message":"b"}`},
		{`{"error":7,"message":"typed wrong"}`, "http_403", "typed wrong"},
	} {
		code, text := refusal([]byte(tc.body), 403)
		if code != tc.code || text != tc.text {
			t.Errorf("refusal(%q) = %q, %q; want %q, %q", tc.body, code, text, tc.code, tc.text)
		}
	}
}
