package origin

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestGuard(t *testing.T) {
	reached := false
	g := Guard{Port: 8787, Next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true })}
	for _, tt := range []struct {
		host    string
		reached bool
	}{
		{"127.0.0.1:8787", true}, {"localhost:8787", true}, {"[::1]:8787", true},
		{"evil.test:8787", false}, {"127.0.0.1:8788", false}, {"", false},
	} {
		reached = false
		r := httptest.NewRequest("OPTIONS", "/anything", nil)
		r.Host = tt.host
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		if reached != tt.reached || (!tt.reached && w.Code != http.StatusForbidden) {
			t.Errorf("Guard(Host %q): reached %v, status %d; want reached %v", tt.host, reached, w.Code, tt.reached)
		}
		// Written from the spec, not from the constants above.
		for k, v := range map[string]string{
			"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
			"X-Content-Type-Options":  "nosniff",
			"Cache-Control":           "no-store",
			"Referrer-Policy":         "no-referrer",
		} {
			if got := w.Header().Get(k); got != v {
				t.Errorf("Guard(Host %q): %s = %q, want %q", tt.host, k, got, v)
			}
		}
	}
}

// A Literal guard sends a request that names the server by another
// loopback name to 127.0.0.1, and still refuses any other host.
func TestGuardLiteral(t *testing.T) {
	g := Guard{Port: 8787, Literal: true, Next: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })}
	for _, tt := range []struct {
		host     string
		status   int
		location string
	}{
		{"127.0.0.1:8787", http.StatusNoContent, ""},
		{"localhost:8787", http.StatusTemporaryRedirect, "http://127.0.0.1:8787/a/b"},
		{"[::1]:8787", http.StatusTemporaryRedirect, "http://127.0.0.1:8787/a/b"},
		{"evil.test:8787", http.StatusForbidden, ""},
		{"127.1:8787", http.StatusForbidden, ""},
	} {
		r := httptest.NewRequest("GET", "/a/b", nil)
		r.Host = tt.host
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		if w.Code != tt.status || w.Header().Get("Location") != tt.location {
			t.Errorf("Literal Guard(Host %q) = %d Location %q, want %d Location %q", tt.host, w.Code, w.Header().Get("Location"), tt.status, tt.location)
		}
	}
}
