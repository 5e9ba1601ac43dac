package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The wording of the model's note, written here from the brief rather than
// taken from modelRemedy.
const wantRemedy = "to get it, call call_to_files with the same command, args and a dir (and textFile to save long text): it saves the data as files and answers with their paths"

func modelNote(chars, what, where string) string {
	return "[bridge: a " + chars + "-character " + what + " was left out here (" + where + "); " + wantRemedy + "]"
}

// textEnvelope decodes the JSON of a result's text block, after any lead.
func textEnvelope(t *testing.T, text string) map[string]any {
	t.Helper()
	if i := strings.Index(text, "\n\n{"); i >= 0 {
		text = text[i+2:]
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		t.Fatalf("text %.200q: the envelope is not JSON: %v", text, err)
	}
	return env
}

// A 3 MB string in a reply reaches the model as a note naming its place
// and how to get it; the rest of the envelope is as it was.
func TestToolResponseBulkGuard(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	env := `{"id":4,"ok":true,"say":"Here it is.","members":[{"id":1,"text":"` + big + `"},{"id":2,"text":"short"}],"count":2}`
	for _, modern := range []bool{false, true} {
		texts, image, isError, _ := decodeResult(t, toolResponse([]byte("4"), mustReply([]byte(env)), ownWords{}, modern))
		wantText := "Here it is.\n\n" + `{"ok":true,"say":"Here it is.","members":[{"id":1,"text":` +
			string(mustMarshal(modelNote("3,145,728", "string", "at members.0.text"))) + `},{"id":2,"text":"short"}],"count":2}`
		if len(texts) != 1 || texts[0] != wantText || image != "" || isError {
			t.Fatalf("toolResponse(3 MB member, modern=%v) = %.400q, image %q, isError %v; want %.400q", modern, texts, image, isError, wantText)
		}
	}
}

// The top-level dataUrl is the image block, whole and spliced; a data URL
// elsewhere is text, and cut.
func TestToolResponseBulkGuardSparesTheImage(t *testing.T) {
	payload := pngHead + strings.Repeat("QUJD", 3<<20/4) // 3 MB of base64
	nested := "data:image/png;base64," + strings.Repeat("A", 3000-22)
	env := []byte(`{"id":9,"ok":true,"dataUrl":"data:image/png;base64,` + payload + `","thumbs":[{"dataUrl":"` + nested + `"}]}`)
	m := toolResponse([]byte("9"), mustReply(env), ownWords{}, false)
	if len(m) != 2 || &m[0].Image.Base64()[0] != &env[bytes.Index(env, []byte(payload))] {
		t.Fatal("the 3 MB image is not spliced from the envelope's own bytes")
	}
	texts, image, isError, _ := decodeResult(t, m)
	if image != "image/png "+payload {
		t.Errorf("image block: %d bytes, want the 3 MB payload whole", len(image))
	}
	want := `{"ok":true,"thumbs":[{"dataUrl":` + string(mustMarshal(modelNote("3,000", "data URL", "at thumbs.0.dataUrl"))) + `}]}`
	if len(texts) != 1 || texts[0] != want || isError {
		t.Errorf("text = %.300q, isError %v; want %.300q", texts, isError, want)
	}
}

// ok:false stays isError with a note in it; a 3 MB say line is a note too.
func TestToolResponseBulkGuardKeepsIsErrorAndCutsSay(t *testing.T) {
	big := strings.Repeat("y", 3<<20)
	env := `{"id":1,"ok":false,"error":"too_big","message":"` + big + `","say":"` + big + `"}`
	texts, _, isError, _ := decodeResult(t, toolResponse([]byte("1"), mustReply([]byte(env)), ownWords{}, false))
	if !isError || len(texts) != 1 {
		t.Fatalf("ok:false with a 3 MB message: isError %v, %d texts; want isError and one text", isError, len(texts))
	}
	lead, _, _ := strings.Cut(texts[0], "\n\n")
	if want := modelNote("3,145,728", "string", "at say"); lead != want {
		t.Errorf("say lead = %.200q, want %q", lead, want)
	}
	got := textEnvelope(t, texts[0])
	if got["ok"] != false || got["error"] != "too_big" || got["message"] != modelNote("3,145,728", "string", "at message") {
		t.Errorf("envelope = %.300v, want ok false, error too_big and the message a note", got)
	}
	if len(texts[0]) > 2000 {
		t.Errorf("text is %d bytes, want a few hundred", len(texts[0]))
	}
}

// Strings just within the limits reach the model whole.
func TestToolResponseBulkGuardJustUnder(t *testing.T) {
	s := strings.Repeat("z", 100_000)
	d := "data:image/png;base64," + strings.Repeat("A", 2048-22)
	env := `{"ok":true,"s":"` + s + `","d":["` + d + `"]}`
	texts, _, _, _ := decodeResult(t, toolResponse([]byte("1"), mustReply([]byte(env)), ownWords{}, false))
	if want := `{"ok":true,"s":"` + s + `","d":["` + d + `"]}`; len(texts) != 1 || texts[0] != want {
		t.Errorf("toolResponse(strings at the limits) changed them: %.200q", texts)
	}
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func BenchmarkToolResponseBulk3MiB(b *testing.B) {
	env := []byte(`{"id":12,"ok":true,"say":"Here.","text":"` + strings.Repeat("x", 3<<20) + `","count":3}`)
	b.SetBytes(int64(len(env)))
	b.ReportAllocs()
	for b.Loop() {
		toolResponse([]byte("12"), mustReply(env), ownWords{}, false)
	}
}
