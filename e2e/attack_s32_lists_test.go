package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestAttack_T16_SaveEntryNamesEscapedAsTheBridgesDoNotShadowThem (held):
// call --save writes each files entry again from its pieces, the page's
// names as they came (envelope.Entry.AppendTo), less the members the
// bridge writes, judged as JSON reads them. Entries whose savedTo,
// savedBytes, error and dataUrl are written with escapes ("saved\u0054o")
// are saved, and printed with the bridge's savedTo and savedBytes alone:
// one valid JSON document that names no member twice, with no word of
// the page's claims, and the page's other members kept.
func TestAttack_T16_SaveEntryNamesEscapedAsTheBridgesDoNotShadowThem(t *testing.T) {
	t.Parallel()
	url := `data:image/png;base64,` + base64.StdEncoding.EncodeToString(pngBytes)
	files := `[{"\u006eame":"a.png","\u0064ataUrl":"` + url + `","saved\u0054o":"/etc/PAGE-CLAIM","saved\u0042ytes":7,"k\u0065pt":1},` +
		`{"name":"b.png","dataUrl":"` + url + `","\u0065rror":"PAGE-CLAIM"},` +
		`{"name":"c.png","\u0064ataUrl":5,"error":"PAGE-CLAIM"}]`
	_, _, base := cliTab(t, listsExport(map[string]string{"files": files}))
	out := filepath.Join(t.TempDir(), "out")
	r := runCLI(t, append(base, "call", "design.export", "--save", out)...)
	if got := dirNames(t, out); !slices.Equal(got, []string{"a.stitchslop.png", "b.stitchslop.png"}) {
		t.Fatalf("call --save saved %q, want a and b; stdout %.500s", got, r.stdout)
	}
	line := strings.TrimSpace(r.stdout)
	if !jsontext.Value(line).IsValid() { // names given twice refused
		t.Fatalf("call --save printed %s: not one valid JSON document naming each member once", line)
	}
	var doc struct {
		Files []map[string]json.RawMessage `json:"files"`
	}
	if err := json.NewDecoder(bytes.NewReader([]byte(line))).Decode(&doc); err != nil || len(doc.Files) != 3 {
		t.Fatalf("call --save printed %s: %v", line, err)
	}
	if strings.Contains(line, "PAGE-CLAIM") || !bytes.Contains(doc.Files[0]["savedTo"], []byte(out)) ||
		string(doc.Files[0]["savedBytes"]) != "16" || string(doc.Files[0]["kept"]) != "1" || len(doc.Files[0]) != 4 ||
		doc.Files[1]["error"] != nil || len(doc.Files[1]) != 3 || !bytes.Contains(doc.Files[2]["error"], []byte("not a string")) {
		t.Errorf("call --save printed %s: want the bridge's savedTo, savedBytes and error alone, and the page's other members", line)
	}
}
