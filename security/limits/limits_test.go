package limits

import (
	"testing"
	"time"
)

// TestValues checks each bound against the number written in the spec
// (protocol.md §7.4), typed here rather than derived,
// so a slip in the constant cannot test itself green.
func TestValues(t *testing.T) {
	ints := []struct {
		name      string
		got, want int
	}{
		{"PreAuthFrame", PreAuthFrame, 4096},
		{"PageFrame", PageFrame, 67108864},
		{"ControlBody", ControlBody, 25165824},
		{"ControlAnswer", ControlAnswer, 67109888},
		{"MaxUnauthSockets", MaxUnauthSockets, 16},
		{"HTTPMaxHeaderBytes", HTTPMaxHeaderBytes, 16384},
		{"ConfigFile", ConfigFile, 4194304},
	}
	for _, tt := range ints {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	durs := []struct {
		name      string
		got, want time.Duration
	}{
		{"AuthTimeout", AuthTimeout, 10 * time.Second},
	}
	for _, tt := range durs {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestRelations holds the relations the doc comments promise.
func TestRelations(t *testing.T) {
	checks := []struct {
		what string
		ok   bool
	}{
		{"PreAuthFrame < PageFrame", PreAuthFrame < PageFrame},
		{"ControlBody < PageFrame", ControlBody < PageFrame},
		{"ControlAnswer > PageFrame", ControlAnswer > PageFrame},
		{"ControlBody >= 14 MB as base64", ControlBody >= (14<<20)*4/3+1024},
		{"HTTPReadHeaderTimeout > 0", HTTPReadHeaderTimeout > 0},
		{"HandshakeTimeout > 0", HandshakeTimeout > 0},
		{"WriteWait > 0", WriteWait > 0},
		{"HTTPIdleTimeout > 0", HTTPIdleTimeout > 0},
		{"MaxUnauthSockets > 1", MaxUnauthSockets > 1},
		{"ConfigFile > PreAuthFrame", ConfigFile > PreAuthFrame},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("relation %s does not hold", c.what)
		}
	}
}
