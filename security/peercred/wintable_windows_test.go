package peercred

import (
	"errors"
	"reflect"
	"testing"
)

// Rows laid out byte by byte from the Windows SDK's tcpmib.h, little-endian
// DWORDs, addresses and ports in network order, a port's upper 16 bits
// filled with junk as Windows allows.

func dword(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

func portDword(p uint16) []byte { return []byte{byte(p >> 8), byte(p), 0xAB, 0xCD} }

func row4(state uint32, local, remote string, pid uint32) []byte {
	l, r := ap(local), ap(remote)
	la, ra := l.Addr().As4(), r.Addr().As4()
	var b []byte
	b = append(b, dword(state)...)
	b = append(b, la[:]...)
	b = append(b, portDword(l.Port())...)
	b = append(b, ra[:]...)
	b = append(b, portDword(r.Port())...)
	b = append(b, dword(pid)...)
	return b
}

func row6(state uint32, local, remote string, pid uint32) []byte {
	l, r := ap(local), ap(remote)
	la, ra := l.Addr().As16(), r.Addr().As16()
	var b []byte
	b = append(b, la[:]...)
	b = append(b, dword(0)...) // scope id
	b = append(b, portDword(l.Port())...)
	b = append(b, ra[:]...)
	b = append(b, dword(0)...)
	b = append(b, portDword(r.Port())...)
	b = append(b, dword(state)...)
	b = append(b, dword(pid)...)
	return b
}

func table(rows ...[]byte) []byte {
	b := dword(uint32(len(rows)))
	for _, r := range rows {
		b = append(b, r...)
	}
	return b
}

func TestParseTCPTable(t *testing.T) {
	buf := table(
		row4(winListen, "127.0.0.1:8787", "0.0.0.0:0", 4100),
		row4(winEstab, "127.0.0.1:8787", "127.0.0.1:54321", 4100),
		row4(winEstab, "127.0.0.1:54321", "127.0.0.1:8787", 5200),
		row4(winTimeWait, "127.0.0.1:50000", "127.0.0.1:8787", 0),
	)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0) // Windows may hand back a larger buffer
	got, err := parseTCPTable(buf)
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{Local: ap("127.0.0.1:8787"), Remote: ap("0.0.0.0:0"), State: winListen, ID: 4100},
		{Local: ap("127.0.0.1:8787"), Remote: ap("127.0.0.1:54321"), State: winEstab, ID: 4100},
		{Local: ap("127.0.0.1:54321"), Remote: ap("127.0.0.1:8787"), State: winEstab, ID: 5200},
		{Local: ap("127.0.0.1:50000"), Remote: ap("127.0.0.1:8787"), State: winTimeWait, ID: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseTCPTable = %v, want %v", got, want)
	}
	// One row spelled out, to pin the layout itself.
	lit := []byte{
		1, 0, 0, 0, // dwNumEntries
		2, 0, 0, 0, // dwState: LISTEN
		127, 0, 0, 1, // dwLocalAddr
		0x22, 0x53, 0, 0, // dwLocalPort 8787
		0, 0, 0, 0, // dwRemoteAddr
		0, 0, 0, 0, // dwRemotePort
		0x10, 0x27, 0, 0, // dwOwningPid 10000
	}
	got, err = parseTCPTable(lit)
	if err != nil || len(got) != 1 || got[0] != (entry{Local: ap("127.0.0.1:8787"), Remote: ap("0.0.0.0:0"), State: winListen, ID: 10000}) {
		t.Errorf("parseTCPTable(literal row) = %v, %v", got, err)
	}
}

func TestParseTCP6Table(t *testing.T) {
	buf := table(
		row6(winListen, "[::1]:8789", "[::]:0", 4100),
		row6(winListen, "[::]:8790", "[::]:0", 6300),
		row6(winEstab, "[::ffff:127.0.0.1]:8787", "[::ffff:127.0.0.1]:40001", 4100),
	)
	got, err := parseTCP6Table(buf)
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{Local: ap("[::1]:8789"), Remote: ap("[::]:0"), State: winListen, ID: 4100},
		{Local: ap("[::]:8790"), Remote: ap("[::]:0"), State: winListen, ID: 6300},
		{Local: ap("[::ffff:127.0.0.1]:8787"), Remote: ap("[::ffff:127.0.0.1]:40001"), State: winEstab, ID: 4100},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseTCP6Table = %v, want %v", got, want)
	}
}

func TestParseWinTableMalformed(t *testing.T) {
	one4 := table(row4(winListen, "127.0.0.1:8787", "0.0.0.0:0", 1))
	one6 := table(row6(winListen, "[::1]:8787", "[::]:0", 1))
	tests := []struct {
		name string
		buf  []byte
		v6   bool
	}{
		{"empty", nil, false},
		{"short header", []byte{1, 0}, false},
		{"row cut short", one4[:len(one4)-1], false},
		{"v6 row cut short", one6[:len(one6)-1], true},
		{"v4 rows read as v6", one4, true},
		{"count beyond buffer", append(dword(2), row4(winListen, "127.0.0.1:8787", "0.0.0.0:0", 1)...), false},
		{"huge count", append(dword(0xFFFFFFFF), make([]byte, 64)...), false},
		{"huge count v6", append(dword(0xFFFFFFFF), make([]byte, 64)...), true},
	}
	for _, tt := range tests {
		parse := parseTCPTable
		if tt.v6 {
			parse = parseTCP6Table
		}
		if got, err := parse(tt.buf); err == nil {
			t.Errorf("%s: parse(% x) = %v, nil; want an error", tt.name, tt.buf, got)
		}
	}
	if got, err := parseTCPTable(dword(0)); err != nil || len(got) != 0 {
		t.Errorf("parseTCPTable(no rows) = %v, %v; want none, nil", got, err)
	}
}

func TestWinPeerPID(t *testing.T) {
	rows4, err := parseTCPTable(table(
		row4(winListen, "127.0.0.1:8787", "0.0.0.0:0", 4100),
		row4(winEstab, "127.0.0.1:8787", "127.0.0.1:54321", 4100),
		row4(winEstab, "127.0.0.1:54321", "127.0.0.1:8787", 5200),
		row4(winTimeWait, "127.0.0.1:50000", "127.0.0.1:8787", 0),
		row4(winFinWait2, "127.0.0.1:50001", "127.0.0.1:8787", 0),
		row4(winEstab, "127.0.0.1:50002", "127.0.0.1:8787", 7000),
		row4(winEstab, "127.0.0.1:50002", "127.0.0.1:8787", 7001),
	))
	if err != nil {
		t.Fatal(err)
	}
	rows6, err := parseTCP6Table(table(
		row6(winEstab, "[::ffff:127.0.0.1]:40001", "[::ffff:127.0.0.1]:8787", 4100),
		row6(winEstab, "[::1]:40002", "[::1]:8789", 8000),
	))
	if err != nil {
		t.Fatal(err)
	}
	rows := append(rows4, rows6...)
	tests := []struct {
		name          string
		local, remote string
		want          uint32
		wantErr       error
	}{
		{"ipv4 client", "127.0.0.1:8787", "127.0.0.1:54321", 5200, nil},
		{"ipv4-mapped client", "127.0.0.1:8787", "127.0.0.1:40001", 4100, nil},
		{"ipv6 client", "[::1]:8789", "[::1]:40002", 8000, nil},
		{"time-wait has no owner", "127.0.0.1:8787", "127.0.0.1:50000", 0, errNoPeer},
		{"pid 0 has no owner", "127.0.0.1:8787", "127.0.0.1:50001", 0, errNoPeer},
		{"unknown", "127.0.0.1:8787", "127.0.0.1:1", 0, errNoPeer},
		{"ambiguous", "127.0.0.1:8787", "127.0.0.1:50002", 0, errAmbiguousPeer},
	}
	for _, tt := range tests {
		got, err := peerID(rows, ap(tt.local), ap(tt.remote), winLive)
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: peerID(%s, %s) = %d, %v; want %d, %v", tt.name, tt.local, tt.remote, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestWinListeners(t *testing.T) {
	rows4, _ := parseTCPTable(table(
		row4(winListen, "127.0.0.1:8787", "0.0.0.0:0", 100),
		row4(winEstab, "127.0.0.1:8787", "127.0.0.1:54321", 100),
		row4(winListen, "0.0.0.0:8788", "0.0.0.0:0", 200),
		row4(winListen, "127.0.0.2:8787", "0.0.0.0:0", 300),
		row4(winListen, "192.0.2.1:8787", "0.0.0.0:0", 301),
	))
	rows6, _ := parseTCP6Table(table(
		row6(winListen, "[::1]:8789", "[::]:0", 400),
		row6(winListen, "[::]:8788", "[::]:0", 200),
	))
	rows := append(rows4, rows6...)
	pids := func(rs []entry) []uint32 {
		var out []uint32
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		port              uint16
		loopback, only127 []uint32
	}{
		{8787, []uint32{100}, []uint32{100}},
		{8788, []uint32{200, 200}, []uint32{200, 200}},
		{8789, []uint32{400}, nil},
		{9999, nil, nil},
	}
	for _, tt := range tests {
		if got := pids(listenersAt(rows, winListen, tt.port, receivesLoopback)); !reflect.DeepEqual(got, tt.loopback) {
			t.Errorf("listenersAt(%d, receivesLoopback) pids = %v, want %v", tt.port, got, tt.loopback)
		}
		if got := pids(listenersAt(rows, winListen, tt.port, receives127)); !reflect.DeepEqual(got, tt.only127) {
			t.Errorf("listenersAt(%d, receives127) pids = %v, want %v", tt.port, got, tt.only127)
		}
	}
}

func TestParseTCPTableBounded(t *testing.T) {
	buf := make([]byte, maxTableBytes+1) // dwNumEntries 0, then padding
	if got, err := parseTCPTable(buf); err == nil {
		t.Errorf("parseTCPTable(%d bytes) = %d rows, nil; want an error over %d bytes", len(buf), len(got), maxTableBytes)
	}
}
