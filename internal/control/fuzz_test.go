package control

import (
	"bytes"
	"testing"
)

// FuzzDecodeBody: a body is either refused or decodes to a request that
// holds what the handlers rely on.
func FuzzDecodeBody(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		var c CallRequest
		if DecodeBody(b, &c) == nil {
			if c.Command == "" {
				t.Fatalf("DecodeBody(%q) accepted a call without a command", b)
			}
			a := bytes.TrimSpace(c.Args)
			if len(a) > 0 && string(a) != "null" && a[0] != '{' {
				t.Fatalf("DecodeBody(%q) accepted args %q that are not an object", b, a)
			}
		}
		var w WaitRequest
		if DecodeBody(b, &w) == nil && w.Seconds != nil && !(*w.Seconds >= 0) {
			t.Fatalf("DecodeBody(%q) accepted seconds %v", b, *w.Seconds)
		}
	})
}

func TestDecodeBody(t *testing.T) {
	tests := []struct {
		in      string
		wantErr bool
	}{
		{`{"command":"scene.describe","args":{"limit":5}}`, false},
		{`{"command":"scene.describe"}`, false},
		{`{"command":"x","args":null}`, false},
		{`{"command":"x","args":[1]}`, true},
		{`{"command":"x","args":"s"}`, true},
		{`{"args":{}}`, true},
		{`{"command":5}`, true},
		{`nope`, true},
	}
	for _, tt := range tests {
		var c CallRequest
		err := DecodeBody([]byte(tt.in), &c)
		if (err != nil) != tt.wantErr {
			t.Errorf("DecodeBody(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
		}
	}
	var w WaitRequest
	if err := DecodeBody([]byte(`{"seconds":-1}`), &w); err == nil {
		t.Errorf("DecodeBody(seconds -1) = nil, want error")
	}
}
