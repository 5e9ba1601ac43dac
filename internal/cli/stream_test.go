package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/exitcode"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// save runs saveImage on reply with FILE out.png in a fresh directory, and
// returns that directory, the printed envelope and what went to stderr.
func save(t *testing.T, reply []byte) (dir string, out []byte, stderr string, err error) {
	t.Helper()
	dir = t.TempDir()
	var se bytes.Buffer
	out, err = saveImageBytes(reply, filepath.Join(dir, "out.png"), false, ui.NewLogger(&se))
	return dir, out, se.String(), err
}

// listDir lists dir, temp files included.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestSaveImage(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		file  []byte // nil: no file
		out   string // the printed envelope; savedTo is written as SAVED
	}{
		{
			"order kept, saved* appended",
			`{"z":1, "ok":true, "dataUrl":"data:image/png;base64,` + pngB64 + `AAEC", "a":[1, {"b":"}"}], "m":"x\"y"}` + "\n",
			withPNG(0, 1, 2),
			`{"z":1,"ok":true,"a":[1, {"b":"}"}],"m":"x\"y","savedTo":SAVED,"savedBytes":15,"savedType":"image/png"}`,
		},
		{
			"mime parameters dropped",
			`{"dataUrl":"data:image/png;charset=utf-8;base64,` + pngB64 + `"}`,
			withPNG(),
			`{"savedTo":SAVED,"savedBytes":12,"savedType":"image/png"}`,
		},
		{
			"not a data URL",
			`{"ok":true,"dataUrl":"https:\/\/example.com\/x.png","n":2}`,
			nil,
			`{"ok":true,"dataUrl":"https:\/\/example.com\/x.png","n":2}`,
		},
		{
			"not base64",
			`{"dataUrl":"data:image/png,AAAA"}`,
			nil,
			`{"dataUrl":"data:image/png,AAAA"}`,
		},
		{
			"no comma",
			`{"dataUrl":"data:image/png;base64"}`,
			nil,
			`{"dataUrl":"data:image/png;base64"}`,
		},
		{
			"not a string",
			`{"dataUrl":{"src":"data:image/png;base64,AAAA"}}`,
			nil,
			`{"dataUrl":{"src":"data:image/png;base64,AAAA"}}`,
		},
		{
			"nested dataUrl is not the image",
			`{"ok":true,"result":{"dataUrl":"data:image/png;base64,AAAA"}}`,
			nil,
			`{"ok":true,"result":{"dataUrl":"data:image/png;base64,AAAA"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, out, stderr, err := save(t, []byte(tt.reply))
			if err != nil {
				t.Fatalf("saveImage(%q) = %v", tt.reply, err)
			}
			path := filepath.Join(dir, "out.png")
			saved, _ := json.Marshal(path)
			if want := strings.Replace(tt.out, "SAVED", string(saved), 1); string(out) != want {
				t.Errorf("saveImage(%q) printed\n%s\nwant\n%s", tt.reply, out, want)
			}
			if tt.file == nil {
				if names := listDir(t, dir); len(names) != 0 {
					t.Errorf("saveImage(%q) left %q, want nothing written", tt.reply, names)
				}
				if !strings.Contains(stderr, "no image") || !strings.Contains(stderr, "nothing was written") {
					t.Errorf("saveImage(%q) stderr = %q, want a warning that there is no image", tt.reply, stderr)
				}
				return
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, tt.file) {
				t.Errorf("saveImage(%q) wrote %x (%v), want %x", tt.reply, got, err, tt.file)
			}
			if names := listDir(t, dir); len(names) != 1 {
				t.Errorf("saveImage(%q) left %q, want out.png alone", tt.reply, names)
			}
		})
	}
}

func TestSaveImageRefuses(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		code  string
		msg   string
	}{
		{"invalid base64", `{"ok":true,"dataUrl":"data:image/png;base64,AAAA!!!!AAAA"}`, "bad_image", "bad base64"},
		// No browser writes an escape in a data URL; reading one would take
		// a copy of it (envelope.EscapedDataURL).
		{"escaped slashes", `{"ok":true,"dataUrl":"data:image\/png;base64,` + pngB64 + `\/\/\/\/\u002B+++"}`, "bad_image", "JSON escape"},
		{"escape in the payload", `{"dataUrl":"data:image/png;base64,AA\tA"}`, "bad_image", "JSON escape"},
		{"a lone base64 character", `{"dataUrl":"data:image/png;base64,AAAAA"}`, "bad_image", "bad base64"},
		{"padding inside", `{"dataUrl":"data:image/png;base64,AA==AAAA"}`, "bad_image", "bad base64"},
		// One rule for a payload on every face (files.Base64): padded, no
		// line breaks, no bits past the data.
		{"unpadded", `{"ok":true,"dataUrl":"data:image/png;base64,` + pngB64 + `AAE"}`, "bad_image", "bad base64"},
		{"bits past the data", `{"ok":true,"dataUrl":"data:image/png;base64,` + pngB64 + `AAF="}`, "bad_image", "bad base64"},
		{"two dataUrls", `{"dataUrl":"data:image/png;base64,AAAA","dataUrl":"data:image/png;base64,AAEC"}`, "bad_reply", "names a member twice"},
		{"truncated after the image", `{"dataUrl":"data:image/png;base64,AAAA","ok":tr`, "bad_reply", "ends too soon"},
		{"truncated in the image", `{"dataUrl":"data:image/png;base64,AAAA`, "bad_reply", "ends too soon"},
		{"bad value after the image", `{"dataUrl":"data:image/png;base64,AAAA","ok":tru}`, "bad_reply", "not valid JSON"},
		{"raw control byte in the image", "{\"dataUrl\":\"data:image/png;base64,AA\nAA\"}", "bad_reply", "control character"},
		{"raw control byte after an escaped line break", "{\"dataUrl\":\"data:image/png;base64,\\r\x00\"}", "bad_reply", "control character"},
		{"bad escape in the image", `{"dataUrl":"data:image/png;base64,AA\xAA"}`, "bad_reply", "invalid escape"},
		{"bad \\u escape", `{"dataUrl":"data:image/png;base64,AA\u00GG"}`, "bad_reply", `invalid \u escape`},
		{"data after the object", `{"dataUrl":"data:image/png;base64,AAAA"} {}`, "bad_reply", "data follows"},
		{"not an object", `["data:image/png;base64,AAAA"]`, "bad_reply", "does not start with {"},
		{"empty", ``, "bad_reply", "ends too soon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, out, _, err := save(t, []byte(tt.reply))
			var ce *client.Error
			if !errors.As(err, &ce) || ce.Exit != exitcode.Failed || ce.Code != tt.code || !strings.Contains(ce.Msg, tt.msg) {
				t.Fatalf("saveImage(%q) = %q, %v; want exit 1, code %s, a message with %q", tt.reply, out, err, tt.code, tt.msg)
			}
			if !strings.HasSuffix(ce.Msg, "nothing was written") {
				t.Errorf("saveImage(%q) message %q does not say nothing was written", tt.reply, ce.Msg)
			}
			if names := listDir(t, dir); len(names) != 0 {
				t.Errorf("saveImage(%q) left %q, want no file and no temp file", tt.reply, names)
			}
		})
	}
}

// A failed save leaves an earlier FILE whole.
func TestSaveImageKeepsEarlierFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.png")
	if err := os.WriteFile(path, []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := saveImageBytes([]byte(`{"dataUrl":"data:image/png;base64,AAAA!!!!"}`), path, true, slog.New(slog.DiscardHandler))
	if err == nil {
		t.Fatal("saveImage of invalid base64 = nil error")
	}
	if got, _ := os.ReadFile(path); string(got) != "earlier" {
		t.Errorf("%s = %q after a failed save, want %q", path, got, "earlier")
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("failed save left %q, want out.png alone", names)
	}
}

// A reply at the door's bound of members is saved and reported all the
// same: what --out wrote goes beside the reply's members, written once by
// the shell's encoder, never read by the door again, so nothing the bridge
// adds can make the door refuse it (an outside attack met a refusal of the
// bridge's own rewrite).
func TestSaveImageAtTheMemberBound(t *testing.T) {
	reply := []byte(`{"dataUrl":"data:image/png;base64,` + pngB64 + `"`)
	for i := range gate.MaxMembers - 1 {
		reply = fmt.Appendf(reply, `,"k%d":0`, i)
	}
	dir, out, _, err := save(t, append(reply, '}'))
	if err != nil || !bytes.Contains(out, []byte(`"savedType":"image/png"}`)) {
		t.Fatalf("saveImage(%d members) = %.80q…, %v; want the image saved and reported", gate.MaxMembers, out, err)
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("saveImage(%d members) left %q, want out.png", gate.MaxMembers, names)
	}
}

func TestSaveImageRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.png")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	// Even with overwrite the link is refused, as --save refuses one: only
	// a regular file is replaced (THREAT_MODEL A5), and nothing is written
	// through a link.
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	if _, err := saveImageBytes([]byte(`{"dataUrl":"data:image/png;base64,`+png+`"}`), link, true, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Fatalf("saveImage over a symlink = %v, want it refused", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("out.png after saveImage = %v, %v; want the link left", fi, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("symlink target = %q, want it untouched", got)
	}
	if names := listDir(t, dir); len(names) != 2 {
		t.Errorf("refused save left %q, want target and out.png alone", names)
	}
}

// A multi-megabyte image goes to the file whole, through escapes. The
// image is never copied: what saveImage allocates does not show the
// image's size when its dataUrl holds no escape, as a page writes it.
func TestSaveImageLarge(t *testing.T) {
	const size = 8 << 20
	img := make([]byte, size)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img {
		img[i] = byte(rng.Uint32())
	}
	copy(img, pngSig)
	b64 := base64.StdEncoding.EncodeToString(img)
	{
		reply := []byte(`{"ok":true,"width":4096,"dataUrl":"data:image/png;base64,` + b64 + `","height":2048}`)

		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		dir, out, _, err := save(t, reply)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("saveImage of %d bytes = %v", size, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("saveImage of a %d-byte image allocated %d bytes, want well under the image's size", size, alloc)
		}
		got, err := os.ReadFile(filepath.Join(dir, "out.png"))
		if err != nil || !bytes.Equal(got, img) {
			t.Fatalf("saveImage wrote %d bytes (%v), want the %d-byte image", len(got), err, size)
		}
		var d map[string]any
		if err := json.Unmarshal(out, &d); err != nil || d["savedBytes"] != float64(size) || d["width"] != float64(4096) || d["height"] != float64(2048) {
			t.Errorf("saveImage printed %s (%v), want savedBytes %d beside width and height", out, err, size)
		}
	}
}

// pngB64 is the base64 of pngSig, a PNG's first 12 bytes: an --out named
// out.png takes only a PNG (security/files.CheckOut).
const pngB64 = "iVBORw0KGgoAAAAN"

var pngSig = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0d")

func withPNG(b ...byte) []byte { return append(append([]byte{}, pngSig...), b...) }

// TestSaveImageOnlyWhatItIs: --out never puts a page's HTML, an empty
// file or a mislabelled image in place (issue 19).
func TestSaveImageOnlyWhatItIs(t *testing.T) {
	for _, reply := range []string{
		`{"ok":true,"dataUrl":"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="}`,
		`{"ok":true,"dataUrl":"data:image/png;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="}`,
		// Issue 35 F1: a design's bytes never become FILE, whatever it claims.
		`{"ok":true,"dataUrl":"data:application/json;base64,eyJzY3JpcHRzIjp7fX0="}`,
		`{"dataUrl":"data:image/png;base64,"}`,
	} {
		dir, _, _, err := save(t, []byte(reply))
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Code != "not_an_image" {
			t.Errorf("saveImage(%.80s) = %v, want not_an_image", reply, err)
		}
		if names := listDir(t, dir); len(names) != 0 {
			t.Errorf("saveImage(%.80s) left %q", reply, names)
		}
	}
}

// TestSec_OutSavedTypeIsWhatTheBytesAre: savedType says what the bytes
// written were checked to be, in the bridge's words, never the type the
// page's data URL claimed, which is the page's words, of any length
// ("text/html-ignore-previous-instructions").
func TestSec_OutSavedTypeIsWhatTheBytesAre(t *testing.T) {
	for _, claim := range []string{"text/html-ignore-previous-instructions", "image/PNG", "image/x-" + strings.Repeat("a", 5000)} {
		reply := `{"ok":true,"dataUrl":"data:` + claim + `;base64,` + pngB64 + `AAEC"}`
		_, out, _, err := save(t, []byte(reply))
		if err != nil {
			t.Fatalf("--out of a PNG claimed as %.40q: %v", claim, err)
		}
		var o map[string]any
		if err := json.Unmarshal(out, &o); err != nil || o["savedType"] != "image/png" {
			t.Errorf("--out of a PNG claimed as %.40q printed %.300s, want savedType image/png", claim, out)
		}
	}
}
