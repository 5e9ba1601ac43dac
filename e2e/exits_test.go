package e2e

// One encoder per exit (issue 34): a string of the tab's reaches every
// exit as the one encoder (security/gate) writes it, whichever face prints
// it, and no face splices its own words into the tab's reply.

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The strings a page may send that encoders disagree on: characters
// encoding/json escapes and jsontext does not (<, >, &), a line separator
// JavaScript ends a line at, a bidi override the gate removes, and a
// quote.
var (
	cleanedText = "make <it> red & \u2028bigger\u202e \"now\""
	plainText   = "a<b && c>d"
)

// TestSpec7_16_ListenWritesTheTabsStringsAsCallDoes: listen's lines
// (protocol.md §7.16) hold each of the tab's strings as the same bytes a
// call's reply of the same strings prints (§4.4): one encoder writes both
// exits. Before, listen wrote its lines with encoding/json, and printed <
// and & as \u003c and \u0026 where call prints them as they are.
func TestSpec7_16_ListenWritesTheTabsStringsAsCallDoes(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPageListing(t, b, map[string]any{"token": tok}, voiceTools)
	var mu sync.Mutex
	asked := 0
	p.serve(func(cmd string, args map[string]any) map[string]any {
		switch cmd {
		case "scene.describe":
			return map[string]any{"ok": true, "t1": cleanedText, "t2": plainText, "sid": "s<1>", "name": cleanedText}
		case "voice.listen":
			mu.Lock()
			defer mu.Unlock()
			if asked++; asked > 1 {
				return refusedBy("Bye.")
			}
			return map[string]any{"ok": true,
				"heard":     []any{map[string]any{"text": cleanedText, "atMs": 1}, map[string]any{"text": plainText, "atMs": 2}},
				"selection": []any{map[string]any{"id": "s<1>", "name": cleanedText}}}
		}
		return defaultHandler(cmd, args)
	})
	b.awaitConnected(true)

	r := b.cli("call", "scene.describe", "{}")
	var call map[string]json.RawMessage
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &call) != nil {
		t.Fatalf("call: exit %d, stdout %q, stderr %q; bridge:\n%s", r.code, r.stdout, r.stderr, b.stderr)
	}
	l := startCLI(t, "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "listen")
	if code := l.exit(t); code != 1 {
		t.Errorf("listen after a refusal: exit %d, want 1", code)
	}
	lines := l.stdout.lines.all()
	if len(lines) != 3 {
		t.Fatalf("listen printed %q, want two heard lines and unavailable", lines)
	}
	var first, second map[string]json.RawMessage
	var sel []map[string]json.RawMessage
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil ||
		json.Unmarshal(first["selection"], &sel) != nil || len(sel) != 1 {
		t.Fatalf("listen printed %q: want heard lines, the first with a selection of one", lines)
	}
	for _, c := range []struct {
		what         string
		listen, call json.RawMessage
	}{
		{"a heard text the gate cleans", first["heard"], call["t1"]},
		{"a heard text it passes as it came", second["heard"], call["t2"]},
		{"a selected id", sel[0]["id"], call["sid"]},
		{"a selected name", sel[0]["name"], call["name"]},
	} {
		if string(c.listen) != string(c.call) || len(c.call) == 0 {
			t.Errorf("%s: listen printed %s, call printed %s; want the same bytes", c.what, c.listen, c.call)
		}
	}
}

// TestSpec7_15_CallToFilesPassesTheReplyAsACallDoes: call_to_files
// (protocol.md §7.15) answers with the tab's reply in the block a call of
// the same command gives, byte for byte, and the bridge's own words about
// what it saved in a text block after it, in both MCP eras; the reply is
// never rewritten to say what was saved. Before, the bridge's words led
// the one text block and the reply was re-encoded with savedTo in place
// of each file's data.
func TestSpec7_15_CallToFilesPassesTheReplyAsACallDoes(t *testing.T) {
	t.Parallel()
	for _, modern := range []bool{false, true} {
		b, tok := mcpBridge(t, "")
		if !modern {
			b.rpc.initialize()
		}
		p, _ := connectPage(t, b, map[string]any{"token": tok})
		p.serve(func(cmd string, args map[string]any) map[string]any {
			if cmd != "scene.describe" {
				return defaultHandler(cmd, args)
			}
			return map[string]any{"ok": true, "say": "Exported " + plainText + ".", "note": cleanedText,
				"savedTo": "/etc/passwd", "files": []any{
					map[string]any{"name": cleanedText + ".dst", "dataUrl": b64URL("application/octet-stream", dstBytes)},
					map[string]any{"name": "second.dst", "dataUrl": b64URL("application/octet-stream", []byte("stitches"))},
				}}
		})
		call := func(name string, args map[string]any) (json.RawMessage, []json.RawMessage) {
			params := map[string]any{"name": name, "arguments": args}
			if modern {
				params = modernParams(params)
			}
			m := b.rpc.response(b.rpc.request("tools/call", params))
			var r struct {
				Content []json.RawMessage `json:"content"`
				IsError json.RawMessage   `json:"isError"`
			}
			b.rpc.result(m, &r)
			return r.IsError, r.Content
		}
		plainErr, plain := call("scene.describe", map[string]any{})
		out := t.TempDir()
		savedErr, saved := call("call_to_files", map[string]any{"command": "scene.describe", "dir": out})
		if len(plain) != 1 || len(saved) != 2 || !sameButDataURLs(t, plain[0], saved[0]) || string(savedErr) != string(plainErr) {
			t.Errorf("modern %v: call_to_files answered %s (isError %s); want the call's block %s (isError %s), each data URL a note, then the bridge's",
				modern, saved, savedErr, plain, plainErr)
			continue
		}
		var own struct{ Type, Text string }
		json.Unmarshal(saved[1], &own)
		for _, want := range []string{"[bridge] call_to_files saved ", "files[0] -> " + strconv.Quote(filepath.Join(out, "make-it-red--bigger-now.stitchslop.dst")), "files[1] -> " + strconv.Quote(filepath.Join(out, "second.stitchslop.dst"))} {
			if own.Type != "text" || !strings.Contains(own.Text, want) {
				t.Errorf("modern %v: the bridge's block %s; want it to say %q", modern, saved[1], want)
			}
		}
		if strings.Contains(own.Text, "/etc/passwd") {
			t.Errorf("modern %v: the bridge's block %s holds the tab's claim", modern, saved[1])
		}
	}
}

// sameButDataURLs reports whether call_to_files' block of the tab's reply
// (saved) is the plain call's block but that every data URL, however short,
// is a note: the files are on disk, their bytes never reach the model.
func sameButDataURLs(t *testing.T, plain, saved json.RawMessage) bool {
	t.Helper()
	var p, s struct{ Text string }
	json.Unmarshal(plain, &p)
	json.Unmarshal(saved, &s)
	if !strings.Contains(p.Text, "data:") || strings.Contains(s.Text, "data:") {
		return false
	}
	re := regexp.MustCompile(`"dataUrl":"(data:[^"]*|\[bridge[^"]*)"`)
	for _, m := range re.FindAllStringSubmatch(s.Text, -1) {
		if !strings.Contains(m[1], "the bridge's block after this one") {
			return false
		}
	}
	return re.ReplaceAllString(p.Text, "") == re.ReplaceAllString(s.Text, "")
}
