package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

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
	if len(m) != 1 || json.Unmarshal(m.join(), &got) != nil || got.ID != 7 || got.Error.Code != codeInternal {
		t.Fatalf("guarded(a panic) = %q, want an internal error for id 7", m)
	}
	if strings.Contains(got.Error.Message, "reply was") {
		t.Errorf("the error %q quotes the panic", got.Error.Message)
	}
}
