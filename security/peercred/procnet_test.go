package peercred

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

// Fixtures in the kernel's own layout (net/ipv4/tcp_ipv4.c, net/ipv6/
// tcp_ipv6.c), as a little-endian host prints them. 0x2253 is port 8787.
const (
	tcpHeader  = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     "
	tcp6Header = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"

	// 127.0.0.1:8787 listening, uid 1000.
	lineListen4 = "   0: 0100007F:2253 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 45678 1 0000000000000000 100 0 0 10 0                      "
	// The server's accepted end: 127.0.0.1:8787 <- 127.0.0.1:54321.
	lineServer4 = "   1: 0100007F:2253 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 45679 1 0000000000000000 20 4 30 10 -1"
	// The client's end, uid 65534: 127.0.0.1:54321 -> 127.0.0.1:8787.
	lineClient4 = "   2: 0100007F:D431 0100007F:2253 01 00000000:00000000 00:00000000 00000000 65534        0 45680 1 0000000000000000 20 4 30 10 -1"
	// TIME_WAIT: the kernel prints uid 0, inode 0 and fewer fields.
	lineTimeWait4 = "   3: 0100007F:88A1 0100007F:DD82 06 00000000:00000000 03:00001341 00000000     0        0 0 3 00000000cdcd39b2"
	// 0.0.0.0:8788 listening, uid 65534.
	lineAny4 = "   4: 00000000:2254 00000000:0000 0A 00000000:00000000 00:00000000 00000000 65534        0 45681 1 0000000000000000 100 0 0 10 0"

	// [::1]:8789 listening, uid 1000.
	lineListen6 = "   0: 00000000000000000000000001000000:2255 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 50001 1 0000000000000000 100 0 0 10 0"
	// [::]:8790 listening, uid 65534.
	lineAny6 = "   1: 00000000000000000000000000000000:2256 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 65534        0 50002 1 0000000000000000 100 0 0 10 0"
	// An IPv6 socket's IPv4-mapped client end: [::ffff:127.0.0.1]:40001 ->
	// [::ffff:127.0.0.1]:8787, uid 1000.
	lineMapped = "   2: 0000000000000000FFFF00000100007F:9C41 0000000000000000FFFF00000100007F:2253 01 00000000:00000000 00:00000000 00000000  1000        0 50003 1 0000000000000000 20 4 30 10 -1"
	// [2001:db8::1]:443 <- [2001:db8::2]:50000, established, uid 33.
	lineDoc6 = "   3: B80D0120000000000000000001000000:01BB B80D0120000000000000000002000000:C350 01 00000000:00000000 00:00000000 00000000    33        0 50004 1 0000000000000000 20 4 30 10 -1"
)

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

func TestParseProcNetTCP(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []entry
	}{
		{"header only", tcpHeader + "\n", nil},
		{"ipv4 listener", tcpHeader + "\n" + lineListen4 + "\n", []entry{
			{Local: ap("127.0.0.1:8787"), Remote: ap("0.0.0.0:0"), State: linuxListen, ID: 1000, Inode: 45678},
		}},
		{"ipv4 several, blank lines, no final newline", tcpHeader + "\n\n" + lineServer4 + "\n" + lineClient4 + "\n  \n" + lineTimeWait4, []entry{
			{Local: ap("127.0.0.1:8787"), Remote: ap("127.0.0.1:54321"), State: linuxEstablished, ID: 1000, Inode: 45679},
			{Local: ap("127.0.0.1:54321"), Remote: ap("127.0.0.1:8787"), State: linuxEstablished, ID: 65534, Inode: 45680},
			{Local: ap("127.0.0.1:34977"), Remote: ap("127.0.0.1:56706"), State: linuxTimeWait, ID: 0, Inode: 0},
		}},
		{"ipv6 loopback and any", tcp6Header + "\n" + lineListen6 + "\n" + lineAny6 + "\n", []entry{
			{Local: ap("[::1]:8789"), Remote: ap("[::]:0"), State: linuxListen, ID: 1000, Inode: 50001},
			{Local: ap("[::]:8790"), Remote: ap("[::]:0"), State: linuxListen, ID: 65534, Inode: 50002},
		}},
		{"ipv4-mapped stays mapped", tcp6Header + "\n" + lineMapped + "\n", []entry{
			{Local: ap("[::ffff:127.0.0.1]:40001"), Remote: ap("[::ffff:127.0.0.1]:8787"), State: linuxEstablished, ID: 1000, Inode: 50003},
		}},
		{"ipv6 global", tcp6Header + "\n" + lineDoc6 + "\n", []entry{
			{Local: ap("[2001:db8::1]:443"), Remote: ap("[2001:db8::2]:50000"), State: linuxEstablished, ID: 33, Inode: 50004},
		}},
		{"lowercase hex and CRLF", tcpHeader + "\r\n" + strings.ToLower(lineListen4) + "\r\n", []entry{
			{Local: ap("127.0.0.1:8787"), Remote: ap("0.0.0.0:0"), State: linuxListen, ID: 1000, Inode: 45678},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcNetTCP([]byte(tt.text), binary.LittleEndian)
			if err != nil {
				t.Fatalf("parseProcNetTCP(%q) error: %v", tt.text, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseProcNetTCP(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// A big-endian host (s390x) prints each word's value in its own order, so
// 127.0.0.1 reads 7F000001.
func TestParseProcNetTCPBigEndian(t *testing.T) {
	text := tcpHeader + "\n   0: 7F000001:2253 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 45678 1\n" +
		"   1: 00000000000000000000000000000001:2253 00000000000000000000FFFF7F000001:C000 01 00000000:00000000 00:00000000 00000000  1000        0 45679 1\n"
	got, err := parseProcNetTCP([]byte(text), binary.BigEndian)
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{Local: ap("127.0.0.1:8787"), Remote: ap("0.0.0.0:0"), State: linuxListen, ID: 1000, Inode: 45678},
		{Local: ap("[::1]:8787"), Remote: ap("[::ffff:127.0.0.1]:49152"), State: linuxEstablished, ID: 1000, Inode: 45679},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseProcNetTCP(big-endian) = %v, want %v", got, want)
	}
}

func TestParseProcNetTCPMalformed(t *testing.T) {
	good := "   0: 0100007F:2253 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 45678 1"
	tests := []struct {
		name, text string
	}{
		{"empty", ""},
		{"blank", " \n\n"},
		{"no header", good + "\n"},
		{"too few fields", tcpHeader + "\n   0: 0100007F:2253 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0\n"},
		{"slot without colon", tcpHeader + "\n" + strings.Replace(good, "0:", "0", 1)},
		{"slot not a number", tcpHeader + "\n" + strings.Replace(good, "0:", "x:", 1)},
		{"address not hex", tcpHeader + "\n" + strings.Replace(good, "0100007F", "0100007G", 1)},
		{"address too short", tcpHeader + "\n" + strings.Replace(good, "0100007F", "100007F", 1)},
		{"address 16 bytes too short", tcpHeader + "\n" + strings.Replace(good, "0100007F:2253 00000000:0000", "0000000000000000000000000100000:2253 00000000000000000000000000000000:0000", 1)},
		{"families differ", tcpHeader + "\n" + strings.Replace(good, "00000000:0000", "00000000000000000000000000000000:0000", 1)},
		{"no port", tcpHeader + "\n" + strings.Replace(good, "0100007F:2253", "0100007F", 1)},
		{"port too long", tcpHeader + "\n" + strings.Replace(good, ":2253", ":12253", 1)},
		{"port not hex", tcpHeader + "\n" + strings.Replace(good, ":2253", ":22G3", 1)},
		{"state too long", tcpHeader + "\n" + strings.Replace(good, " 0A ", " 00A ", 1)},
		{"state not hex", tcpHeader + "\n" + strings.Replace(good, " 0A ", " 0Z ", 1)},
		{"negative uid", tcpHeader + "\n" + strings.Replace(good, " 1000 ", " -1 ", 1)},
		{"signed uid", tcpHeader + "\n" + strings.Replace(good, " 1000 ", " +1000 ", 1)},
		{"uid over 32 bits", tcpHeader + "\n" + strings.Replace(good, " 1000 ", " 4294967296 ", 1)},
		{"inode not a number", tcpHeader + "\n" + strings.Replace(good, " 45678 ", " 0x45678 ", 1)},
		{"inode over 64 bits", tcpHeader + "\n" + strings.Replace(good, " 45678 ", " 18446744073709551616 ", 1)},
		{"one bad line among good", tcpHeader + "\n" + good + "\n" + good[:40] + "\n" + good + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcNetTCP([]byte(tt.text), binary.LittleEndian)
			if err == nil {
				t.Errorf("parseProcNetTCP(%q) = %v, nil; want an error", tt.text, got)
			}
			if got != nil {
				t.Errorf("parseProcNetTCP(%q) returned %d entries with its error, want none", tt.text, len(got))
			}
		})
	}
}

func TestParseTablesBounded(t *testing.T) {
	big := []byte(tcpHeader + "\n" + strings.Repeat(" ", maxTableBytes))
	if got, err := parseProcNetTCP(big, binary.LittleEndian); err == nil {
		t.Errorf("parseProcNetTCP(%d bytes) = %d entries, nil; want an error over %d bytes", len(big), len(got), maxTableBytes)
	}
}

func TestProcPeerUID(t *testing.T) {
	tcp := tcpHeader + "\n" + lineListen4 + "\n" + lineServer4 + "\n" + lineClient4 + "\n" + lineTimeWait4 + "\n" + lineAny4 + "\n" +
		// An orphaned client end (its process closed it): inode 0.
		"   5: 0100007F:D432 0100007F:2253 05 00000000:00000000 00:00000000 00000000     0        0 0 1\n" +
		// Two live sockets claiming one 4-tuple, of different owners.
		"   6: 0100007F:D433 0100007F:2253 01 00000000:00000000 00:00000000 00000000  1000        0 45690 1\n" +
		"   7: 0100007F:D433 0100007F:2253 01 00000000:00000000 00:00000000 00000000  1001        0 45691 1\n"
	tcp6 := tcp6Header + "\n" + lineListen6 + "\n" + lineAny6 + "\n" + lineMapped + "\n"
	entries := mustParse(t, tcp)
	entries = append(entries, mustParse(t, tcp6)...)

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
			got, err := peerID(entries, ap(tt.local), ap(tt.remote), procLive)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("peerID(%s, %s) = %d, %v; want %d, %v", tt.local, tt.remote, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestProcListeners(t *testing.T) {
	tcp := tcpHeader + "\n" + lineListen4 + "\n" + lineServer4 + "\n" + lineClient4 + "\n" + lineAny4 + "\n" +
		// 127.0.0.2:8787 and 192.0.2.1:8787 get no connection made to 127.0.0.1.
		"   5: 0200007F:2253 00000000:0000 0A 00000000:00000000 00:00000000 00000000  2000        0 45700 1\n" +
		"   6: 010200C0:2253 00000000:0000 0A 00000000:00000000 00:00000000 00000000  2001        0 45701 1\n"
	tcp6 := tcp6Header + "\n" + lineListen6 + "\n" + lineAny6 + "\n" + lineMapped + "\n" +
		// [::ffff:127.0.0.1]:8791 listening.
		"   3: 0000000000000000FFFF00000100007F:2257 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  3000        0 50010 1\n"
	entries := append(mustParse(t, tcp), mustParse(t, tcp6)...)

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

func mustParse(t *testing.T, text string) []entry {
	t.Helper()
	es, err := parseProcNetTCP([]byte(text), binary.LittleEndian)
	if err != nil {
		t.Fatalf("parseProcNetTCP(fixture): %v", err)
	}
	return es
}
