package peercred

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseProcNetTCP: parseProcNetTCP never panics; it fails with no
// entries, or returns one entry per non-blank line after the header, each
// with valid addresses of one family, and those entries, written back out
// in the kernel's layout, parse to themselves.
func FuzzParseProcNetTCP(f *testing.F) {
	for _, s := range []string{
		tcpHeader + "\n" + lineListen4 + "\n" + lineServer4 + "\n" + lineClient4 + "\n" + lineTimeWait4 + "\n",
		tcp6Header + "\n" + lineListen6 + "\n" + lineAny6 + "\n" + lineMapped + "\n" + lineDoc6 + "\n",
		tcpHeader + "\n   0: 0100007F:2253 00000000:0000 0A\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := parseProcNetTCP([]byte(s), binary.LittleEndian)
		if err != nil {
			if entries != nil {
				t.Errorf("parseProcNetTCP(%q) = %d entries and %v; want none with an error", s, len(entries), err)
			}
			return
		}
		lines := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		if len(entries) != lines-1 {
			t.Errorf("parseProcNetTCP(%q) = %d entries from %d lines after the header", s, len(entries), lines-1)
		}
		for _, e := range entries {
			if !e.Local.Addr().IsValid() || !e.Remote.Addr().IsValid() || e.Local.Addr().Zone() != "" {
				t.Errorf("parseProcNetTCP(%q): entry %+v has an invalid address", s, e)
			}
			if e.Local.Addr().Is4() != e.Remote.Addr().Is4() {
				t.Errorf("parseProcNetTCP(%q): entry %+v mixes families", s, e)
			}
		}
		again, err := parseProcNetTCP([]byte(formatProcNetTCP(entries, binary.LittleEndian)), binary.LittleEndian)
		if err != nil || !reflect.DeepEqual(again, entries) {
			t.Errorf("parseProcNetTCP(format(parseProcNetTCP(%q))) = %v, %v; want %v", s, again, err, entries)
		}
	})
}

// formatProcNetTCP writes entries the way the kernel's seq_printf does:
// each 32-bit address word's value in host order as %08X, ports as %04X.
func formatProcNetTCP(entries []entry, order binary.ByteOrder) string {
	hexAddr := func(ap interface{ AsSlice() []byte }) string {
		b := ap.AsSlice()
		var sb strings.Builder
		for i := 0; i < len(b); i += 4 {
			fmt.Fprintf(&sb, "%08X", order.Uint32(b[i:]))
		}
		return sb.String()
	}
	var sb strings.Builder
	sb.WriteString(tcpHeader + "\n")
	for i, e := range entries {
		fmt.Fprintf(&sb, "%4d: %s:%04X %s:%04X %02X 00000000:00000000 00:00000000 00000000 %5d        0 %d 1 0000000000000000 100 0 0 10 0\n",
			i, hexAddr(e.Local.Addr()), e.Local.Port(), hexAddr(e.Remote.Addr()), e.Remote.Port(), e.State, e.ID, e.Inode)
	}
	return sb.String()
}
