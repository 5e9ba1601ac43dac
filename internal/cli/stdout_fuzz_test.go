package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/fuzzseed"
)

func TestFuzzShellStdoutSeeds(t *testing.T) { fuzzseed.Require(t, "FuzzShellStdout") }

// loneSurrogate is an escape of half a UTF-16 pair with no other half
// after it: JSON by the grammar, refused by strict readers.
var loneSurrogate = regexp.MustCompile(`(?i)\\u(d[89ab][0-9a-f]{2}(\\u(d[c-f])?|[^\\]|$)|d[c-f][0-9a-f]{2})`)

// FuzzShellStdout is issue 27's invariant for the shell: whatever a bridge
// answers (any bytes, any status), every verb prints on stdout exactly one
// JSON document and one newline, a document strict readers take too, and
// nothing else.
func FuzzShellStdout(f *testing.F) {
	var mu sync.Mutex
	var answer []byte
	var status int
	dir := fakeBridge(f, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		b, code := answer, status
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write(b)
	})
	f.Fuzz(func(t *testing.T, body []byte, verb, code uint8) {
		mu.Lock()
		answer, status = body, []int{200, 200, 200, 400, 401, 403, 404, 500}[code%8]
		mu.Unlock()
		out := t.TempDir()
		argv := [][]string{
			{"call", "x"}, {"call", "x", "--raw"}, {"call", "x", "--out", filepath.Join(out, "o.png"), "--overwrite"},
			{"call", "x", "--save", out, "--text-file", "t.txt"}, {"status"}, {"tools"}, {"wait", "1"},
		}[int(verb)%7]
		var so bytes.Buffer
		Main(context.Background(), append([]string{"--config-dir", dir}, argv...), strings.NewReader(""), &so, io.Discard)
		doc, found := bytes.CutSuffix(so.Bytes(), []byte("\n"))
		d := json.NewDecoder(bytes.NewReader(doc))
		var v map[string]any
		if !found || !json.Valid(doc) || d.Decode(&v) != nil || d.More() {
			t.Fatalf("%q answered %q: stdout %q is not one JSON object and a newline", argv, body, so.Bytes())
		}
		if loneSurrogate.Match(doc) {
			t.Fatalf("%q answered %q: stdout %q escapes half a UTF-16 pair", argv, body, doc)
		}
	})
}
