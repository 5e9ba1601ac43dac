package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/files"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// Bytes that sniff as what their names say, written here from the formats'
// own signatures.
var (
	pngData = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	dstData = []byte{0x4c, 0x41, 0x3a, 0x00, 0xff}
	svgText = `<svg xmlns="http://www.w3.org/2000/svg"><text>a&b</text></svg>`
)

func dataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

func writeTestFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustParse(t *testing.T, argv ...string) args {
	t.Helper()
	a, err := parse(argv)
	if err != nil {
		t.Fatalf("parse(%q) = %v", argv, err)
	}
	return a
}

// wantClientError checks err is a *client.Error with this exit and code,
// whose message holds every one of msg.
func wantClientError(t *testing.T, what string, err error, exit int, code string, msg ...string) {
	t.Helper()
	var ce *client.Error
	if !errors.As(err, &ce) {
		t.Errorf("%s = %v, want a *client.Error %s (exit %d)", what, err, code, exit)
		return
	}
	if ce.Exit != exit || ce.Code != code {
		t.Errorf("%s = exit %d %s (%s), want exit %d %s", what, ce.Exit, ce.Code, ce.Msg, exit, code)
	}
	for _, m := range msg {
		if !strings.Contains(ce.Msg, m) {
			t.Errorf("%s = %q, want it to say %q", what, ce.Msg, m)
		}
	}
}

func TestCallFileFlags(t *testing.T) {
	five := []string{"call", "x"}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		five = append(five, "--file", k+"=f.dst")
	}
	tests := []struct {
		name string
		argv []string
		want string // "" for no error; else a part of the usage error
	}{
		{"none", []string{"call", "x"}, ""},
		{"one of each", []string{"call", "x", "--file", "design=rose.dst", "--file-text", "sidecar.data=c.svg"}, ""},
		{"four", []string{"call", "x", "--file", "a=1.png", "--file", "b=2.png", "--file-text", "c=3.svg", "--file=d=4.png"}, ""},
		{"five", five, "call takes at most 4 files (--file and --file-text together), got 5"},
		{"save and text", []string{"call", "x", "--save", "d", "--text-file", "notes.txt", "--overwrite"}, ""},
		{"out and overwrite", []string{"call", "x", "--out", "o.png", "--overwrite"}, ""},
		{"text without save", []string{"call", "x", "--text-file", "notes.txt"}, "--text-file NAME goes with --save DIR"},
		{"text with out only", []string{"call", "x", "--out", "o.png", "--text-file", "notes.txt"}, "--text-file NAME goes with --save DIR"},
		{"lone overwrite", []string{"call", "x", "--overwrite"}, "--overwrite goes with --out or --save"},
		{"empty out", []string{"call", "x", "--out", ""}, "--out is empty"},
		{"empty save", []string{"call", "x", "--save="}, "--save is empty"},
		{"empty text", []string{"call", "x", "--save", "d", "--text-file", ""}, "--text-file is empty"},
		{"text as a path", []string{"call", "x", "--save", "d", "--text-file", "../notes.txt"}, ""},       // the name is built (issue 35)
		{"text in a folder", []string{"call", "x", "--save", "d", "--text-file", "a/notes.txt"}, ""},      // the name is built (issue 35)
		{"text with a backslash", []string{"call", "x", "--save", "d", "--text-file", `a\notes.txt`}, ""}, // the name is built (issue 35)
		{"text hidden", []string{"call", "x", "--save", "d", "--text-file", ".bashrc"}, ""},               // the name is built (issue 35)
		{"text dot dot", []string{"call", "x", "--save", "d", "--text-file", ".."}, ""},                   // the name is built (issue 35)
		{"text of a kind not saved", []string{"call", "x", "--save", "d", "--text-file", "notes.sh"}, ""}, // the name is built (issue 35)
		{"text without a kind", []string{"call", "x", "--save", "d", "--text-file", "notes"}, ""},         // the name is built (issue 35)
		{"text with RLO", []string{"call", "x", "--save", "d", "--text-file", "notes\u202Etxt.md"}, ""},   // the name is built (issue 35)
		{"text with C1", []string{"call", "x", "--save", "d", "--text-file", "notes\u0085.txt"}, ""},      // the name is built (issue 35)
		{"text with ZWSP", []string{"call", "x", "--save", "d", "--text-file", "no\u200btes.txt"}, ""},    // the name is built (issue 35)
		{"text with a colon", []string{"call", "x", "--save", "d", "--text-file", "notes.txt:x"}, ""},     // the name is built (issue 35)
		{"text a device", []string{"call", "x", "--save", "d", "--text-file", "CON.txt"}, ""},             // the name is built (issue 35)
		{"text trailing dot", []string{"call", "x", "--save", "d", "--text-file", "notes.txt."}, ""},      // the name is built (issue 35)
		{"text leading space", []string{"call", "x", "--save", "d", "--text-file", " notes.txt"}, ""},     // the name is built (issue 35)
		{"text not UTF-8", []string{"call", "x", "--save", "d", "--text-file", "n\xffotes.txt"}, ""},      // the name is built (issue 35)
		{"text, a design name", []string{"call", "x", "--save", "d", "--text-file", "\u00fcber.svg"}, ""},
		{"no equals", []string{"call", "x", "--file", "design"}, `--file "design": want KEY=PATH, such as --file design=rose.dst`},
		{"no equals, text", []string{"call", "x", "--file-text", "c.svg"}, `--file-text "c.svg": want KEY=PATH, such as --file-text design=rose.dst`},
		{"empty key", []string{"call", "x", "--file", "=rose.dst"}, "the KEY before = is empty"},
		{"empty path", []string{"call", "x", "--file", "design="}, "the PATH after = is empty"},
		{"same key", []string{"call", "x", "--file", "design=a.dst", "--file-text", "design=b.svg"}, "--file design and --file-text design: one argument would hold both files"},
		{"key inside key", []string{"call", "x", "--file", "a=1.dst", "--file", "a.b=2.dst"}, "one argument would hold both files"},
		{"key around key", []string{"call", "x", "--file", "a.b.c=1.dst", "--file", "a.b=2.dst"}, "one argument would hold both files"},
		{"sibling keys", []string{"call", "x", "--file", "a.b=1.dst", "--file", "a.c=2.dst", "--file", "ab=3.dst"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustParse(t, tt.argv...)
			err := callFileFlags(a)
			if tt.want == "" {
				if err != nil {
					t.Errorf("callFileFlags(%q) = %v, want nil", tt.argv, err)
				}
				return
			}
			wantClientError(t, "callFileFlags("+strings.Join(tt.argv, " ")+")", err, exitcode.Usage, "usage", tt.want)
			// request runs it: a usage error there too, before anything.
			_, err = request(a)
			wantClientError(t, "request("+strings.Join(tt.argv, " ")+")", err, 64, "usage", tt.want)
		})
	}
}

func TestFileSpecs(t *testing.T) {
	list := []flagValue{{"file", "design=rose=1.dst"}, {"file-text", "sidecar.data=c.svg"}}
	got, err := fileSpecs(list)
	want := []fileSpec{
		{flag: "file", arg: "design", path: "rose=1.dst", mode: "dataUrl"},
		{flag: "file-text", arg: "sidecar.data", path: "c.svg", mode: "text"},
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("fileSpecs(%v) = %v, %v; want %v", list, got, err, want)
	}
	if got, err := fileSpecs(nil); err != nil || got != nil {
		t.Errorf("fileSpecs(nil) = %v, %v; want nothing", got, err)
	}
}

// callRequest builds the request of call argv, as verb does.
func callRequest(t *testing.T, argv ...string) (client.Request, args) {
	t.Helper()
	a := mustParse(t, argv...)
	req, err := request(a)
	if err != nil {
		t.Fatalf("request(%q) = %v", argv, err)
	}
	return req, a
}

func TestAttachFiles(t *testing.T) {
	dir := t.TempDir()
	png := writeTestFile(t, filepath.Join(dir, "photo"), pngData) // known by its bytes
	dst := writeTestFile(t, filepath.Join(dir, "rose.dst"), dstData)
	svg := writeTestFile(t, filepath.Join(dir, "colours.svg"), []byte(svgText))
	js := writeTestFile(t, filepath.Join(dir, "meta.json"), []byte(`{"n":1}`))

	tests := []struct {
		name string
		args string // JSON-ARGS
		list []string
		want string // the args sent
	}{
		{"no files: args as written", `{ "b":1, "a":2 }`, nil, `{ "b":1, "a":2 }`},
		{"image by its bytes", `{}`, []string{"--file", "image=" + png},
			`{"image":"` + dataURL("image/png", pngData) + `"}`},
		{"design by extension, numbers kept", `{"mode":"replace","big":12345678901234567,"f":1.50}`, []string{"--file", "design=" + dst},
			`{"big":12345678901234567,"design":"` + dataURL("application/octet-stream", dstData) + `","f":1.50,"mode":"replace"}`},
		{"text, nested, not HTML-escaped", `{}`, []string{"--file-text", "sidecar.data=" + svg},
			`{"sidecar":{"data":` + jsonString(svgText) + `}}`},
		{"three parts, into an object there", `{"a":{"keep":true}}`, []string{"--file-text", "a.b.c=" + js},
			`{"a":{"b":{"c":"{\"n\":1}"},"keep":true}}`},
		{"JSON as a data URL", `{}`, []string{"--file", "m=" + js},
			`{"m":"` + dataURL("application/json", []byte(`{"n":1}`)) + `"}`},
		{"replaces a value", `{"design":"old"}`, []string{"--file", "design=" + dst},
			`{"design":"` + dataURL("application/octet-stream", dstData) + `"}`},
		{"four", `{}`, []string{"--file", "a=" + png, "--file", "b=" + dst, "--file-text", "c=" + svg, "--file-text", "d=" + js},
			`{"a":"` + dataURL("image/png", pngData) + `","b":"` + dataURL("application/octet-stream", dstData) + `","c":` + jsonString(svgText) + `,"d":"{\"n\":1}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, a := callRequest(t, append([]string{"call", "design.import", tt.args}, tt.list...)...)
			var se bytes.Buffer
			got, err := attachFiles(req, a.list, ui.NewLogger(&se))
			if err != nil {
				t.Fatalf("attachFiles(%q) = %v", tt.list, err)
			}
			body := got.Body.(callBody)
			if string(body.Args) != tt.want || body.Command != "design.import" {
				t.Errorf("attachFiles(%q) sends %s %s, want %s", tt.list, body.Command, body.Args, tt.want)
			}
			if len(tt.list) > 0 && (!strings.Contains(se.String(), "stitchslop-bridge: sending ") || strings.Contains(se.String(), "base64")) {
				t.Errorf("attachFiles(%q) stderr %q, want word of the files sent, without their data", tt.list, se.String())
			}
		})
	}
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSpace(b.String())
}

func TestAttachFilesRefuses(t *testing.T) {
	dir := t.TempDir()
	dst := writeTestFile(t, filepath.Join(dir, "rose.dst"), dstData)
	big := filepath.Join(dir, "big.dst")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 14<<20+1); err != nil {
		t.Fatal(err)
	}
	// Two files under the cap that the bridge's request limit cannot hold.
	full := []string{}
	for _, n := range []string{"f1.dst", "f2.dst"} {
		p := filepath.Join(dir, n)
		os.WriteFile(p, nil, 0o644)
		if err := os.Truncate(p, 14<<20); err != nil {
			t.Fatal(err)
		}
		full = append(full, p)
	}
	tests := []struct {
		name string
		args string
		list []string
		exit int
		code string
		msg  []string
	}{
		{"a text file named .png", `{}`, []string{"--file", "image=" + writeTestFile(t, filepath.Join(dir, "x.png"), []byte("not an image"))},
			64, "usage", []string{"--file image: ", "its bytes are not a PNG, JPEG, GIF or WebP image", "nothing was sent to the tab"}},
		{"a hidden file", `{}`, []string{"--file", "d=" + writeTestFile(t, filepath.Join(dir, ".secret.json"), []byte(`{}`))},
			64, "usage", []string{"hidden files and folders are not sent"}},
		{"a hidden folder", `{}`, []string{"--file-text", "d=" + writeTestFile(t, filepath.Join(dir, ".ssh", "id.json"), []byte(`{}`))},
			64, "usage", []string{"hidden files and folders are not sent"}},
		{"a climb into a hidden folder", `{}`, []string{"--file", "d=" + filepath.Join(dir, "sub", "..", ".ssh", "id.json")},
			64, "usage", []string{"hidden files and folders are not sent"}},
		{"a key", `{}`, []string{"--file", "d=" + writeTestFile(t, filepath.Join(dir, "id_rsa"), []byte("-----BEGIN"))},
			64, "usage", []string{"is not a kind of file sent to the tab"}},
		{"a script", `{}`, []string{"--file", "d=" + writeTestFile(t, filepath.Join(dir, "x.sh"), []byte("#!/bin/sh"))},
			64, "usage", []string{"is not a kind of file sent to the tab"}},
		{"missing", `{}`, []string{"--file", "d=" + filepath.Join(dir, "nope.dst")},
			64, "usage", []string{"no such file"}},
		{"a folder", `{}`, []string{"--file", "d=" + writeTestFile(t, filepath.Join(dir, "f.dst", "x"), nil) + "/.."},
			64, "usage", []string{"not a regular file"}},
		{"a machine format as text", `{}`, []string{"--file-text", "d=" + dst},
			64, "usage", []string{"cannot be sent as text"}},
		{"text that is not UTF-8", `{}`, []string{"--file-text", "d=" + writeTestFile(t, filepath.Join(dir, "bad.svg"), []byte("<svg>\xff</svg>"))},
			64, "usage", []string{"not valid UTF-8"}},
		{"over 14 MB", `{}`, []string{"--file", "d=" + big},
			64, "usage", []string{"over the 14 MB limit"}},
		{"over the request limit", `{}`, []string{"--file", "a=" + full[0], "--file", "b=" + full[1]},
			1, "too_large", []string{"over the 24 MB the bridge takes", "nothing was sent to the tab"}},
		// Keys are checked before any file is read: the missing file is
		// never reached.
		{"four parts", `{}`, []string{"--file", "a.b.c.d=" + filepath.Join(dir, "nope.dst")},
			64, "usage", []string{"--file a.b.c.d: argument key", "want 1 to 3 non-empty names joined by dots"}},
		{"empty part", `{}`, []string{"--file", "a..b=" + filepath.Join(dir, "nope.dst")},
			64, "usage", []string{"want 1 to 3 non-empty names"}},
		{"through a number", `{"a":1}`, []string{"--file", "a.b=" + filepath.Join(dir, "nope.dst")},
			64, "usage", []string{"--file a.b: JSON-ARGS has a number at a, not an object, so the file cannot go inside it"}},
		{"through a string", `{"a":{"b":"x"}}`, []string{"--file", "a.b.c=" + filepath.Join(dir, "nope.dst")},
			64, "usage", []string{"JSON-ARGS has a string at a.b, not an object"}},
		{"through null", `{"a":null}`, []string{"--file", "a.b=" + filepath.Join(dir, "nope.dst")},
			64, "usage", []string{"JSON-ARGS has null at a, not an object"}},
		{"through false", `{"a":false}`, []string{"--file", "a.b=" + filepath.Join(dir, "nope.dst")},
			64, "usage", []string{"JSON-ARGS has false at a, not an object"}},
		{"through a list", `{"a":[]}`, []string{"--file", "ok=" + dst, "--file", "a.b=" + filepath.Join(dir, "nope.dst")},
			64, "usage", []string{"JSON-ARGS has a list at a, not an object"}},
		// One good file and one refused: nothing.
		{"second refused", `{}`, []string{"--file", "ok=" + dst, "--file-text", "bad=" + dst},
			64, "usage", []string{"--file-text bad"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, a := callRequest(t, append([]string{"call", "design.import", tt.args}, tt.list...)...)
			before, _ := json.Marshal(req.Body)
			got, err := attachFiles(req, a.list, slog.New(slog.DiscardHandler))
			wantClientError(t, "attachFiles("+strings.Join(tt.list, " ")+")", err, tt.exit, tt.code, tt.msg...)
			if after, _ := json.Marshal(got.Body); !bytes.Equal(before, after) {
				t.Errorf("attachFiles(%q) refused but changed the request to %.200s", tt.list, after)
			}
		})
	}
}

// A refused file: the bridge is asked nothing at all.
func TestCallFileRefusedAsksNothing(t *testing.T) {
	asked := 0
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		asked++
		io.WriteString(w, `{"ok":true}`)
	})
	work := t.TempDir()
	fake := writeTestFile(t, filepath.Join(work, "x.png"), []byte("just text"))
	exists := writeTestFile(t, filepath.Join(work, "out.png"), []byte("mine"))
	for _, argv := range [][]string{
		{"call", "design.import", "--file", "image=" + fake},
		{"call", "design.import", "--file", "a.b.c.d=" + fake},
		{"call", "render", "--out", exists},
		{"call", "render", "--out", filepath.Join(work, "no", "out.png")},
		{"call", "render", "--save", filepath.Join(exists, "none")},
	} {
		code, doc, stderr := run(t, dir, argv...)
		if code == 0 || doc["ok"] != false || !strings.Contains(stderr, "stitchslop-bridge: error: ") {
			t.Errorf("Main(%q) = %d, %v, %q; want a failure on stdout and stderr", argv, code, doc, stderr)
		}
	}
	if asked != 0 {
		t.Errorf("the bridge was asked %d times, want never", asked)
	}
	if b, _ := os.ReadFile(exists); string(b) != "mine" {
		t.Errorf("--out without --overwrite changed the file to %q", b)
	}
}

func TestCheckTargets(t *testing.T) {
	dir := t.TempDir()
	file := writeTestFile(t, filepath.Join(dir, "out.png"), []byte("mine"))
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	dsub := filepath.Join(dir, "sub.png")
	os.Mkdir(dsub, 0o755)
	hidden := filepath.Join(dir, ".config")
	os.Mkdir(hidden, 0o755)
	link := filepath.Join(dir, "link.png")
	dangling := filepath.Join(dir, "dangling.png")
	linkToHidden := filepath.Join(dir, "visible")
	haveLinks := os.Symlink(file, link) == nil && os.Symlink(filepath.Join(dir, "gone"), dangling) == nil &&
		os.Symlink(hidden, linkToHidden) == nil

	type want struct {
		code string // "" for none
		msg  string
	}
	tests := []struct {
		name  string
		argv  []string
		links bool
		want  want
	}{
		{"new out", []string{"--out", filepath.Join(dir, "new.png")}, false, want{}},
		{"relative out", []string{"--out", "new.png"}, false, want{}},
		{"existing out", []string{"--out", file}, false, want{"file_exists", "already exists; pass --overwrite to replace it (nothing was sent to the tab)"}},
		{"existing out, overwrite", []string{"--out", file, "--overwrite"}, false, want{}},
		{"out is a folder", []string{"--out", sub, "--overwrite"}, false, want{"bad_name", "it is not an image name"}},
		{"out is a folder of an image's name", []string{"--out", dsub, "--overwrite"}, false, want{"write_failed", "is not a regular file (a folder, a link, a FIFO or a device); it is not replaced; nothing was sent"}},
		{"out a design", []string{"--out", filepath.Join(dir, "package.json"), "--overwrite"}, false, want{"bad_name", "it is not an image name"}},
		{"out in a missing folder", []string{"--out", filepath.Join(dir, "no", "x.png")}, false, want{"write_failed", "no such file or directory; nothing was sent"}},
		{"out in a hidden folder", []string{"--out", filepath.Join(hidden, "x.png")}, false, want{"write_failed", "hidden files and folders are not written to"}},
		{"out linked to a hidden folder", []string{"--out", filepath.Join(linkToHidden, "x.png")}, true, want{"write_failed", "hidden files and folders are not written to"}},
		{"out a dotfile", []string{"--out", filepath.Join(dir, ".profile_x"), "--overwrite"}, false, want{"bad_name", "it is hidden"}},
		{"out no kind", []string{"--out", filepath.Join(dir, "authorized_keys")}, false, want{"bad_name", "it is not an image name"}},
		{"out in a file", []string{"--out", filepath.Join(file, "x.png")}, false, want{"write_failed", "not a directory; nothing was sent"}},
		{"out is a symlink", []string{"--out", link}, true, want{"file_exists", "already exists"}},
		{"out is a symlink, overwrite", []string{"--out", link, "--overwrite"}, true, want{"write_failed", "is not a regular file"}}, // THREAT_MODEL A5
		{"out is a dangling symlink", []string{"--out", dangling}, true, want{"file_exists", "already exists"}},
		{"save", []string{"--save", dir}, false, want{}},
		{"save missing", []string{"--save", filepath.Join(dir, "none", "deeper")}, false, want{}},
		{"save under a file", []string{"--save", filepath.Join(file, "none")}, false, want{"bad_dir", "not a directory; nothing was sent to the tab"}},
		{"save missing, under hidden", []string{"--save", filepath.Join(hidden, "new")}, false, want{"bad_dir", `hidden files and folders are not written to (".config")`}},
		{"save into a file", []string{"--save", file}, false, want{"bad_dir", "not a directory"}},
		{"save hidden", []string{"--save", hidden}, false, want{"bad_dir", `hidden files and folders are not written to (".config")`}},
		{"save under hidden", []string{"--save", filepath.Join(hidden, "..", ".config")}, false, want{"bad_dir", "hidden files and folders"}},
		{"save linked to hidden", []string{"--save", linkToHidden}, true, want{"bad_dir", `links to ` + strconv.Quote(hidden) + `: hidden files and folders are not written to`}},
		{"save that cannot be made", []string{"--save", "/proc/nope/out"}, false, want{"bad_dir", "nothing was sent to the tab"}},
		{"both fine", []string{"--save", sub, "--out", filepath.Join(sub, "x.png")}, false, want{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.links && !haveLinks {
				t.Skip("no symlinks here")
			}
			if tt.argv[1] == "new.png" {
				t.Chdir(dir)
			}
			a := mustParse(t, append([]string{"call", "x"}, tt.argv...)...)
			err := checkTargets(a)
			if tt.want.code == "" {
				if err != nil {
					t.Errorf("checkTargets(%q) = %v, want nil", tt.argv, err)
				}
				return
			}
			wantClientError(t, "checkTargets("+strings.Join(tt.argv, " ")+")", err, 1, tt.want.code, tt.want.msg)
		})
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Errorf("checkTargets changed %s to %q", file, b)
	}
}

// saved runs saveFiles on reply into a fresh folder inside a fresh root,
// and returns the folder, the printed reply decoded, ns and stderr.
func saved(t *testing.T, reply string, textFile string, overwrite bool, prepare func(dir string)) (dir string, out map[string]any, raw []byte, ns *notSaved, stderr string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(dir)
	}
	var se bytes.Buffer
	raw, ns = saveFilesBytes([]byte(reply), dir, textFile, overwrite, ui.NewLogger(&se))
	if got := listDir(t, root); !slices.Equal(got, []string{"out"}) {
		t.Errorf("saveFiles(%.200s) left %q beside the folder, want nothing", reply, got)
	}
	if !json.Valid(raw) {
		t.Fatalf("saveFiles(%.200s) printed %q, not JSON", reply, raw)
	}
	json.Unmarshal(raw, &out)
	return dir, out, raw, ns, se.String()
}

func entries(t *testing.T, out map[string]any) []map[string]any {
	t.Helper()
	list, ok := out["files"].([]any)
	if !ok {
		t.Fatalf("printed files = %v, want a list", out["files"])
	}
	var es []map[string]any
	for _, e := range list {
		m, _ := e.(map[string]any)
		es = append(es, m)
	}
	return es
}

// Names a page may choose to escape the folder, hide a file, plant a
// script or confuse another OS. Each file is saved in the folder under a
// name the bridge built (issue 35), or refused by its bytes, and stderr
// never repeats a name.
func TestSaveFilesHostileNames(t *testing.T) {
	hostile := []struct {
		name string
		data []byte
	}{
		{"../x.png", pngData},
		{"../../x.dst", dstData},
		{"..", dstData},
		{".", dstData},
		{".bashrc", []byte("evil")},
		{".x.dst", dstData},
		{"a/b.dst", dstData},
		{"/etc/x.png", pngData},
		{`C:\x.png`, pngData},
		{"C:x.dst", dstData},
		{`..\x.dst`, dstData},
		{"x.dst:stream", dstData},
		{"x\x00.dst", dstData},
		{"x\n.dst", dstData},
		{"x\x1b[2J.dst", dstData},
		{"x\u0085.dst", dstData},
		{"x\u009b2J.dst", dstData},
		{"evil\u202Egnp.exe", []byte("MZ")},
		{"report\u202Efdp.dst", dstData},
		{"a\u200bb.dst", dstData},
		{"\ufeffx.dst", dstData},
		{"x\u2028.dst", dstData},
		{"x\uf022.dst", dstData},
		{"x\u0378.dst", dstData},
		{" x.dst", dstData},
		{"x.sh", []byte("rm -rf ~")},
		{"x.exe", []byte("MZ")},
		{"x.bat", []byte("del")},
		{"x.ps1", []byte("rm")},
		{"x.desktop", []byte("[Desktop Entry]")},
		{"Makefile", []byte("all:")},
		{"x.png", []byte("#!/bin/sh")},
		{"x.dst.", dstData},
		{"x.dst ", dstData},
		{"CON.dst", dstData},
		{"nul.txt", []byte("x")},
		{"", dstData},
		{strings.Repeat("a", 252) + ".dst", dstData},
	}
	built := regexp.MustCompile(`^[a-z0-9]([a-z0-9_-]*[a-z0-9])?\.stitchslop\.(png|dst|txt)$`)
	// One reply saves at most files.MaxSaved files: the names go in replies
	// of fewer.
	for len(hostile) > 0 {
		batch := hostile[:min(len(hostile), files.MaxSaved)]
		hostile = hostile[len(batch):]
		var list []any
		for _, h := range batch {
			list = append(list, map[string]any{"name": h.name, "dataUrl": dataURL("application/octet-stream", h.data)})
		}
		reply, _ := json.Marshal(map[string]any{"ok": true, "files": list})
		dir, out, raw, ns, stderr := saved(t, string(reply), "", false, nil)
		if strings.Contains(string(raw), "base64") {
			t.Errorf("saveFiles printed base64: %.300s", raw)
		}
		for i, e := range entries(t, out) {
			why, _ := e["error"].(string)
			to, _ := e["savedTo"].(string)
			switch {
			case why != "":
				// Refused by its bytes: a PNG name on a script, or binary
				// bytes under no kind of the app's.
				if !strings.Contains(why, "its bytes are no") || to != "" {
					t.Errorf("saveFiles entry %q = %v, want it refused by its bytes", batch[i].name, e)
				}
			case filepath.Dir(to) != dir || !built.MatchString(filepath.Base(to)):
				t.Errorf("saveFiles entry %q = %v, want it saved in %s under a built name", batch[i].name, e, dir)
			}
		}
		for _, n := range listDir(t, dir) {
			if !built.MatchString(n) {
				t.Errorf("saveFiles wrote %q, a name the bridge does not build", n)
			}
		}
		if ns == nil || ns.refused == len(batch) {
			t.Errorf("saveFiles = %+v, want some saved and some refused", ns)
		}
		if strings.ContainsAny(stderr, "\x1b\u0085\u009b\u202e\u200b\ufeff\u2028\uf022") || strings.Contains(stderr, "bashrc") {
			t.Errorf("saveFiles stderr %q, want no name from the tab", stderr)
		}
	}
}

func TestSaveFiles(t *testing.T) {
	png := dataURL("image/png", pngData)
	dst := dataURL("application/octet-stream", dstData)
	entry := func(name, url string) string { return `{"name":"` + name + `","dataUrl":"` + url + `"}` }
	tests := []struct {
		name      string
		reply     string
		textFile  string
		overwrite bool
		prepare   func(dir string)
		files     map[string]string // what dir holds after
		refused   int               // 0: ns nil
		check     func(t *testing.T, out map[string]any, raw []byte)
		stderr    string
	}{
		{
			name:  "two files, order and members kept",
			reply: `{"ok":true,"say":"Exported.","files":[` + entry("a.png", png) + `,{"dataUrl":"` + dst + `","name":"b.dst","colours":3}],"z":1}`,
			files: map[string]string{"a.stitchslop.png": string(pngData), "b.stitchslop.dst": string(dstData)},
			check: func(t *testing.T, out map[string]any, raw []byte) {
				want := `{"ok":true,"say":"Exported.","files":[{"savedTo":"SAVED/a.stitchslop.png","savedBytes":16,"name":"a.png"},{"savedTo":"SAVED/b.stitchslop.dst","savedBytes":5,"name":"b.dst","colours":3}],"z":1}`
				if string(raw) != want {
					t.Errorf("saveFiles printed\n%s\nwant\n%s", raw, want)
				}
			},
			stderr: `saved 16 bytes to "SAVED/a.stitchslop.png" (files[0])`,
		},
		{
			name:  "page's savedTo, savedBytes and error dropped",
			reply: `{"files":[{"name":"a.dst","dataUrl":"` + dst + `","savedTo":"/etc/passwd","savedBytes":99,"error":"none"},{"name":"../b.dst","dataUrl":"` + dst + `","savedTo":"/etc/passwd","savedBytes":1}],"textSavedTo":"/etc/shadow","textError":"x"}`,
			files: map[string]string{"a.stitchslop.dst": string(dstData), "b.stitchslop.dst": string(dstData)},
			check: func(t *testing.T, out map[string]any, raw []byte) {
				want := `{"files":[{"savedTo":"SAVED/a.stitchslop.dst","savedBytes":5,"name":"a.dst"},{"savedTo":"SAVED/b.stitchslop.dst","savedBytes":5,"name":"../b.dst"}]}`
				if string(raw) != want {
					t.Errorf("saveFiles printed\n%s\nwant\n%s", raw, want)
				}
			},
			stderr: "--save: 2 of the files saved are not under the name they were given",
		},
		{
			name:  "upper-case duplicate",
			reply: `{"files":[` + entry("a.dst", dst) + `,` + entry("A.DST", dst) + `,` + entry("a.dst", dst) + `]}`,
			files: map[string]string{"a.stitchslop.dst": string(dstData), "a-2.stitchslop.dst": string(dstData), "a-3.stitchslop.dst": string(dstData)},
		},
		{
			name:      "upper-case duplicate, overwrite",
			reply:     `{"files":[` + entry("a.dst", dst) + `,` + entry("A.dst", dataURL("x", []byte("second"))) + `]}`,
			overwrite: true,
			files:     map[string]string{"a.stitchslop.dst": string(dstData), "a-2.stitchslop.dst": "second"},
		},
		{
			// macOS takes these as one file; Linux would write both.
			name:      "Unicode-form and case duplicates, overwrite",
			reply:     `{"files":[` + entry("\u00fcber.dst", dst) + `,` + entry("u\u0308ber.dst", dataURL("x", []byte("second"))) + `,` + entry("U\u0308BER.DST", dataURL("x", []byte("third"))) + `]}`,
			overwrite: true,
			files:     map[string]string{"ber.stitchslop.dst": string(dstData), "uber.stitchslop.dst": "second", "uber-2.stitchslop.dst": "third"},
		},
		{
			name:     "text under a file's name in another Unicode form",
			reply:    `{"text":"hello","files":[` + entry("\u00fcber.json", dataURL("x", []byte(`"file"`))) + `]}`,
			textFile: "U\u0308BER.txt",
			files:    map[string]string{"ber.stitchslop.json": `"file"`, "uber.stitchslop.txt": "hello"},
		},
		{
			name:    "exists",
			reply:   `{"files":[` + entry("a.dst", dst) + `]}`,
			prepare: func(dir string) { os.WriteFile(filepath.Join(dir, "a.stitchslop.dst"), []byte("mine"), 0o644) },
			files:   map[string]string{"a.stitchslop.dst": "mine"},
			check: func(t *testing.T, out map[string]any, raw []byte) {
				if e := entries(t, out)[0]; !strings.HasSuffix(e["error"].(string), "already exists; pass --overwrite to replace it") {
					t.Errorf("saveFiles over a file = %v, want already exists, --overwrite", e)
				}
			},
			refused: 1,
		},
		{
			name:      "exists, overwrite",
			reply:     `{"files":[` + entry("a.dst", dst) + `]}`,
			overwrite: true,
			prepare:   func(dir string) { os.WriteFile(filepath.Join(dir, "a.stitchslop.dst"), []byte("mine"), 0o644) },
			files:     map[string]string{"a.stitchslop.dst": string(dstData)},
		},
		{
			name:  "a symlink is not written through",
			reply: `{"files":[` + entry("a.dst", dst) + `]}`,
			prepare: func(dir string) {
				os.Symlink(filepath.Join(dir, "..", "target.stitchslop.dst"), filepath.Join(dir, "a.stitchslop.dst"))
			},
			files:   map[string]string{"a.stitchslop.dst": "LINK"},
			refused: 1,
		},
		{
			name:  "bad entries",
			reply: `{"files":["` + png + `",7,null,{"name":"a.dst"},{"name":"b.dst","dataUrl":3},{"name":"c.dst","dataUrl":"https://x/c.dst"},{"name":"d.dst","dataUrl":"data:x;base64,@@@"},{"name":"e.dst","dataUrl":"data:x,plain"},{"name":7,"dataUrl":"` + dst + `"}]}`,
			files: map[string]string{},
			check: func(t *testing.T, out map[string]any, raw []byte) {
				whys := []string{"it is not an object", "it is not an object", "it is not an object", "it carries no dataUrl",
					"its dataUrl is not a string", "not a data URL", "bad base64", "is not ;base64,", "its bytes are no image"}
				es := entries(t, out)
				if len(es) != len(whys) {
					t.Fatalf("saveFiles printed %d entries, want %d", len(es), len(whys))
				}
				for i, why := range whys {
					if s, _ := es[i]["error"].(string); !strings.Contains(s, why) {
						t.Errorf("saveFiles files[%d] = %v, want error %q", i, es[i], why)
					}
				}
				if strings.Contains(string(raw), "data:") {
					t.Errorf("saveFiles printed a data URL: %s", raw)
				}
			},
			refused: 9,
		},
		{
			name:    "not a list",
			reply:   `{"ok":true,"files":"a.dst"}`,
			files:   map[string]string{},
			check:   wantRaw(`{"ok":true,"files":"a.dst"}`),
			refused: 1,
			stderr:  "warning: --save: files was not saved: it is not a list",
		},
		{
			name:   "empty list",
			reply:  `{"ok":true,"files":[]}`,
			files:  map[string]string{},
			check:  wantRaw(`{"ok":true,"files":[]}`),
			stderr: "warning: --save: the reply carries no files and no text; nothing was written",
		},
		{
			name:   "no files, the reply's members kept as they came",
			reply:  `{"ok": true, "n": 1.50}`,
			files:  map[string]string{},
			check:  wantRaw(`{"ok":true,"n":1.50}`),
			stderr: "the reply carries no files and no text",
		},
		{
			name:   "no files but text",
			reply:  `{"ok":true,"text":"hello"}`,
			files:  map[string]string{},
			check:  wantRaw(`{"ok":true,"text":"hello"}`),
			stderr: "--text-file NAME would save it",
		},
		{
			name:  "failed reply saved all the same",
			reply: `{"ok":false,"error":"partial","files":[` + entry("a.dst", dst) + `]}`,
			files: map[string]string{"a.stitchslop.dst": string(dstData)},
		},
		{
			name:     "text",
			reply:    `{"ok":true,"text":"Three colours.\n","files":[` + entry("a.dst", dst) + `]}`,
			textFile: "notes.txt",
			files:    map[string]string{"a.stitchslop.dst": string(dstData), "notes.stitchslop.txt": "Three colours.\n"},
			check: func(t *testing.T, out map[string]any, raw []byte) {
				want := `{"ok":true,"files":[{"savedTo":"SAVED/a.stitchslop.dst","savedBytes":5,"name":"a.dst"}],"textSavedTo":"SAVED/notes.stitchslop.txt"}`
				if string(raw) != want {
					t.Errorf("saveFiles printed\n%s\nwant\n%s", raw, want)
				}
			},
			stderr: `saved the text, 15 bytes, to "SAVED/notes.stitchslop.txt"`,
		},
		{
			name:     "text over a page's textSavedTo",
			reply:    `{"text":"x","textSavedTo":"/etc/passwd","textError":"no"}`,
			textFile: "notes.md",
			files:    map[string]string{"notes.stitchslop.md": "x"},
			check:    wantRaw(`{"textSavedTo":"SAVED/notes.stitchslop.md"}`),
		},
		{
			name:     "text named as an image",
			reply:    `{"text":"not a picture"}`,
			textFile: "notes.png",
			files:    map[string]string{},
			check:    wantRaw(`{"text":"not a picture","textError":"its bytes are not image/png"}`),
			refused:  1,
		},
		{
			name:     "text named as a script",
			reply:    `{"text":"rm -rf ~"}`,
			textFile: "notes.sh",
			files:    map[string]string{"notes.stitchslop.txt": "rm -rf ~"},
		},
		{
			name:     "text named as a device",
			reply:    `{"text":"x"}`,
			textFile: "aux.txt",
			files:    map[string]string{"aux-2.stitchslop.txt": "x"},
		},
		{
			name:     "text named as a file of the reply",
			reply:    `{"text":"[1]","files":[{"name":"Notes.json","dataUrl":"` + dataURL("application/json", []byte(`"page"`)) + `"}]}`,
			textFile: "notes.json",
			files:    map[string]string{"notes.stitchslop.json": `"page"`, "notes-2.stitchslop.json": "[1]"},
		},
		{
			name:     "text exists",
			reply:    `{"text":"new"}`,
			textFile: "notes.txt",
			prepare:  func(dir string) { os.WriteFile(filepath.Join(dir, "notes.stitchslop.txt"), []byte("old"), 0o644) },
			files:    map[string]string{"notes.stitchslop.txt": "old"},
			refused:  1,
		},
		{
			name:     "no text",
			reply:    `{"ok":true,"text":7,"textSavedTo":"/etc/passwd"}`,
			textFile: "notes.txt",
			files:    map[string]string{},
			check:    wantRaw(`{"ok":true,"text":7}`),
			stderr:   "warning: --text-file: the reply carries no text; nothing was written for it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, out, raw, ns, stderr := saved(t, tt.reply, tt.textFile, tt.overwrite, tt.prepare)
			// The folder, the test's own, is written SAVED.
			raw = bytes.ReplaceAll(raw, []byte(dir), []byte("SAVED"))
			stderr = strings.ReplaceAll(stderr, dir, "SAVED")
			got := map[string]string{}
			for _, n := range listDir(t, dir) {
				b, err := os.ReadFile(filepath.Join(dir, n))
				if err != nil {
					b = []byte("LINK")
				}
				got[n] = string(b)
			}
			if len(got) != len(tt.files) {
				t.Errorf("saveFiles(%.100s) wrote %q, want %q", tt.reply, got, tt.files)
			}
			for n, want := range tt.files {
				if got[n] != want {
					t.Errorf("saveFiles(%.100s): %s holds %q, want %q", tt.reply, n, got[n], want)
				}
			}
			switch {
			case tt.refused == 0 && ns != nil:
				t.Errorf("saveFiles(%.100s) = %+v, want nothing refused", tt.reply, ns)
			case tt.refused > 0 && (ns == nil || ns.refused != tt.refused):
				t.Errorf("saveFiles(%.100s) = %+v, want %d refused", tt.reply, ns, tt.refused)
			}
			if tt.check != nil {
				tt.check(t, out, raw)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("saveFiles(%.100s) stderr %q, want %q", tt.reply, stderr, tt.stderr)
			}
		})
	}
}

func wantRaw(want string) func(t *testing.T, out map[string]any, raw []byte) {
	return func(t *testing.T, out map[string]any, raw []byte) {
		t.Helper()
		if string(raw) != want {
			t.Errorf("saveFiles printed %s, want %s", raw, want)
		}
	}
}

// A page cannot fill a folder: past 32 files, each entry is refused.
func TestSaveFilesAtMost32(t *testing.T) {
	var list []any
	for i := range 34 {
		list = append(list, map[string]any{"name": fmt.Sprintf("f%02d.dst", i), "dataUrl": dataURL("x", dstData)})
	}
	reply, _ := json.Marshal(map[string]any{"files": list})
	dir, out, _, ns, _ := saved(t, string(reply), "", false, nil)
	if got := listDir(t, dir); len(got) != 32 || got[31] != "f31.stitchslop.dst" {
		t.Errorf("saveFiles of 34 files wrote %d: %q, want f00.stitchslop.dst to f31.stitchslop.dst", len(got), got)
	}
	es := entries(t, out)
	if ns == nil || ns.refused != 2 || es[32]["name"] != "f32.dst" || es[33]["error"] != "one reply may save at most 32 files" {
		t.Errorf("saveFiles of 34 files = %+v, %v; want the last 2 refused, saying why", ns, es[32:])
	}
}

func TestNotSaved(t *testing.T) {
	ns := &notSaved{refused: 2, tried: 3}
	if got, want := ns.Error(), "--save: 2 of the reply's 3 files were not saved; the printed reply says why in their error members"; got != want {
		t.Errorf("notSaved.Error() = %q, want %q", got, want)
	}
}

// call --save through Main: the reply is printed whole, refusals and all,
// and the exit is 1 when anything was refused.
func TestCallSave(t *testing.T) {
	reply := `{"ok":true,"files":[{"name":"x.png","dataUrl":"` + dataURL("image/png", []byte("#!/bin/sh")) + `"},{"name":"ok.dst","dataUrl":"` + dataURL("x", dstData) + `"}],"text":"hi"}`
	dir := fakeBridge(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, reply) })
	out := t.TempDir()
	code, doc, stderr := run(t, dir, "call", "design.export", "--save", out, "--text-file", "notes.txt")
	if code != 1 || !strings.Contains(stderr, "error: --save: 1 of the reply's 3 files were not saved") {
		t.Errorf("call --save with a script named x.png = %d, %q; want 1 and why", code, stderr)
	}
	if doc["ok"] != true || doc["textSavedTo"] != filepath.Join(out, "notes.stitchslop.txt") || doc["text"] != nil {
		t.Errorf("call --save printed %v, want the reply with textSavedTo", doc)
	}
	if got := listDir(t, out); !slices.Equal(got, []string{"notes.stitchslop.txt", "ok.stitchslop.dst"}) {
		t.Errorf("call --save wrote %q, want notes.stitchslop.txt and ok.stitchslop.dst", got)
	}
	// Nothing refused, but the tab says ok:false: exit 1 as without --save.
	reply = `{"ok":false,"error":"busy","message":"Busy."}`
	if code, doc, _ := run(t, dir, "call", "design.export", "--save", out); code != 1 || doc["error"] != "busy" {
		t.Errorf("call --save with ok:false = %d, %v; want 1 and the reply", code, doc)
	}
}

// --out: a page that sends no image cannot say one was saved.
func TestSaveImageDropsPageSavedMembers(t *testing.T) {
	for _, reply := range []string{
		`{"ok":true,"savedTo":"/etc/passwd","savedBytes":1,"savedType":"image/png"}`,
		`{"ok":true,"dataUrl":"https://x/y.png","savedTo":"/etc/passwd"}`,
	} {
		dir, out, _, err := save(t, []byte(reply))
		if err != nil || strings.Contains(string(out), "saved") || len(listDir(t, dir)) != 0 {
			t.Errorf("saveImage(%s) = %s, %v; want no saved* member and nothing written", reply, out, err)
		}
	}
}

// --out without --overwrite, when FILE appears during the call: it is not
// replaced, and no temp file is left.
func TestSaveImageNoClobber(t *testing.T) {
	dir := t.TempDir()
	file := writeTestFile(t, filepath.Join(dir, "out.png"), []byte("mine"))
	_, err := saveImageBytes([]byte(`{"dataUrl":"`+dataURL("image/png", pngData)+`"}`), file, false, slog.New(slog.DiscardHandler))
	wantClientError(t, "saveImage over a file", err, 1, "file_exists", "appeared while the call ran; it was not replaced")
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Errorf("saveImage without overwrite replaced the file with %q", b)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"out.png"}) {
		t.Errorf("saveImage left %q, want out.png alone", got)
	}
	if _, err := saveImageBytes([]byte(`{"dataUrl":"`+dataURL("image/png", pngData)+`"}`), file, true, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("saveImage with overwrite = %v", err)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, pngData) {
		t.Errorf("saveImage with overwrite wrote %q, want the image", b)
	}
}

// A files entry at the door's bound of members, which gains one when
// saved, is saved and reported: the report is written beside the reply's
// members, not read by the door again (an outside attack met a refusal of
// the bridge's own rewrite).
func TestSaveFilesAtTheMemberBound(t *testing.T) {
	entry := []byte(`{"name":"a.dst","dataUrl":"` + dataURL("application/octet-stream", dstData) + `"`)
	for i := range gate.MaxMembers - 2 {
		entry = fmt.Appendf(entry, `,"k%d":0`, i)
	}
	reply := `{"ok":true,"files":[` + string(entry) + `}]}`
	dir := t.TempDir()
	var se bytes.Buffer
	out, ns := saveFilesBytes([]byte(reply), dir, "", false, ui.NewLogger(&se))
	if !bytes.Contains(out, []byte(`"savedBytes":5,`)) || ns != nil {
		t.Fatalf("saveFiles(an entry of %d members) = %.200s, %v; want a.dst saved and reported", gate.MaxMembers, out, ns)
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("saveFiles(an entry of %d members) wrote %q, want a.dst", gate.MaxMembers, names)
	}
}
