package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/fuzzseed"
)

// canonicalBase64 accepts exactly what base64.StdEncoding writes: what
// decodes strictly and encodes back to the same bytes.
func FuzzCanonicalBase64(f *testing.F) {
	for _, s := range []string{"", "QQ==", "QR==", "QUI=", "QUJ=", "QUJD", "QUJD\n", "QU\nJD", "QUJD\"}", `QUJ\"`, "QUJD====", "=QUJ", "-_-_"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		dec, err := base64.StdEncoding.Strict().DecodeString(string(p))
		want := len(p) > 0 && err == nil && base64.StdEncoding.EncodeToString(dec) == string(p)
		if got := canonicalBase64(p); got != want {
			t.Fatalf("canonicalBase64(%q) = %v, want %v", p, got, want)
		}
	})
}

func TestFuzzCanonicalBase64Seeds(t *testing.T) { fuzzseed.Require(t, "FuzzCanonicalBase64") }

// A panic while an answer is built from a reply is an internal error for
// that request, not the end of the bridge.
func TestGuardedAnswersAPanicWithAnError(t *testing.T) {
	s := newTestServer().NewSession(context.Background(), newCapture())
	m := s.guarded([]byte("7"), func() Message { panic("the reply was " + `"}` + "\n") })
	var got struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if len(m) != 1 || json.Unmarshal(m[0], &got) != nil || got.ID != 7 || got.Error.Code != codeInternal {
		t.Fatalf("guarded(a panic) = %q, want an internal error for id 7", m)
	}
	if strings.Contains(got.Error.Message, "reply was") {
		t.Errorf("the error %q quotes the panic", got.Error.Message)
	}
}
