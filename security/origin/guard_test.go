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
