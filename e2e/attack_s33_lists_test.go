package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/websocket"
)

// TestAttack_T16_SaveSavedToCutByThePagesEntry: call --save prints the
// files list in the reply's place, built as one gate.List that the gate
// bounds as a value of the page's (gate.MaxItems members an object). Each
// entry held the page's members, then the bridge's savedTo and
// savedBytes (or error), so a page that gave a files entry 2,100 members
// of its own had the shell print no savedTo for a file it saved, the
// bridge's members counted in the note as the page's ("103 more members
// were left out"). Failed on 5b19094 and 01ec34f; the bridge's members
// now come first (envelope.Entry.AppendTo). docs/protocol.md §7.15: the
// result says where each file went (savedTo on the shell).
//
// Still open (the outside attack's other two cases, on branch s33-attack):
// a page that spends the reply's budget (gate.MaxTotal) before its files
// list, or in an entry before the file's, has the whole list, or the
// file's entry, left out of stdout; stderr still says where each file
// went.
func TestAttack_T16_SaveSavedToCutByThePagesEntry(t *testing.T) {
	t.Parallel()
	url := b64URL("image/png", pngBytes)
	var wide strings.Builder
	for i := range 2100 {
		fmt.Fprintf(&wide, `"m%04d":0,`, i)
	}
	for _, tc := range []struct {
		name    string
		members map[string]string
	}{
		{"an entry of 2,100 members", map[string]string{"files": `[{` + wide.String() + `"name":"a.png","dataUrl":"` + url + `"}]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, base := cliTab(t, listsExport(tc.members))
			out := filepath.Join(t.TempDir(), "out")
			r := runCLI(t, append(base, "call", "design.export", "--save", out)...)
			if got := dirNames(t, out); len(got) != 1 || got[0] != "a.stitchslop.png" {
				t.Fatalf("call --save saved %q, want a.stitchslop.png; exit %d", got, r.code)
			}
			line := strings.TrimSpace(r.stdout)
			if !jsontext.Value(line).IsValid() {
				t.Fatalf("call --save printed %.300s: not one valid JSON document", line)
			}
			want, _ := json.Marshal(filepath.Join(out, "a.stitchslop.png"))
			if !strings.Contains(line, `"savedTo":`+string(want)) {
				i := max(0, strings.LastIndex(line, `"[bridge]"`))
				t.Errorf("call --save saved %s (exit %d) and printed no savedTo for it: %.300s", want, r.code, line[i:])
				if testing.Verbose() {
					t.Logf("stdout without the pad: %.600s", strings.ReplaceAll(line, strings.Repeat("p", 1000), ""))
				}
			}
		})
	}
}

// TestAttack_T8_SaveListHostileMembersPrintedAsTheGateWrites (held):
// call --save prints the page's members of each files entry unread when
// the door saw nothing in them to change (gate.List, envelope's per-member
// gate.Seen). A files list whose one fault is deep in a member's value
// (an invisible character, a string or name that reads as the bridge's
// note, space before a nested container or its bracket, an escape), in a
// saved entry, a refused one or one of escaped names, recorded by the
// door and past its records, comes out as the gate writes it: without
// the character, the note's "[" escaped or the member left out, no space
// between tokens, one valid JSON document naming each member once, and
// the bridge's savedTo for each file.
func TestAttack_T8_SaveListHostileMembersPrintedAsTheGateWrites(t *testing.T) {
	t.Parallel()
	url := b64URL("image/png", pngBytes)
	faults := []string{
		"{\"a\":[1,{\"b\":\"x\u200by\"}]}", "{\"a\":[{\"e\":\"\u202eRTL\"}]}", `{"c":{"[bridge":1,"d":2}}`,
		`{"c":{"d":["[bridge: saved to /etc"]}}`, `{"a": [1]}`, `{"a":[1, {"b":2}]}`, `{"a":[[1] ]}`, `{"a":{"b":1 }}`,
		`{"a":{"b":"\u0078"}}`, `{"a":[1e999]}`,
	}
	var files []string
	for _, f := range faults {
		files = append(files, `[{"name":"a.png","dataUrl":"`+url+`","m":`+f+`}]`,
			`[{"name":"a.png","dataUrl":"`+url+`"},{"\u006eame":"b.png","m":`+f+`,"\u0064ataUrl":"`+url+`"}]`,
			`[{"name":"a.png","dataUrl":"`+url+`"},{"m":`+f+`,"dataUrl":5}]`)
	}
	pad := `[` + strings.TrimSuffix(strings.Repeat("0,", 1020), ",") + `]`              // 1,021 of the door's 1,024 records
	_, p, base := cliTab(t, func(string, map[string]any) map[string]any { return nil }) // answered raw below
	from := 0
	for i := range 2 * len(files) {
		out := filepath.Join(t.TempDir(), "out")
		done := make(chan cliResult, 1)
		go func() { done <- runCLI(t, append(base, "call", "design.export", "--save", out)...) }()
		var f frame
		f, from = p.command(from)
		from++
		head := ""
		if i%2 == 1 {
			head = `"a":` + pad + `,` // before files, which the door then reads again when walked
		}
		sendRaw(t, p, `{"id":`+string(f.id)+`,"ok":true,`+head+`"files":`+files[i/2]+`}`) // raw: spaces kept
		r := <-done
		line := strings.TrimSpace(r.stdout)
		if !jsontext.Value(line).IsValid() {
			t.Fatalf("%.200s: call --save printed %.500s: not one valid JSON document naming each member once", files[i/2], line)
		}
		for _, bad := range []string{"\u200b", "\u202e", `"[bridge"`, `"[bridge: saved`, `1e999`} {
			if strings.Contains(line, bad) {
				t.Errorf("%.200s: call --save printed %q: %.600s", files[i/2], bad, line)
			}
		}
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(line)); compact.String() != line {
			t.Errorf("%.200s: call --save printed space between tokens: %.600s", files[i/2], line)
		}
		if !strings.Contains(line, `a.stitchslop.png","savedBytes":16`) {
			t.Errorf("%.200s: call --save printed %.600s: want savedTo for a", files[i/2], line)
		}
	}
}

// sendRaw sends s as it is, as the page's sendText does, within a write
// deadline of its own: the one a JSON send set may have passed.
func sendRaw(t *testing.T, p *page, s string) {
	t.Helper()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := p.conn.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		t.Fatalf("page send: %v", err)
	}
}
