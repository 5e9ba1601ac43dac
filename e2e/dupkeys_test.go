package e2e

// One rule for duplicate member names (issue 19; THREAT_MODEL.md T8): a
// reply that names a member twice is refused whole, since the bridge's own
// readers take a name's first member and encoding/json its last, and two
// readers that disagree are where a check is walked around. The rule holds
// at every depth (issue 27): a file entry's name or dataUrl given twice is
// as ambiguous as a top-level say; and a name that does not print as it
// decodes is refused too, since the exits strip invisible characters
// ("o\u200bk" would print as "ok" and read as something else).

import (
	"strings"
	"testing"
	"time"
)

func TestSec_RepeatedMemberReplyIsRefused(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{
		`"ok":true,"say":"a","say":"b"`,
		`"ok":true,"say":"a","s\u0061y":"b"`, // the same name, escaped
		`"ok":false,"ok":true,"say":"a"`,
		`"ok":true,"files":[{"name":"a.png","n\u0061me":"b.sh"}]`, // nested, escaped
		`"ok":true,"shapes":{"say":"a","say":"b"}`,
		// Names that do not print as they decode (the exits strip invisible
		// characters, so each would read as a name it is not).
		`"ok":true,"o\u200bk":false`,
		`"o\u200bk":true,"say":"Done."`,
		`"ok":true,"files":[{"name":"a.png","dataUrl":"data:,","saved\u200bTo":"/x"}]`,
		`"ok":true,"saved\u00adTo":"/x/preview.png"`,
	} {
		t.Run(reply, func(t *testing.T) {
			t.Parallel()
			r := badReplyAtOnce(t, reply+"}")
			if strings.Contains(r.text(), `"say"`) || strings.Contains(r.text(), "a\n") {
				t.Errorf("reply {%s}: result %q repeats what the tab said", reply, r.text())
			}
		})
	}
}

// A reply the door refuses for any other reason (not one valid JSON
// object) is answered bad_reply at once too, found by the id it leads with,
// rather than left to the call's deadline; a frame with no id to find is
// still only logged.
func TestSec_BrokenReplyIsBadReply(t *testing.T) {
	t.Parallel()
	for name, tail := range map[string]string{
		"raw newline in a string": `"ok":true,"say":"a` + "\n" + `b"}`,
		"nested past the lexer":   `"ok":true,"deep":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
		"data after the object":   `"ok":true} {"id":1}`,
		"cut short":               `"ok":true,"say":"a`,
		"bad escape":              `"ok":true,"say":"\x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			badReplyAtOnce(t, tail)
		})
	}
}

// badReplyAtOnce has the tab answer a call with {"id":N, then tail, and
// requires the call's result to be the bridge's bad_reply, at once rather
// than at the call's 60 s deadline.
func badReplyAtOnce(t *testing.T, tail string) toolResult {
	t.Helper()
	b, p := mcpTab(t, "call=60s")
	p.serve(func(string, map[string]any) map[string]any { return nil })
	id := b.rpc.request("tools/call", map[string]any{"name": "scene.describe", "arguments": map[string]any{}})
	f, _ := p.command(0)
	p.sendText(`{"id":` + string(f.id) + `,` + tail)
	var r toolResult
	b.rpc.result(b.rpc.responseWithin(id, 5*time.Second), &r)
	if _, env := r.envelope(t); !r.IsError || env["ok"] != false || env["error"] != "bad_reply" {
		t.Errorf("reply {%s: got isError %v env %v, want isError and {ok:false,error:bad_reply}", tail, r.IsError, env)
	}
	return r
}
