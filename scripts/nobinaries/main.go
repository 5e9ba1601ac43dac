// Command nobinaries fails when a file git tracks is a compiled program or
// object: an ELF, Mach-O, PE or WebAssembly executable, or an ar archive
// (a Go or C static library), told by its first bytes, whatever its name.
// A release is built from the source it signs; an executable in that
// source is one nobody can review, and it ships in every module zip.
//
//	go run ./scripts/nobinaries   # what .ci/run does, from the module root
//
// It prints each such file with its kind on stderr and exits 1; 0 when
// there is none, 2 when git cannot list the files.
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(".", os.Stdout, os.Stderr))
}

func run(dir string, stdout, stderr io.Writer) int {
	cmd := exec.Command("git", "-C", dir, "ls-files", "-z")
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(stderr, "nobinaries: error: git ls-files: %v\n", err)
		return 2
	}
	found := 0
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		kind, err := fileKind(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintf(stderr, "nobinaries: error: %v\n", err)
			return 2
		}
		if kind != "" {
			fmt.Fprintf(stderr, "nobinaries: %q is tracked and is %s\n", name, kind)
			found++
		}
	}
	if found > 0 {
		fmt.Fprintf(stderr, "nobinaries: error: %d compiled file(s) tracked\nhint: git rm --cached each one, and ignore it in .gitignore if a build writes it there\n", found)
		return 1
	}
	fmt.Fprintln(stdout, "nobinaries: no compiled file is tracked")
	return 0
}

// fileKind opens name and returns what kind of compiled file it is, or ""
// when it is none. A symbolic link, or a file deleted from the work tree
// but still in the index, is not read: git stores a link's target, and the
// commit that deletes a file needs no check of it.
func fileKind(name string) (string, error) {
	fi, err := os.Lstat(name)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", nil
	}
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return kindOf(f)
}

// peLookahead is how far into a file that starts with "MZ" the PE
// signature may sit: e_lfanew, at offset 0x3c, points at it, and linkers
// put it within the first few hundred bytes.
const peLookahead = 4096

// kindOf names the compiled format r's first bytes announce, or "".
func kindOf(r io.ReaderAt) (string, error) {
	head := make([]byte, 64)
	n, err := r.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return "", err
	}
	head = head[:n]
	for _, m := range magics {
		if bytes.HasPrefix(head, m.prefix) {
			return m.kind, nil
		}
	}
	// A PE file (Windows .exe, .dll, .sys) starts with a DOS header, "MZ",
	// whose 32-bit little-endian word at 0x3c is the offset of "PE\0\0".
	// Both are checked, so a text file that happens to start with "MZ" is
	// not taken for one.
	if len(head) >= 0x40 && bytes.HasPrefix(head, []byte("MZ")) {
		off := int64(binary.LittleEndian.Uint32(head[0x3c:]))
		if off >= 0x40 && off <= peLookahead {
			sig := make([]byte, 4)
			if _, err := r.ReadAt(sig, off); err == nil && bytes.Equal(sig, []byte("PE\x00\x00")) {
				return "a PE (Windows) executable", nil
			}
		}
	}
	return "", nil
}

// magics are the first bytes of the compiled formats a Go toolchain or a
// C compiler writes.
var magics = []struct {
	prefix []byte
	kind   string
}{
	{[]byte("\x7fELF"), "an ELF executable or object"},
	{[]byte{0xfe, 0xed, 0xfa, 0xce}, "a Mach-O executable (32-bit)"},
	{[]byte{0xce, 0xfa, 0xed, 0xfe}, "a Mach-O executable (32-bit)"},
	{[]byte{0xfe, 0xed, 0xfa, 0xcf}, "a Mach-O executable (64-bit)"},
	{[]byte{0xcf, 0xfa, 0xed, 0xfe}, "a Mach-O executable (64-bit)"},
	// Also a Java class file's magic: compiled either way.
	{[]byte{0xca, 0xfe, 0xba, 0xbe}, "a Mach-O universal binary or a Java class"},
	{[]byte("\x00asm"), "a WebAssembly module"},
	{[]byte("!<arch>\n"), "an ar archive (a static library or Go package archive)"},
}
