package paths

import (
	"runtime"
	"strings"
	"testing"
)

func TestDefaultConfigDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows takes the profile folder, not $HOME")
	}
	for _, tt := range []struct{ home, want string }{
		{"/home/jo", "/home/jo/.stitchslop"},
		{"/", "/.stitchslop"},
		{"", ""},
		{"relative/home", ""},
	} {
		t.Setenv("HOME", tt.home)
		got, err := DefaultConfigDir()
		switch {
		case tt.want == "" && (err == nil || !strings.Contains(err.Error(), "--config-dir")):
			t.Errorf("with HOME=%q, DefaultConfigDir() = %q, %v; want an error naming --config-dir", tt.home, got, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("with HOME=%q, DefaultConfigDir() = %q, %v; want %q", tt.home, got, err, tt.want)
		}
	}
}
