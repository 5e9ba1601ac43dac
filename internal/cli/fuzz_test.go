package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/fuzzseed"
)

func TestFuzzStreamEnvelopeSeeds(t *testing.T) { fuzzseed.Require(t, "FuzzStreamEnvelope") }

// FuzzStreamEnvelope: whatever reply the bridge relays from a page,
// saveImage either refuses it and leaves no file at all, temp files
// included, or prints the envelope as encoding/json reads it, with any image
// written being exactly the base64 payload of its dataUrl.
func FuzzStreamEnvelope(f *testing.F) {
	f.Fuzz(func(t *testing.T, reply []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.png")
		out, err := saveImage(bytes.NewReader(reply), path, false, slog.New(slog.DiscardHandler))
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
		o, err := envelope.Parse(reply)
		if err != nil {
			t.Fatalf("saveImage(%q) accepted what envelope.Parse refuses: %v", reply, err)
		}
		want, _ := json.Marshal(o)

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
		im, ok := envelope.DataURL(s)
		if !ok {
			t.Fatalf("saveImage(%q) wrote a file, but dataUrl is not a base64 data URL", reply)
		}
		// Line breaks are skipped; missing padding is allowed.
		payload := strings.NewReplacer("\r", "", "\n", "").Replace(im.B64)
		payload += strings.Repeat("=", (4-len(payload)%4)%4)
		img, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			t.Fatalf("saveImage(%q) wrote a file, but the payload is not base64: %v", reply, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, img) {
			t.Fatalf("saveImage(%q) wrote %x (%v), want %x", reply, got, err, img)
		}
		want, _ = json.Marshal(without(o, "dataUrl").With("savedTo", path).With("savedBytes", len(img)).With("savedType", im.MIME))
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
