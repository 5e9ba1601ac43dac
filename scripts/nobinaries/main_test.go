package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pe returns the start of a PE file: a DOS header whose e_lfanew points
// at "PE\0\0".
func pe(lfanew uint32, sig string) []byte {
	b := make([]byte, 0x100)
	copy(b, "MZ")
	binary.LittleEndian.PutUint32(b[0x3c:], lfanew)
	copy(b[lfanew:], sig)
	return b
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		name     string
		head     []byte
		compiled bool
	}{
		{"elf", []byte("\x7fELF\x02\x01\x01\x00"), true},
		{"macho64", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, true},
		{"macho32", []byte{0xce, 0xfa, 0xed, 0xfe, 7, 0, 0, 0}, true},
		{"macho-be", []byte{0xfe, 0xed, 0xfa, 0xcf}, true},
		{"fat", []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2}, true},
		{"wasm", []byte("\x00asm\x01\x00\x00\x00"), true},
		{"ar", []byte("!<arch>\n__.PKGDEF"), true},
		{"pe", pe(0x80, "PE\x00\x00"), true},
		{"mz text", []byte("MZ is how this note starts, and it is text, long enough to have an e_lfanew word.\n"), false},
		{"mz wrong signature", pe(0x80, "NE\x00\x00"), false},
		{"go source", []byte("package main\n"), false},
		{"json", []byte(`{"a":1}`), false},
		{"png", []byte("\x89PNG\r\n\x1a\n"), false},
		{"empty", nil, false},
		{"elf prefix cut", []byte("\x7fEL"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, err := kindOf(bytes.NewReader(tt.head))
			if err != nil {
				t.Fatal(err)
			}
			if (kind != "") != tt.compiled {
				t.Errorf("kindOf(%q) = %q, want compiled=%v", tt.head, kind, tt.compiled)
			}
		})
	}
}

// TestRunFiresOnTrackedBinary: in a repository whose index holds a Mach-O
// file under an innocent name (as the root's `bench` once was), the check
// names it and exits 1; once it is removed from the index, it passes.
func TestRunFiresOnTrackedBinary(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", []byte("package main\n"))
	write("bench", append([]byte{0xcf, 0xfa, 0xed, 0xfe}, make([]byte, 60)...))
	write("untracked.exe", pe(0x80, "PE\x00\x00"))
	git("add", "main.go", "bench")

	var stdout, stderr bytes.Buffer
	if code := run(dir, &stdout, &stderr); code != 1 {
		t.Fatalf("run with a tracked Mach-O = %d, want 1; stderr:\n%s", code, &stderr)
	}
	if !strings.Contains(stderr.String(), `"bench" is tracked and is a Mach-O executable`) {
		t.Errorf("stderr does not name bench:\n%s", &stderr)
	}
	if strings.Contains(stderr.String(), "untracked.exe") || strings.Contains(stderr.String(), "main.go") {
		t.Errorf("stderr names a file that is not a tracked binary:\n%s", &stderr)
	}

	git("rm", "-q", "--cached", "bench")
	stdout.Reset()
	stderr.Reset()
	if code := run(dir, &stdout, &stderr); code != 0 {
		t.Fatalf("run with no tracked binary = %d, want 0; stderr:\n%s", code, &stderr)
	}
}
