//go:build linux || windows

package peercred

import (
	"net/netip"
	"testing"
)

func TestReceives(t *testing.T) {
	tests := []struct {
		addr              string
		loopback, only127 bool
	}{
		{"127.0.0.1", true, true},
		{"0.0.0.0", true, true},
		{"::", true, true},
		{"::ffff:127.0.0.1", true, true},
		{"::ffff:0.0.0.0", true, true},
		{"::1", true, false},
		{"127.0.0.2", false, false},
		{"192.0.2.1", false, false},
		{"fe80::1", false, false},
		{"2001:db8::1", false, false},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := receivesLoopback(a); got != tt.loopback {
			t.Errorf("receivesLoopback(%s) = %v, want %v", tt.addr, got, tt.loopback)
		}
		if got := receives127(a); got != tt.only127 {
			t.Errorf("receives127(%s) = %v, want %v", tt.addr, got, tt.only127)
		}
	}
}
