package replyfiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/files"
)

func TestAttachFiles(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "rose.dst")
	svg := filepath.Join(dir, "c.svg")
	if err := os.WriteFile(dst, []byte("LA:"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(svg, []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := []Attach{{Path: dst, Arg: "design", NameArg: "name"}, {Path: svg, Arg: "side.data", Mode: files.Text}}
	list[1].Shown = "the sidecar"
	got, sent, err := AttachFiles([]byte(`{"big":12345678901234567,"side":{"keep":1}}`), list, "args")
	want := `{"big":12345678901234567,"design":"data:application/octet-stream;base64,TEE6","name":"rose.dst","side":{"data":"<svg/>","keep":1}}`
	wantSent := `"rose.dst" (3 bytes, application/octet-stream) as design; "the sidecar" (6 bytes, image/svg+xml) as side.data`
	if err != nil || string(got) != want || sent != wantSent {
		t.Fatalf("AttachFiles = %s, %q, %v; want %s, %q", got, sent, err, want, wantSent)
	}
	if got, _, err := AttachFiles(nil, list[:1], "args"); err != nil || !strings.Contains(string(got), `"name":"rose.dst"`) {
		t.Errorf("AttachFiles(no args) = %s, %v; want the file in {}", got, err)
	}

	for _, tt := range []struct {
		args string
		list []Attach
		idx  int
		read bool
		want string
	}{
		{`[1]`, list, -1, false, "JSON-ARGS must be a JSON object"},
		{`{"a":1}`, []Attach{{Path: dst, Arg: "a.b"}}, 0, false, "JSON-ARGS has a number at a, not an object, so the file cannot go inside it"},
		{`{"a":{"b":null}}`, []Attach{{Path: dst, Arg: "x"}, {Path: dst, Arg: "a.b.c"}}, 1, false, "JSON-ARGS has null at a.b"},
		{`{}`, []Attach{{Path: dst, Arg: "a.b.c.d"}}, 0, false, "want 1 to 3 non-empty names"},
		{`{}`, []Attach{{Path: dst, Arg: ""}}, 0, false, "want 1 to 3 non-empty names"},
		{`{}`, []Attach{{Path: dst, Arg: "x", NameArg: "x.n"}}, 0, false, "has a string at x"},
		// A bad key after a refused file is found first: no file is read for nothing.
		{`{}`, []Attach{{Path: filepath.Join(dir, "none.dst"), Arg: "x"}, {Path: dst, Arg: "a..b"}}, 1, false, "want 1 to 3"},
		{`{}`, []Attach{{Path: dst, Arg: "x"}, {Path: filepath.Join(dir, "none.dst"), Arg: "y"}}, 1, true, "none.dst"},
		{`{}`, []Attach{{Path: dst, Arg: "x", Mode: files.Text}}, 0, true, "cannot be sent as text"},
	} {
		_, _, err := AttachFiles([]byte(tt.args), tt.list, "JSON-ARGS")
		var ae *AttachError
		if !errors.As(err, &ae) || ae.Index != tt.idx || ae.Read != tt.read || !strings.Contains(ae.Why, tt.want) || strings.HasPrefix(ae.Why, "files: ") {
			t.Errorf("AttachFiles(%s, %+v) = %#v; want index %d, read %v, reason containing %q", tt.args, tt.list, err, tt.idx, tt.read, tt.want)
		}
	}
}
