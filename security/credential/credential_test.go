package credential

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestEqual(t *testing.T) {
	tests := []struct {
		got, want string
		ok        bool
	}{
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"abc", "abcd", false}, // unequal lengths: no panic, no match
		{"abcd", "abc", false},
		{"", "", false}, // an unset credential is not a wildcard
		{"x", "", false},
		{"", "x", false},
		{strings.Repeat("a", 10000), "a", false},
		{"ABC", "abc", false}, // credentials are case-sensitive
	}
	for _, tt := range tests {
		if got := Equal(tt.got, tt.want); got != tt.ok {
			t.Errorf("Equal(%q, %q) = %v, want %v", tt.got, tt.want, got, tt.ok)
		}
	}
}

func TestEqualAny(t *testing.T) {
	tests := []struct {
		got   string
		wants []string
		ok    bool
	}{
		{"s2", []string{"s1", "s2", "s3"}, true},
		{"s1", []string{"s1"}, true},
		{"s3", []string{"s1", "s2", "s3"}, true},
		{"s4", []string{"s1", "s2", "s3"}, false},
		{"s1", nil, false},
		{"", []string{""}, false},
		{"", []string{"", "s1"}, false},
		{"s1", []string{"", "s1"}, true},
		{"short", []string{"a much longer secret than the guess"}, false},
	}
	for _, tt := range tests {
		if got := EqualAny(tt.got, tt.wants); got != tt.ok {
			t.Errorf("EqualAny(%q, %q) = %v, want %v", tt.got, tt.wants, got, tt.ok)
		}
	}
}

func TestNew(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		s, err := New()
		if err != nil {
			t.Fatalf("New() error = %v", err)
		}
		// 32 bytes, base64url without padding: 43 characters.
		if len(s) != 43 {
			t.Errorf("len(New()) = %d, want 43", len(s))
		}
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(b) != 32 {
			t.Errorf("New() = %q: decodes to %d bytes (err %v), want 32", s, len(b), err)
		}
		if strings.ContainsAny(s, "+/=") {
			t.Errorf("New() = %q, want URL-safe characters only", s)
		}
		if seen[s] {
			t.Fatalf("New() returned %q twice", s)
		}
		seen[s] = true
	}
}

func TestNewRandomFailure(t *testing.T) {
	old := randRead
	t.Cleanup(func() { randRead = old })
	randRead = func(b []byte) (int, error) { return 0, errors.New("entropy gone") }
	s, err := New()
	if err == nil || s != "" {
		t.Errorf("New() with a failing source = %q, %v; want \"\" and an error", s, err)
	}
}

func TestFingerprint(t *testing.T) {
	tests := []struct{ token, want string }{
		// The vector given in protocol.md §7.1.
		{"tok_0123456789ab", "fa57a35f9a62212f9ee3e1213b7cd69c"},
		// hex(SHA-256("password"))[:32] and hex(SHA-256("1"))[:32], the
		// made-up values in the notes' pairing.json example.
		{"password", "5e884898da28047151d0e56f8dc62927"},
		{"1", "6b86b273ff34fce19d6b804eff5a3f57"},
	}
	for _, tt := range tests {
		if got := Fingerprint(tt.token); got != tt.want {
			t.Errorf("Fingerprint(%q) = %q, want %q", tt.token, got, tt.want)
		}
	}
	if got := len(Fingerprint("")); got != FingerprintLen {
		t.Errorf("len(Fingerprint(\"\")) = %d, want %d", got, FingerprintLen)
	}
}

// TestFingerprintHidesToken: a fingerprint never contains the token.
func TestFingerprintHidesToken(t *testing.T) {
	tok := "tok_deadbeef"
	if fp := Fingerprint(tok); strings.Contains(fp, "deadbeef") {
		t.Errorf("Fingerprint(%q) = %q contains the token", tok, fp)
	}
}
