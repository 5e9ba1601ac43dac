package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/security/files"
)

// FuzzStreamEnvelope: whatever reply the bridge relays from a page,
// saveImage either refuses it and leaves no file at all, temp files
// included, or prints the envelope as encoding/json reads it, with any image
// written being exactly the base64 payload of its dataUrl.
func FuzzStreamEnvelope(f *testing.F) {
	f.Fuzz(func(t *testing.T, reply []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.png")
		out, err := saveImageBytes(reply, path, false, slog.New(slog.DiscardHandler))
		names := listDir(t, dir)
		if err != nil {
			if len(names) != 0 {
				t.Fatalf("saveImage(%q) = %v and left %q, want nothing written", reply, err, names)
			}
			return
		}

		// Accepted: the reply is a JSON object as encoding/json sees it.
		var members map[string]json.RawMessage
		if err := json.Unmarshal(reply, &members); err != nil || members == nil {
			t.Fatalf("saveImage(%q) accepted what encoding/json refuses: %v", reply, err)
		}
		o, err := parseObject(reply)
		if err != nil {
			t.Fatalf("saveImage(%q) accepted what the door refuses: %v", reply, err)
		}
		// None of the page's members named as the shell's own (protocol.md
		// §4.4: savedTo, savedBytes, savedType, textSavedTo, textError)
		// passes: each would say a file was saved, or of what type.
		for _, k := range []string{"savedTo", "savedBytes", "savedType", "textSavedTo", "textError"} {
			o = without(o, k)
		}
		want := o.AppendJSON(nil)

		if len(names) == 0 {
			if !bytes.Equal(out, want) {
				t.Fatalf("saveImage(%q) wrote nothing and printed %s, want the envelope %s", reply, out, want)
			}
			return
		}
		if len(names) != 1 || names[0] != "out.png" {
			t.Fatalf("saveImage(%q) left %q, want out.png alone", reply, names)
		}
		var s string
		if err := json.Unmarshal(members["dataUrl"], &s); err != nil {
			t.Fatalf("saveImage(%q) wrote a file, but dataUrl is not a string: %v", reply, err)
		}
		_, p, err := files.ParseDataURL([]byte(s))
		b64 := string(p)
		if err != nil {
			t.Fatalf("saveImage(%q) wrote a file, but dataUrl is not a base64 data URL", reply)
		}
		// One rule (files.Base64): what base64.StdEncoding writes, and
		// nothing else.
		img, err := base64.StdEncoding.Strict().DecodeString(b64)
		if err != nil || base64.StdEncoding.EncodeToString(img) != b64 {
			t.Fatalf("saveImage(%q) wrote a file, but the payload is not base64: %v", reply, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, img) {
			t.Fatalf("saveImage(%q) wrote %x (%v), want %x", reply, got, err, img)
		}
		// savedType is what the bytes were checked to be (out.png: a PNG),
		// whatever type the data URL claimed.
		want = without(o, "dataUrl").With("savedTo", path).With("savedBytes", len(img)).With("savedType", "image/png").AppendJSON(nil)
		if !bytes.Equal(out, want) {
			t.Fatalf("saveImage(%q) printed %s, want %s", reply, out, want)
		}
	})
}

// without is o minus the members named key: the old, parsed route's view.
func without(o envelope.Object, key string) envelope.Object {
	var out envelope.Object
	for _, m := range o {
		if m.Key != key {
			out = append(out, m)
		}
	}
	return out
}

// savable is every name a reply's file may be written under, written here
// from issue 35 and THREAT_MODEL.md T16, not from security/files: a stem
// of a-z, 0-9, - and _ that starts and ends with a letter or digit,
// .stitchslop, and the extension of an image, a design file or text.
var savable = regexp.MustCompile(`^[a-z0-9]([a-z0-9_-]*[a-z0-9])?\.stitchslop(\.(png|jpg|gif|webp|dst|pes|jef|exp|vp3|col|svg|dxf|json|txt|md|inf))?$`)

// FuzzSaveFiles: whatever reply a page sends, call --save writes only
// visible files under a name of savable's shape, directly in its folder
// and nowhere else, no two of them one file on macOS (one NFC case-folded
// form), each one named in the printed reply by a savedTo (or
// textSavedTo), and prints valid JSON.
func FuzzSaveFiles(f *testing.F) {
	f.Fuzz(func(t *testing.T, reply []byte, textFile string, overwrite bool) {
		root := t.TempDir()
		dir := filepath.Join(root, "out")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		out, ns := saveFilesBytes(reply, dir, textFile, overwrite, slog.New(slog.DiscardHandler))
		if !json.Valid(out) && json.Valid(reply) {
			t.Fatalf("saveFiles(%q) printed %q, not JSON", reply, out)
		}
		if names := listDir(t, root); len(names) != 1 || names[0] != "out" {
			t.Fatalf("saveFiles(%q, %q) wrote %q beside its folder", reply, textFile, names)
		}
		written := listDir(t, dir)
		for _, n := range written {
			fi, err := os.Lstat(filepath.Join(dir, n))
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 != 0 {
				t.Errorf("saveFiles(%q, %q) wrote %q (%v, %v), want a regular file, not executable", reply, textFile, n, fi.Mode(), err)
			}
			if !savable.MatchString(n) {
				t.Errorf("saveFiles(%q, %q) wrote %q, a name the bridge does not build", reply, textFile, n)
			}
		}
		keys := map[string]string{}
		for _, n := range written {
			k := norm.NFC.String(cases.Fold().String(norm.NFD.String(n)))
			if other, ok := keys[k]; ok {
				t.Errorf("saveFiles(%q, %q) wrote %q and %q, one file on macOS", reply, textFile, other, n)
			}
			keys[k] = n
		}
		if len(written) == 0 {
			return
		}
		// What was written is what the printed reply says was.
		o, err := parseObject(out)
		if err != nil {
			t.Fatalf("saveFiles(%q) wrote %q but printed %q, not an object", reply, written, out)
		}
		var said []string
		if p, ok := o.String("textSavedTo"); ok {
			said = append(said, p)
		}
		var list []map[string]json.RawMessage
		json.Unmarshal(o.Get("files"), &list)
		for _, e := range list {
			var p string
			if json.Unmarshal(e["savedTo"], &p) == nil {
				said = append(said, p)
			}
		}
		var want []string
		for _, n := range written {
			want = append(want, filepath.Join(dir, n))
		}
		slices.Sort(said)
		if !slices.Equal(said, want) {
			t.Errorf("saveFiles(%q, %q) wrote %q and printed %q; want each one said", reply, textFile, want, said)
		}
		if ns != nil && ns.refused == 0 {
			t.Errorf("saveFiles(%q) = %+v, want nil when nothing was refused", reply, ns)
		}
	})
}
