package ledger

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Fingerprints written from the spec (protocol.md §7.1), not
// computed with credential.Fingerprint, so a wrong format fails here.
const (
	tokA = "tok_0123456789ab"
	fpA  = "fa57a35f9a62212f9ee3e1213b7cd69c"
)

func TestSpent(t *testing.T) {
	tests := []struct {
		name  string
		used  []string
		token string
		want  bool
	}{
		{"empty ledger", nil, tokA, false},
		{"reference fingerprint", []string{fpA}, tokA, true},
		{"among others", []string{"5e884898da28047151d0e56f8dc62927", fpA, "6b86b273ff34fce19d6b804eff5a3f57"}, tokA, true},
		{"upper-case entry", []string{strings.ToUpper(fpA)}, tokA, true},
		{"padded entry", []string{" " + fpA + "\n"}, tokA, true},
		{"other token", []string{fpA}, "tok_0123456789ac", false},
		{"full sha256 is not the format", []string{fpA + "0000000000000000000000000000000"}, tokA, false},
		{"prefix is not a match", []string{fpA[:16]}, tokA, false},
		{"clear-text token never matches", []string{tokA}, tokA, false},
		{"empty entry", []string{""}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Spent(tt.used, tt.token); got != tt.want {
				t.Errorf("Spent(%q, %q) = %v, want %v", tt.used, tt.token, got, tt.want)
			}
		})
	}
}

func TestRecord(t *testing.T) {
	got := Record(nil, tokA)
	if want := []string{fpA}; !slices.Equal(got, want) {
		t.Errorf("Record(nil, %q) = %q, want %q", tokA, got, want)
	}
	if !Spent(got, tokA) {
		t.Errorf("Spent(Record(nil, %q), %q) = false, want true", tokA, tokA)
	}
	for _, e := range got {
		if strings.Contains(e, "0123456789ab") {
			t.Errorf("Record(nil, %q) = %q stores the token in the clear", tokA, got)
		}
	}
}

func TestRecordKeepsNewest(t *testing.T) {
	var used []string
	for i := 0; i < Keep+5; i++ {
		used = Record(used, fmt.Sprintf("tok_%04d", i))
	}
	if len(used) != Keep {
		t.Fatalf("len(used) after %d records = %d, want %d", Keep+5, len(used), Keep)
	}
	// The reference bridge keeps the last 20.
	if Keep != 20 {
		t.Errorf("Keep = %d, want 20", Keep)
	}
	for i := 0; i < 5; i++ {
		if tok := fmt.Sprintf("tok_%04d", i); Spent(used, tok) {
			t.Errorf("Spent(used, %q) = true, want false (oldest are forgotten)", tok)
		}
	}
	for i := 5; i < Keep+5; i++ {
		if tok := fmt.Sprintf("tok_%04d", i); !Spent(used, tok) {
			t.Errorf("Spent(used, %q) = false, want true", tok)
		}
	}
	if last := used[len(used)-1]; !Spent([]string{last}, fmt.Sprintf("tok_%04d", Keep+4)) {
		t.Errorf("newest fingerprint is not last: %q", used)
	}
}

func TestRecordDoesNotModifyInput(t *testing.T) {
	used := make([]string, Keep, Keep+10)
	for i := range used {
		used[i] = fmt.Sprintf("%032d", i)
	}
	orig := slices.Clone(used)
	_ = Record(used, tokA)
	if !slices.Equal(used, orig) {
		t.Errorf("Record modified its input: %q, want %q", used, orig)
	}
}

func TestRecordNoDuplicate(t *testing.T) {
	used := Record(Record([]string{fpA, "x"}, "tok_other"), tokA)
	n := 0
	for _, u := range used {
		if u == fpA {
			n++
		}
	}
	if n != 1 || used[len(used)-1] != fpA {
		t.Errorf("Record(%q, %q) = %q, want %q once, last", []string{fpA, "x"}, tokA, used, fpA)
	}
}
