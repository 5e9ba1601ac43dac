package control

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
)

// The listener header holds a positive decimal pid and nothing else.
func TestListenerPID(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"4242", 4242, true},
		{"1", 1, true},
		{"2147483647", 2147483647, true},
		{"", 0, false},
		{"0", 0, false},
		{"-5", 0, false},
		{"+5", 0, false},
		{" 5", 0, false},
		{"5x", 0, false},
		{"2147483648", 0, false},
		{"99999999999", 0, false},
	} {
		if got, ok := listenerPID(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("listenerPID(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// A listener's request is kept as a listener's and is not agent use; a
// request with a header that is no pid is an agent's like any other.
func TestListenerIsNotAgentUse(t *testing.T) {
	uses := 0
	s := testServer(func() { uses++ })
	get := func(listener string) {
		r := httptest.NewRequest("GET", "/status", nil)
		r.Host = "127.0.0.1:8787"
		r.Header.Set("x-stitchslop-key", "k")
		if listener != "" {
			r.Header.Set("x-stitchslop-listener", listener)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("GET /status: %d %s", w.Code, w.Body)
		}
	}
	pid := os.Getpid()
	get(strconv.Itoa(pid))
	if uses != 0 || !slices.Equal(s.Hub.Listeners(), []int{pid}) {
		t.Errorf("a listener's request: %d agent uses, listeners %v; want 0 and [%d]", uses, s.Hub.Listeners(), pid)
	}
	get("not a pid")
	if uses == 0 {
		t.Errorf("a request with a listener header that is no pid: no agent use, want it counted")
	}
}

// testServer is a control plane with key k on port 8787, no tab and no
// pairing, that calls activity for every agent request.
func testServer(activity func()) *Server {
	return &Server{Key: "k", Port: 8787, Hub: hub.New(time.Second), Sites: sites.New("https://www.stitchslop.com", ""),
		PairedOrigins: func() []string { return nil }, Attempts: &attempts.Log{}, Log: slog.New(slog.DiscardHandler),
		Activity: activity}
}
