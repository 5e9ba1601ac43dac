package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// decodeResult parses a tools/call response message.
func decodeResult(t *testing.T, m Message) (texts []string, image string, isError bool, resultType string) {
	t.Helper()
	line := m.join()
	if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Fatalf("message %q is not one line", line)
	}
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  struct {
			ResultType string `json:"resultType"`
			Content    []struct {
				Type, Text, Data, MIMEType string
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" {
		t.Fatalf("message %q is not a JSON-RPC response: %v", line, err)
	}
	for _, c := range r.Result.Content {
		switch c.Type {
		case "text":
			texts = append(texts, c.Text)
		case "image":
			image = c.MIMEType + " " + c.Data
		}
	}
	return texts, image, r.Result.IsError, r.Result.ResultType
}

func TestToolResponse(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		texts   []string
		image   string
		isError bool
	}{
		{"say leads and id goes", `{"id":3,"ok":true,"say":"Done.","n":1}`,
			[]string{"Done.\n\n" + `{"ok":true,"say":"Done.","n":1}`}, "", false},
		{"no say", `{"id":3,"ok":true}`, []string{`{"ok":true}`}, "", false},
		{"ok false is isError", `{"id":1,"ok":false,"message":"No such stitch."}`,
			[]string{`{"ok":false,"message":"No such stitch."}`}, "", true},
		{"dataUrl becomes an image and leaves the text", `{"id":1,"ok":true,"dataUrl":"data:image/png;base64,iVBORw0KGgoAAAAN"}`,
			[]string{`{"ok":true}`}, "image/png iVBORw0KGgoAAAAN", false},
		{"a dataUrl with an escape is no image (envelope.EscapedDataURL)", `{"id":1,"ok":true,"dataUrl":"data:image\/png;base64,iVBORw0KGgoAAAAN\/w=="}`,
			[]string{`{"ok":true,"dataUrl":"data:image\/png;base64,iVBORw0KGgoAAAAN\/w=="}`}, "", false},
		// An image block is what its bytes are (issue 19): HTML, or a PNG
		// that says it is a JPEG, stays text.
		{"a data URL that is not an image stays text", `{"ok":true,"dataUrl":"data:text/html;base64,PHNjcmlwdD4="}`,
			[]string{`{"ok":true,"dataUrl":"data:text/html;base64,PHNjcmlwdD4="}`}, "", false},
		{"HTML claiming to be a PNG stays text", `{"ok":true,"dataUrl":"data:image/png;base64,PHNjcmlwdD4="}`,
			[]string{`{"ok":true,"dataUrl":"data:image/png;base64,PHNjcmlwdD4="}`}, "", false},
		{"a PNG claiming to be a JPEG stays text", `{"ok":true,"dataUrl":"data:image/jpeg;base64,iVBORw0KGgoAAAAN"}`,
			[]string{`{"ok":true,"dataUrl":"data:image/jpeg;base64,iVBORw0KGgoAAAAN"}`}, "", false},
		{"malformed dataUrl stays text", `{"ok":true,"dataUrl":"not a data url"}`,
			[]string{`{"ok":true,"dataUrl":"not a data url"}`}, "", false},
		{"spaced envelope is compacted", "{ \"id\" : 2 , \"ok\" : true , \"list\" : [ 1, 2 ] }",
			[]string{`{"ok":true,"list":[1,2]}`}, "", false},
		// The gate (security/gate) removes invisible characters, in the
		// say line and in the envelope alike; newlines stay.
		{"control characters in say are removed", `{"ok":true,"say":"a\u0007b\nc"}`,
			[]string{"ab\nc\n\n" + `{"ok":true,"say":"ab\nc"}`}, "", false},
		{"tag characters and bidi controls are removed", `{"ok":true,"say":"hi\udb40\udc69\u202e","message":"x\u200by"}`,
			[]string{"hi\n\n" + `{"ok":true,"say":"hi","message":"xy"}`}, "", false},
		{"a long data URL in a member is a note (bulk guard)", `{"id":1,"ok":true,"files":[{"dataUrl":"data:image/png;base64,` + strings.Repeat("A", 3000) + `"}]}`,
			[]string{`{"ok":true,"files":[{"dataUrl":"[bridge: a 3,022-character data URL was left out here (at files.0.dataUrl); ` + wantRemedy + `]"}]}`}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, modern := range []bool{false, true} {
				texts, image, isError, rt := decodeResult(t, toolResponse([]byte("7"), mustReply([]byte(tt.env)), ownWords{}, modern))
				gt, _ := json.Marshal(texts)
				wt, _ := json.Marshal(tt.texts)
				if string(gt) != string(wt) || image != tt.image || isError != tt.isError {
					t.Fatalf("toolResponse(%s, modern=%v) = texts %s image %q isError %v; want %s %q %v", tt.env, modern, gt, image, isError, wt, tt.image, tt.isError)
				}
				if want := map[bool]string{true: "complete"}[modern]; rt != want {
					t.Fatalf("toolResponse(modern=%v): resultType %q, want %q", modern, rt, want)
				}
			}
		})
	}
}

// The image's base64 is written from the page reply's own bytes: the
// message holds a piece that aliases the envelope, not a copy.
func TestToolResponseSplicesTheImage(t *testing.T) {
	payload := pngHead + strings.Repeat("QUJD", 1<<18) // 1 MiB of base64
	env := []byte(`{"id":9,"ok":true,"dataUrl":"data:image/png;base64,` + payload + `"}`)
	m := toolResponse([]byte("9"), mustReply(env), ownWords{}, false)
	if len(m) != 2 {
		t.Fatalf("image response has %d pieces, want 2 (head and payload, tail)", len(m))
	}
	start, img := bytes.Index(env, []byte(payload)), m[0].Image.Base64()
	if &img[0] != &env[start] || len(img) != len(payload) {
		t.Fatal("the image piece is not the envelope's own payload bytes")
	}
	_, image, _, _ := decodeResult(t, m)
	if image != "image/png "+payload {
		t.Fatal("the spliced image does not decode to the payload")
	}
}

func BenchmarkToolResponseText(b *testing.B) {
	env := []byte(`{"id":12,"ok":true,"say":"Moved the star.","echo":"` + strings.Repeat("x", 200) + `","count":3}`)
	b.ReportAllocs()
	for b.Loop() {
		toolResponse([]byte("12"), mustReply(env), ownWords{}, false)
	}
}

func BenchmarkToolResponseImage8MiB(b *testing.B) {
	env := []byte(`{"id":12,"ok":true,"dataUrl":"data:image/png;base64,` + pngHead + strings.Repeat("QUJD", 8<<20/3) + `"}`)
	b.SetBytes(int64(len(env)))
	b.ReportAllocs()
	for b.Loop() {
		toolResponse([]byte("12"), mustReply(env), ownWords{}, false)
	}
}

// pngHead is the base64 of a PNG's first 12 bytes: its signature and the
// length of its first chunk.
const pngHead = "iVBORw0KGgoAAAAN"
