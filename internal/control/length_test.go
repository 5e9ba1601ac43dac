package control

import (
	"net/http/httptest"
	"strconv"
	"testing"
)

// Every answer says its length, so that a client can hold a reply of an
// image in one buffer of that size (internal/client.Do): a call's answer,
// a refusal, a document.
func TestAnswersSayTheirLength(t *testing.T) {
	s := testServer(func() {})
	for _, tt := range []struct{ method, path, key string }{
		{"GET", "/status", "k"},
		{"POST", "/call", "k"}, // no tab: the bridge's own envelope
		{"GET", "/status", "wrong"},
	} {
		r := httptest.NewRequest(tt.method, tt.path, nil)
		r.Host = "127.0.0.1:8787"
		r.Header.Set("x-stitchslop-key", tt.key)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if got, want := w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()); got != want {
			t.Errorf("%s %s (key %s): Content-Length %q, want %s, the body's", tt.method, tt.path, tt.key, got, want)
		}
	}
}
