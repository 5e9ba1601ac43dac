package control

import (
	"testing"
	"time"
)

// POST /wait clamps its seconds to 1..600 and waits 120 s without any
// (protocol.md §7.11).
func TestWaitClamp(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		seconds *float64
		want    time.Duration
	}{
		{nil, 120 * time.Second},
		{f(0), time.Second},
		{f(0.2), time.Second},
		{f(30.5), 30500 * time.Millisecond},
		{f(600), 600 * time.Second},
		{f(86400), 600 * time.Second},
	} {
		if got := (WaitRequest{Seconds: tt.seconds}).duration(); got != tt.want {
			t.Errorf("wait %v: %v, want %v", tt.seconds, got, tt.want)
		}
	}
}
