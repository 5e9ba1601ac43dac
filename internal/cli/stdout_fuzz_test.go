package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// loneSurrogate reports whether doc, valid JSON, escapes half of a UTF-16
// pair with no other half beside it: JSON by the grammar, refused by strict
// readers. (Outside its strings valid JSON holds no backslash.)
func loneSurrogate(doc []byte) bool {
	half := func(i int) rune { // the \u escape at i, or -1
		if i+6 > len(doc) || doc[i] != '\\' || doc[i+1] != 'u' {
			return -1
		}
		r, err := strconv.ParseUint(string(doc[i+2:i+6]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(r)
	}
	for i := 0; i < len(doc); i++ {
		if doc[i] != '\\' {
			continue
		}
		r := half(i)
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if lo := half(i + 6); lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i++ // the escaped character, which may be a backslash
		}
	}
	return false
}

// stdoutBound is the most bytes the gate lets through to stdout: what it
// writes of a reply (gate.MaxGuarded), and room for the shell's own
// members.
const stdoutBound = gate.MaxGuarded + 64<<10

// FuzzShellStdout is issue 27's invariant for the shell: whatever a bridge
// answers (any bytes, any status), every verb prints on stdout exactly one
// JSON document and one newline, a document strict readers take too, and
// nothing else; and, but with --raw, one bounded as the gate bounds it
// (stdoutBound): at most gate.MaxItems top-level members and the note, and
// about gate.MaxTotal bytes.
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
	var many bytes.Buffer // more top-level members than the gate passes
	many.WriteString(`{"id":1,"ok":true`)
	for i := range gate.MaxItems + 100 {
		many.WriteString(`,"k` + strconv.Itoa(i) + `":0`)
	}
	f.Add(append(many.Bytes(), '}'), uint8(0), uint8(0))
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
		if loneSurrogate(doc) {
			t.Fatalf("%q answered %q: stdout %q escapes half a UTF-16 pair", argv, body, doc)
		}
		if argv[len(argv)-1] != "--raw" && (len(v) > gate.MaxItems+1 || len(doc) > stdoutBound) {
			t.Fatalf("%q answered %.200q: stdout is %d bytes, %d top-level members: over the gate's bound", argv, body, len(doc), len(v))
		}
	})
}

func TestLoneSurrogate(t *testing.T) {
	for doc, want := range map[string]bool{
		`"\ud800"`: true, `"\udc00"`: true, `"\ud800\u0041"`: true, `"\\ud800"`: false,
		`"\ud83d\ude00"`: false, `"\\\ud800"`: true, `"a"`: false,
	} {
		if got := loneSurrogate([]byte(doc)); got != want {
			t.Errorf("loneSurrogate(%s) = %v, want %v", doc, got, want)
		}
	}
}
