package envtoken

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestTake(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"token", "tok_0123456789ab", "tok_0123456789ab"},
		{"padded", "  tok_0123456789ab\n", "tok_0123456789ab"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Written from the spec, not from Var.
			t.Setenv("STITCHSLOP_TOKEN", tt.value)
			if got := Take(); got != tt.want {
				t.Errorf("Take() with STITCHSLOP_TOKEN=%q = %q, want %q", tt.value, got, tt.want)
			}
			if v, ok := os.LookupEnv("STITCHSLOP_TOKEN"); ok {
				t.Errorf("after Take(), STITCHSLOP_TOKEN = %q, want unset", v)
			}
			for _, kv := range os.Environ() {
				if strings.HasPrefix(kv, "STITCHSLOP_TOKEN=") {
					t.Errorf("after Take(), os.Environ() still holds %q", kv)
				}
			}
			if got := Take(); got != "" {
				t.Errorf("second Take() = %q, want \"\"", got)
			}
		})
	}
}

func TestTakeUnset(t *testing.T) {
	t.Setenv("STITCHSLOP_TOKEN", "x")
	os.Unsetenv("STITCHSLOP_TOKEN")
	if got := Take(); got != "" {
		t.Errorf("Take() with STITCHSLOP_TOKEN unset = %q, want \"\"", got)
	}
}

func TestCheckArgs(t *testing.T) {
	const secret = "tok_0123456789ab"
	tests := []struct {
		args []string
		want error
	}{
		{nil, nil},
		{[]string{"--origin", "https://www.stitchslop.com", "--port", "8787"}, nil},
		{[]string{"--token", secret}, ErrTokenFlag},
		{[]string{"-token", secret}, ErrTokenFlag},
		{[]string{"--token=" + secret}, ErrTokenFlag},
		{[]string{"-token=" + secret}, ErrTokenFlag},
		{[]string{"---token", secret}, ErrTokenFlag},
		{[]string{"--TOKEN", secret}, ErrTokenFlag},
		{[]string{"--origin", "x", "--token"}, ErrTokenFlag},
		{[]string{"--", "--token", secret}, nil}, // positional after --
		{[]string{"--tokens"}, nil},
		{[]string{"--token-file"}, nil},
		{[]string{"call", "scene.rename", `{"name":"token"}`}, nil},
		{[]string{"token"}, nil},
	}
	for _, tt := range tests {
		if _, got := CheckArgs(tt.args); !errors.Is(got, tt.want) {
			t.Errorf("CheckArgs(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestErrTokenFlagNoSecret: the refusal names the fix and never the value.
func TestErrTokenFlagNoSecret(t *testing.T) {
	const secret = "tok_0123456789ab"
	_, err := CheckArgs([]string{"--token=" + secret})
	if err == nil {
		t.Fatalf("CheckArgs(--token=...) = nil, want an error")
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "0123456789ab") {
		t.Errorf("CheckArgs error %q echoes the token", err)
	}
	if !strings.Contains(err.Error(), "STITCHSLOP_TOKEN") {
		t.Errorf("CheckArgs error %q does not name STITCHSLOP_TOKEN", err)
	}
}

// TestCheckArgsRest: what is left is the command as given, without the
// flag and its value, so it can be shown with the token moved to Var.
func TestCheckArgsRest(t *testing.T) {
	const secret = "tok_0123456789ab"
	tests := []struct {
		args, want []string
	}{
		{[]string{"pair", "--token", secret}, []string{"pair"}},
		{[]string{"--token", secret, "--origin", "https://a.test", "--port", "9401"}, []string{"--origin", "https://a.test", "--port", "9401"}},
		{[]string{"--origin", "https://a.test", "--token=" + secret, "--lazy"}, []string{"--origin", "https://a.test", "--lazy"}},
		{[]string{"--token", "--lazy"}, []string{"--lazy"}},
		{[]string{"call", "x", "--", "--token", "y"}, []string{"call", "x", "--", "--token", "y"}},
		{[]string{"status"}, []string{"status"}},
	}
	for _, tt := range tests {
		rest, _ := CheckArgs(tt.args)
		if !slices.Equal(rest, tt.want) {
			t.Errorf("CheckArgs(%q) rest = %q, want %q", tt.args, rest, tt.want)
		}
	}
}
