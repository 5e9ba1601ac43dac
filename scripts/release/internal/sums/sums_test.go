package sums

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	h := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		text, err string
	}{
		{h + "  a.tar.gz\n" + h + "  b.mcpb\n", ""},
		{"", "is empty"},
		{h + " a.tar.gz\n", "line 1: not"},
		{h + "  ../a\n", "line 1: not"},
		{h + "  a\n" + h + "  a\n", "line 2: a listed twice"},
	} {
		p := filepath.Join(t.TempDir(), "checksums.txt")
		os.WriteFile(p, []byte(tc.text), 0o600)
		got, err := Read(p)
		switch {
		case tc.err == "" && (err != nil || len(got) != 2 || got["b.mcpb"] != h):
			t.Errorf("Read(%q) = %v, %v; want two sums", tc.text, got, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Read(%q) = %v; want an error containing %q", tc.text, err, tc.err)
		}
	}
}
