package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestParseChecksums(t *testing.T) {
	const h = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name    string
		in      string
		want    map[string]string
		wantErr string
	}{
		{"one line", h + "  a.tar.gz\n", map[string]string{"a.tar.gz": h}, ""},
		{"no final newline", h + "  a.tar.gz", map[string]string{"a.tar.gz": h}, ""},
		{"binary mode marker", h + " *a.zip\n", map[string]string{"a.zip": h}, ""},
		{"crlf", h + "  a.zip\r\n", map[string]string{"a.zip": h}, ""},
		{"name with spaces", h + "  a b.zip\n", map[string]string{"a b.zip": h}, ""},
		{"empty file", "", nil, "no entries"},
		{"blank line inside", h + "  a\n\n" + h + "  b\n", nil, "line 2: empty line"},
		{"one space", h + " a.tar.gz\n", nil, "want two spaces"},
		{"uppercase hex", strings.ToUpper(h) + "  a\n", nil, "lowercase hex"},
		{"short digest", h[:63] + "  a.tar.gz\n", nil, "want two spaces"},
		{"path in name", h + "  ../a\n", nil, "plain file name"},
		{"backslash in name", h + "  ..\\a\n", nil, "plain file name"},
		{"dot dot", h + "  ..\n", nil, "plain file name"},
		{"duplicate", h + "  a\n" + h + "  a\n", nil, "listed twice"},
		{"too short", "abc\n", nil, "too short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseChecksums([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseChecksums(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseChecksums(%q) = %v", tt.in, err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("parseChecksums(%q) = %v, want %v", tt.in, got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("parseChecksums(%q)[%q] = %q, want %q", tt.in, k, got[k], v)
				}
			}
		})
	}
}

// FuzzParseChecksums: checksums.txt is attacker-supplied until its signature
// verifies, and parsing must never panic. Property: a file either is
// rejected, or it round-trips (formatted back out and parsed again, it gives
// the same map) and every entry is a plain name with a 64-hex digest.
func FuzzParseChecksums(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "checksums", "*.txt"))
	if err != nil {
		f.Fatal(err)
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds in testdata/checksums: the fuzz corpus must not silently vanish")
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		if _, err := parseChecksums(data); err != nil {
			f.Fatalf("seed %s does not parse: %v", s, err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sums, err := parseChecksums(data)
		if err != nil {
			return
		}
		names := make([]string, 0, len(sums))
		for n, d := range sums {
			if len(d) != 64 || !isLowerHex(d) {
				t.Fatalf("parseChecksums accepted digest %q", d)
			}
			if n == "" || strings.ContainsAny(n, "/\\\n") || n == "." || n == ".." || strings.ContainsFunc(n, unicode.IsControl) || !utf8.ValidString(n) {
				t.Fatalf("parseChecksums accepted name %q", n)
			}
			names = append(names, n)
		}
		sort.Strings(names)
		var out bytes.Buffer
		for _, n := range names {
			out.WriteString(sums[n] + "  " + n + "\n")
		}
		again, err := parseChecksums(out.Bytes())
		if err != nil {
			t.Fatalf("round trip of %q: %v", out.Bytes(), err)
		}
		if len(again) != len(sums) {
			t.Fatalf("round trip changed %d entries into %d", len(sums), len(again))
		}
		for n, d := range sums {
			if again[n] != d {
				t.Fatalf("round trip changed %q: %q -> %q", n, d, again[n])
			}
		}
	})
}
