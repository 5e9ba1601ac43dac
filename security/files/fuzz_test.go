package files

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/stitchslop/stitchslop-bridge/security/fuzzseed"
)

// FuzzDecodeDataURL: DecodeDataURL never panics; what it rejects yields
// nothing; what it accepts starts with the data: scheme and round-trips:
// the canonical data URL of its result decodes to the same result.
func FuzzDecodeDataURL(f *testing.F) {
	fuzzseed.Require(f, "FuzzDecodeDataURL")
	f.Fuzz(func(t *testing.T, s string) {
		mime, data, err := DecodeDataURL(s)
		if err != nil {
			if mime != "" || data != nil {
				t.Errorf("DecodeDataURL(%q) = %q, %q, %v; want nothing with the error", s, mime, data, err)
			}
			return
		}
		if !strings.EqualFold(s[:5], "data:") || strings.ContainsAny(mime, ";,") {
			t.Errorf("DecodeDataURL(%q) = %q, want an error", s, mime)
		}
		again := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
		mime2, data2, err := DecodeDataURL(again)
		if err != nil || mime2 != mime || !bytes.Equal(data2, data) {
			t.Errorf("DecodeDataURL(%q) = %q, %q, %v; want %q, %q, nil", again, mime2, data2, err, mime, data)
		}
	})
}

// FuzzSaveName: whatever the name and bytes from the tab, Save (with or
// without overwrite) either fails and writes nothing anywhere under the
// root, or writes exactly one visible regular file, directly in dir,
// holding the bytes, under a name CheckName accepts and that holds none
// of the characters T16 refuses. A refusal's text is printable ASCII: it
// never carries the name's characters. One root serves every input of a worker and is put
// back to a/b/ after each write: a fresh temporary directory per input
// made the target slow enough that minimising a long input took the whole
// fuzz time.
func FuzzSaveName(f *testing.F) {
	fuzzseed.Require(f, "FuzzSaveName")
	root := f.TempDir()
	dir := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	pristine := []string{"a/", "a/b/"}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		for _, overwrite := range []bool{false, true} {
			path, err := Save(dir, name, ByAgent, data, overwrite)
			got := tree(t, root)
			if err != nil {
				if !reflect.DeepEqual(got, pristine) {
					t.Errorf("Save(dir, %q, ByAgent, %v) = %v and left %q, want %q", name, overwrite, err, got, pristine)
				}
				if why := printableASCII(err.Error()); why != "" {
					t.Errorf("Save(dir, %q, ByAgent, %v) = %q: %s", name, overwrite, err, why)
				}
			} else {
				checkSaved(t, name, overwrite, dir, path, data, got)
				if err := CheckName(name); err != nil {
					t.Errorf("Save(dir, %q, ByAgent, %v) wrote %s, but CheckName(%q) = %v", name, overwrite, path, name, err)
				}
				if r, ok := shady(name); ok {
					t.Errorf("Save(dir, %q, ByAgent, %v) wrote %s, a name holding %U", name, overwrite, path, r)
				}
			}
			if !reflect.DeepEqual(got, pristine) {
				reset(t, root, got)
			}
		}
	})
}

// checkSaved checks what a successful Save(dir, name, ByAgent, data) left: got, the
// tree under the root, holds dir and one visible regular file in it, path,
// holding data.
func checkSaved(t *testing.T, name string, overwrite bool, dir, path string, data []byte, got []string) {
	t.Helper()
	base := filepath.Base(path)
	if filepath.Dir(path) != dir || strings.HasPrefix(base, ".") {
		t.Errorf("Save(dir, %q, ByAgent, %v) = %q, want a visible file directly in %s", name, overwrite, path, dir)
	}
	if want := []string{"a/", "a/b/", "a/b/" + base}; !reflect.DeepEqual(got, want) {
		t.Errorf("Save(dir, %q, ByAgent, %v) left %q, want %q", name, overwrite, got, want)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Save(dir, %q, ByAgent, %v) wrote %v, %v; want a regular file", name, overwrite, fi, err)
	} else if b, _ := os.ReadFile(path); !bytes.Equal(b, data) {
		t.Errorf("Save(dir, %q, ByAgent, %v) wrote %q, want %q", name, overwrite, b, data)
	}
}

// reset puts root back to holding a/b/ alone, removing got's entries.
func reset(t *testing.T, root string, got []string) {
	t.Helper()
	for _, e := range got {
		if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(e))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// shady returns the first rune of name that no saved name may hold,
// written here from T16 and not from checkCharacters: invalid UTF-8, a
// control, format, private-use or unassigned character, a line or
// paragraph separator.
func shady(name string) (rune, bool) {
	if !utf8.ValidString(name) {
		return utf8.RuneError, true
	}
	for _, r := range name {
		if (r < 0x20) || (r >= 0x7f && r <= 0x9f) || r == 0x202e || r == 0x200b || r == 0xfeff ||
			r == 0x2028 || r == 0x2029 || unicode.In(r, unicode.Cf, unicode.Co) ||
			!unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z) {
			return r, true
		}
	}
	return 0, false
}

// FuzzNameKey: NameKey never panics; it is blind to Unicode normal form
// (a name, its NFC and its NFD have one key) and to ASCII case, and an
// ASCII name's key is that name in lower case.
func FuzzNameKey(f *testing.F) {
	fuzzseed.Require(f, "FuzzNameKey")
	f.Fuzz(func(t *testing.T, name string) {
		k := NameKey(name)
		if !utf8.ValidString(name) {
			return
		}
		for _, v := range []string{norm.NFC.String(name), norm.NFD.String(name)} {
			if got := NameKey(v); got != k {
				t.Errorf("NameKey(%q) = %q, want %q, the key of %q", v, got, k, name)
			}
		}
		ascii := true
		for i := 0; i < len(name); i++ {
			ascii = ascii && name[i] < utf8.RuneSelf
		}
		if ascii {
			if got, want := NameKey(strings.ToUpper(name)), strings.ToLower(name); k != want || got != want {
				t.Errorf("NameKey(%q), NameKey(upper) = %q, %q; want %q", name, k, got, want)
			}
		}
	})
}

// FuzzWalkNeverReachesHidden: whatever path below a home holding a secret
// in a hidden folder and links that lead to it (absolute, relative, through
// "..", chained, looping), Read never sends the secret, and Save never
// writes into a hidden folder: the walk judges the path each file is
// reached by, link targets included.
func FuzzWalkNeverReachesHidden(f *testing.F) {
	fuzzseed.Require(f, "FuzzWalkNeverReachesHidden")
	home := f.TempDir()
	if hidden(home) != "" {
		f.Skipf("temporary directory %s has a hidden component", home)
	}
	mustWrite := func(p string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	const secret = "s3cr3t-in-a-dot-folder"
	mustWrite(filepath.Join(home, ".ssh", "key.json"), []byte(`"`+secret+`"`))
	mustWrite(filepath.Join(home, "a", "ok.json"), []byte(`"fine"`))
	links := map[string]string{
		"a/abs":   filepath.Join(home, ".ssh"),
		"a/rel":   "../.ssh/key.json",
		"a/up":    "..",
		"a/chain": "rel",
		"a/loop":  "loop",
		"a/dot":   "./../a/../.ssh",
		"b":       "a",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(home, filepath.FromSlash(name))); err != nil {
			f.Skipf("cannot make symlinks here: %v", err)
		}
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if strings.ContainsRune(rel, 0) {
			return
		}
		path := home + string(filepath.Separator) + filepath.FromSlash(rel)
		if in, err := Read(path, Text); err == nil && strings.Contains(in.Value, secret) {
			t.Fatalf("Read(%q) sent the file in the hidden folder", rel)
		}
		if _, err := Save(path, "x.json", ByAgent, []byte(`{}`), true); err == nil {
			if ents, _ := os.ReadDir(filepath.Join(home, ".ssh")); len(ents) != 1 {
				t.Fatalf("Save(%q) wrote into the hidden folder", rel)
			}
		}
	})
}
