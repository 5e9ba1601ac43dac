package peercred

import (
	"errors"
	"reflect"
	"testing"
)

// linuxTimeWait is TCP_TIME_WAIT, a state no live client end is in.
const linuxTimeWait = 0x06

// Sockets as the kernel describes them. 8787 is the bridge's port.
var (
	// 127.0.0.1:8787 listening, uid 1000.
	eListen4 = entry{ap("127.0.0.1:8787"), ap("0.0.0.0:0"), linuxListen, 1000, 45678}
	// The server's accepted end: 127.0.0.1:8787 <- 127.0.0.1:54321.
	eServer4 = entry{ap("127.0.0.1:8787"), ap("127.0.0.1:54321"), linuxEstablished, 1000, 45679}
	// The client's end, uid 65534: 127.0.0.1:54321 -> 127.0.0.1:8787.
	eClient4 = entry{ap("127.0.0.1:54321"), ap("127.0.0.1:8787"), linuxEstablished, 65534, 45680}
	// TIME_WAIT: the kernel gives uid 0 and inode 0.
	eTimeWait4 = entry{ap("127.0.0.1:34977"), ap("127.0.0.1:56706"), linuxTimeWait, 0, 0}
	// 0.0.0.0:8788 listening, uid 65534.
	eAny4 = entry{ap("0.0.0.0:8788"), ap("0.0.0.0:0"), linuxListen, 65534, 45681}
	// [::1]:8789 listening, uid 1000.
	eListen6 = entry{ap("[::1]:8789"), ap("[::]:0"), linuxListen, 1000, 50001}
	// [::]:8790 listening, uid 65534.
	eAny6 = entry{ap("[::]:8790"), ap("[::]:0"), linuxListen, 65534, 50002}
	// An IPv6 socket's IPv4-mapped client end: [::ffff:127.0.0.1]:40001 ->
	// [::ffff:127.0.0.1]:8787, uid 1000.
	eMapped = entry{ap("[::ffff:127.0.0.1]:40001"), ap("[::ffff:127.0.0.1]:8787"), linuxEstablished, 1000, 50003}
)

func TestPeerID(t *testing.T) {
	entries := []entry{eListen4, eServer4, eClient4, eTimeWait4, eAny4,
		// An orphaned client end (its process closed it): inode 0.
		{ap("127.0.0.1:54322"), ap("127.0.0.1:8787"), linuxFinWait2, 0, 0},
		// Two live sockets claiming one 4-tuple, of different owners.
		{ap("127.0.0.1:54323"), ap("127.0.0.1:8787"), linuxEstablished, 1000, 45690},
		{ap("127.0.0.1:54323"), ap("127.0.0.1:8787"), linuxEstablished, 1001, 45691},
		eListen6, eAny6, eMapped}

	tests := []struct {
		name          string
		local, remote string // the bridge's accepted connection
		want          uint32
		wantErr       error
	}{
		{"ipv4 client of another user", "127.0.0.1:8787", "127.0.0.1:54321", 65534, nil},
		{"ipv4-mapped client end", "127.0.0.1:8787", "127.0.0.1:40001", 1000, nil},
		{"our own accepted end seen from the client", "127.0.0.1:54321", "127.0.0.1:8787", 1000, nil},
		{"time-wait prints uid 0: not a peer", "127.0.0.1:56706", "127.0.0.1:34977", 0, errNoPeer},
		{"orphaned end prints uid 0: not a peer", "127.0.0.1:8787", "127.0.0.1:54322", 0, errNoPeer},
		{"listener is not a peer", "0.0.0.0:0", "127.0.0.1:8787", 0, errNoPeer},
		{"no such connection", "127.0.0.1:8787", "127.0.0.1:1", 0, errNoPeer},
		{"ports swapped", "127.0.0.1:54321", "127.0.0.1:8788", 0, errNoPeer},
		{"ambiguous owners", "127.0.0.1:8787", "127.0.0.1:54323", 0, errAmbiguousPeer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := peerID(entries, ap(tt.local), ap(tt.remote), live)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("peerID(%s, %s) = %d, %v; want %d, %v", tt.local, tt.remote, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestListenersAt(t *testing.T) {
	entries := []entry{eListen4, eServer4, eClient4, eAny4,
		// 127.0.0.2:8787 and 192.0.2.1:8787 get no connection made to 127.0.0.1.
		{ap("127.0.0.2:8787"), ap("0.0.0.0:0"), linuxListen, 2000, 45700},
		{ap("192.0.2.1:8787"), ap("0.0.0.0:0"), linuxListen, 2001, 45701},
		eListen6, eAny6, eMapped,
		// [::ffff:127.0.0.1]:8791 listening.
		{ap("[::ffff:127.0.0.1]:8791"), ap("[::]:0"), linuxListen, 3000, 50010}}

	uids := func(es []entry) []uint32 {
		var out []uint32
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	tests := []struct {
		port     uint16
		loopback []uint32 // receivesLoopback
		only127  []uint32 // receives127
	}{
		{8787, []uint32{1000}, []uint32{1000}},
		{8788, []uint32{65534}, []uint32{65534}},
		{8789, []uint32{1000}, nil},
		{8790, []uint32{65534}, []uint32{65534}},
		{8791, []uint32{3000}, []uint32{3000}},
		{54321, nil, nil},
		{9999, nil, nil},
	}
	for _, tt := range tests {
		if got := uids(listenersAt(entries, linuxListen, tt.port, receivesLoopback)); !reflect.DeepEqual(got, tt.loopback) {
			t.Errorf("listenersAt(%d, receivesLoopback) uids = %v, want %v", tt.port, got, tt.loopback)
		}
		if got := uids(listenersAt(entries, linuxListen, tt.port, receives127)); !reflect.DeepEqual(got, tt.only127) {
			t.Errorf("listenersAt(%d, receives127) uids = %v, want %v", tt.port, got, tt.only127)
		}
	}
}

func TestParseSocketLink(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"socket:[45678]", 45678, true},
		{"socket:[18446744073709551615]", 18446744073709551615, true},
		{"socket:[0]", 0, false},
		{"socket:[]", 0, false},
		{"socket:[-1]", 0, false},
		{"socket:[12", 0, false},
		{"socket:[18446744073709551616]", 0, false},
		{"pipe:[45678]", 0, false},
		{"/dev/null", 0, false},
		{"anon_inode:[eventpoll]", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseSocketLink(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseSocketLink(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
