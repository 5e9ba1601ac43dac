package files

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzBase64Payload: ParseDataURL and Base64Payload never panic; they take
// a URL exactly when RFC 2397's base64 form, as a pattern states it, does
// (and Base64Payload only when Base64 takes its payload), and return that
// payload, a piece of the URL, and the type, lower-cased, without
// parameters; what they refuse yields nothing.
func FuzzBase64Payload(f *testing.F) {
	f.Add("data:image/png;base64,iVBORw0KGgo=")
	f.Add("data:a;b;base64,aGk=")
	f.Fuzz(func(t *testing.T, s string) {
		in := []byte(s)
		m := dataURLPattern.FindStringSubmatch(s)
		if m == nil {
			m = []string{"", "", ""}
		}
		typ, _, _ := strings.Cut(m[1], ";")
		ok := m[0] != "" && !strings.ContainsAny(typ, " \t\r\n\"")
		if len(typ) > maxMIME {
			typ = ""
		}
		mime, payload, err := ParseDataURL(in)
		switch {
		case err != nil && (payload != nil || mime != ""):
			t.Errorf("ParseDataURL(%q) = %q, %q, %v; want nothing with the error", s, mime, payload, err)
		case (err == nil) != ok:
			t.Errorf("ParseDataURL(%q) = %v; the pattern says %v", s, err, ok)
		case ok && (string(payload) != m[2] || mime != asciiLowerString(typ)):
			t.Errorf("ParseDataURL(%q) = %q, %q; want %q, %q", s, mime, payload, asciiLowerString(typ), m[2])
		case len(payload) > 0 && &payload[0] != &in[len(in)-len(payload)]:
			t.Errorf("ParseDataURL(%q) copied the payload", s)
		}
		checked, err := Base64Payload(in)
		switch ok = ok && Base64([]byte(m[2])); {
		case err != nil && checked != nil:
			t.Errorf("Base64Payload(%q) = %q, %v; want nothing with the error", s, checked, err)
		case (err == nil) != ok:
			t.Errorf("Base64Payload(%q) = %v; the pattern and Base64 say %v", s, err, ok)
		case ok && string(checked) != m[2]:
			t.Errorf("Base64Payload(%q) = %q, want %q", s, checked, m[2])
		}
	})
}

// dataURLPattern is RFC 2397's base64 form: the first comma ends
// ";base64", in any ASCII case (Go's (?i) would take "ſ" for "s").
var dataURLPattern = regexp.MustCompile(`(?s)^[dD][aA][tT][aA]:([^,]*);[bB][aA][sS][eE]64,(.*)$`)

// FuzzSaveName: whatever the name and bytes from the tab, a Batch's Save
// (with or without overwrite) either fails and writes nothing anywhere
// under the root, or writes exactly one visible regular file, directly in
// dir, holding the bytes, under a name the bridge built (builtName: a-z,
// 0-9, - and _ and an app kind's extension, so none of the characters T16
// refuses and no name a tool reads). A refusal's text is printable ASCII:
// it never carries the name's characters. One root serves every input of a
// worker and is put back to a/b/ after each write: a fresh temporary
// directory per input made the target slow enough that minimising a long
// input took the whole fuzz time.
func FuzzSaveName(f *testing.F) {
	root := f.TempDir()
	dir := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	pristine := []string{"a/", "a/b/"}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		for _, overwrite := range []bool{false, true} {
			// Each way in, the bytes or their base64 (SaveBase64, decoded
			// as read), is saved under the same name, or refused alike.
			var names, whys [2]string
			for way := range 2 {
				b := &Batch{Dir: dir, Overwrite: overwrite}
				var path string
				var err error
				if way == 0 {
					path, err = b.Save(name, data)
				} else {
					var n int64
					path, n, err = b.SaveBase64(name, []byte(base64.StdEncoding.EncodeToString(data)))
					if err == nil && n != int64(len(data)) {
						t.Errorf("Batch.SaveBase64(%q, %v) wrote %d bytes, want %d", name, overwrite, n, len(data))
					}
				}
				if names[way] = filepath.Base(path); err != nil {
					whys[way] = err.Error()
				}
				got := tree(t, root)
				if err != nil {
					if !reflect.DeepEqual(got, pristine) {
						t.Errorf("Batch.Save(%q, %v) = %v and left %q, want %q", name, overwrite, err, got, pristine)
					}
					if why := printableASCII(err.Error()); why != "" {
						t.Errorf("Batch.Save(%q, %v) = %q: %s", name, overwrite, err, why)
					}
				} else {
					checkSaved(t, name, overwrite, dir, path, data, got)
					if !builtName.MatchString(filepath.Base(path)) {
						t.Errorf("Batch.Save(%q, %v) wrote %s, a name the bridge does not build", name, overwrite, path)
					}
					// A kind with a cheap signature holds it (issue 35 F2).
					switch filepath.Ext(path) {
					case ".json", ".stitchslop":
						if !json.Valid(data) {
							t.Errorf("Batch.Save(%q, %v) wrote %s, which holds no JSON", name, overwrite, path)
						}
					case ".pes":
						if !bytes.HasPrefix(data, []byte("#PES")) {
							t.Errorf("Batch.Save(%q, %v) wrote %s, which is no PES", name, overwrite, path)
						}
					case ".svg", ".txt", ".md":
						if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
							t.Errorf("Batch.Save(%q, %v) wrote %s, which is no text", name, overwrite, path)
						}
					}
				}
				if !reflect.DeepEqual(got, pristine) {
					reset(t, root, got)
				}
			}
			if names[0] != names[1] || whys[0] != whys[1] {
				t.Errorf("Batch.Save(%q, %v) = %q, %q; its base64 to SaveBase64 = %q, %q", name, overwrite, names[0], whys[0], names[1], whys[1])
			}
		}
	})
}

// checkSaved checks what a successful Batch.Save(name, data) left: got, the
// tree under the root, holds dir and one visible regular file in it, path,
// holding data.
func checkSaved(t *testing.T, name string, overwrite bool, dir, path string, data []byte, got []string) {
	t.Helper()
	base := filepath.Base(path)
	if filepath.Dir(path) != dir || strings.HasPrefix(base, ".") {
		t.Errorf("Batch.Save(%q, %v) = %q, want a visible file directly in %s", name, overwrite, path, dir)
	}
	if want := []string{"a/", "a/b/", "a/b/" + base}; !reflect.DeepEqual(got, want) {
		t.Errorf("Batch.Save(%q, %v) left %q, want %q", name, overwrite, got, want)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Batch.Save(%q, %v) wrote %v, %v; want a regular file", name, overwrite, fi, err)
	} else if b, _ := os.ReadFile(path); !bytes.Equal(b, data) {
		t.Errorf("Batch.Save(%q, %v) wrote %q, want %q", name, overwrite, b, data)
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

// FuzzWalkNeverReachesHidden: whatever path below a home holding a secret
// in a hidden folder and links that lead to it (absolute, relative, through
// "..", chained, looping), Read never sends the secret, and Save never
// writes into a hidden folder: the walk judges the path each file is
// reached by, link targets included.
func FuzzWalkNeverReachesHidden(f *testing.F) {
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
		if _, err := (&Batch{Dir: path, Overwrite: true}).Save("x.json", []byte(`{}`)); err == nil {
			if ents, _ := os.ReadDir(filepath.Join(home, ".ssh")); len(ents) != 1 {
				t.Fatalf("Save(%q) wrote into the hidden folder", rel)
			}
		}
	})
}

// asciiLowerString is the test's own ASCII lower-casing, for the oracle:
// byte by byte, so invalid UTF-8 stays as it is.
func asciiLowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
