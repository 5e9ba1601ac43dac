package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The hello carries one member more than protocol.md §2.3 names, "bridge":
// which binary this is, with the SHA-256 of the very file the bridge runs
// from; /status, connection_status and version --json say the same.
func TestIdentity_HelloStatusAndVersionNameTheRunningFile(t *testing.T) {
	t.Parallel()
	want := fileSHA256(t, binPath)
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, mcp: true})
	b.rpc.initialize()
	_, hello := connectPage(t, b, map[string]any{"token": tok})

	id, ok := hello.m["bridge"].(map[string]any)
	if !ok {
		t.Fatalf("hello %s: got no bridge object, want one", hello.raw)
	}
	if id["sha256"] != want {
		t.Errorf("hello %s: bridge.sha256 %v, want the SHA-256 of %s, %s", hello.raw, id["sha256"], binPath, want)
	}
	if id["name"] != "stitchslop-bridge" || id["os"] == "" || id["arch"] == "" || id["version"] == "" {
		t.Errorf("hello %s: bridge lacks name, version, os or arch", hello.raw)
	}
	for k := range hello.m {
		if !slices.Contains([]string{"hello", "protocol", "port", "pairingSecret", "bridge"}, k) {
			t.Errorf("hello %s: member %q, want only the protocol's four and bridge", hello.raw, k)
		}
	}

	_, st := b.ctl("GET", "/status", nil)
	if got, _ := st["bridge"].(map[string]any); !reflect.DeepEqual(got, id) {
		t.Errorf("/status bridge %v, want the hello's %v", got, id)
	}

	var cs map[string]any
	if err := json.Unmarshal([]byte(b.rpc.toolCall("connection_status", map[string]any{}).text()), &cs); err != nil {
		t.Fatalf("connection_status: %v", err)
	}
	if got, _ := cs["bridge"].(map[string]any); !reflect.DeepEqual(got, id) {
		t.Errorf("connection_status bridge %v, want the hello's %v", got, id)
	}

	r := runCLI(t, "version", "--json")
	if r.code != 0 {
		t.Fatalf("version --json: exit %d, stderr %s", r.code, r.stderr)
	}
	if got := r.doc(t); !reflect.DeepEqual(got, id) {
		t.Errorf("version --json %v, want the hello's %v", got, id)
	}

	// stitchslop's doctor speaks for the bridge beside it, this one: it
	// names its identity, finds the running bridge the same binary, and
	// names its own program too.
	d := runCLI(t, "--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "doctor", "--json")
	doc := d.doc(t)
	if got, _ := doc["bridge"].(map[string]any); !reflect.DeepEqual(got, id) {
		t.Errorf("doctor --json bridge %v, want the hello's %v", got, id)
	}
	if strings.Contains(d.stdout, "runs another binary") {
		t.Errorf("doctor says the bridge runs another binary than the one beside stitchslop: %s", d.stdout)
	}
	if !strings.Contains(d.stdout, `"message":"stitchslop `) || !strings.Contains(d.stdout, fileSHA256(t, toolPath)) {
		t.Errorf("doctor --json does not name stitchslop and its SHA-256: %s", d.stdout)
	}
}

// tools/list gives the bridge's tools, then the tab's in the tab's order,
// the same bytes on every call until the tab sends a new list.
func TestMCP_ToolsListStableUntilTheTabSendsANewList(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, mcp: true})
	b.rpc.initialize()
	from := b.rpc.msgs.len()
	tabOrder := []string{"zeta.last", "alpha.first", "scene.describe", "mid.dle"}
	var tools []any
	for _, n := range tabOrder {
		tools = append(tools, map[string]any{"name": n, "description": "Tool " + n + ".", "inputSchema": map[string]any{"type": "object"}})
	}
	p, _ := connectPageListing(t, b, map[string]any{"token": tok}, tools)
	b.rpc.awaitListChanged(from)

	list := func() (string, []string) {
		t.Helper()
		m := b.rpc.call("tools/list", nil)
		var res struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		b.rpc.result(m, &res)
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		return string(m.fields["result"]), names
	}
	first, names := list()
	if want := append(append([]string{}, bridgeTools...), tabOrder...); !slices.Equal(names, want) {
		t.Errorf("tools/list names %q, want %q (the bridge's, then the tab's in its order)", names, want)
	}
	for i := 0; i < 3; i++ {
		if again, _ := list(); again != first {
			t.Fatalf("tools/list call %d:\n%s\nwant the first call's\n%s", i+2, again, first)
		}
	}

	// A client that never refreshes its list is told how to reach the
	// tab's commands all the same.
	const reach = "reach any tab command through call_to_files"
	if g := b.rpc.toolCall("wait_for_connection", map[string]any{"timeoutSeconds": 5}).text(); !strings.Contains(g, reach) {
		t.Errorf("greeting %q: want it to say %q", g, reach)
	}
	if cs := b.rpc.toolCall("connection_status", map[string]any{}).text(); !strings.Contains(cs, reach) {
		t.Errorf("connection_status %s: want its note to say %q", cs, reach)
	}
	if again, _ := list(); again != first {
		t.Fatalf("tools/list after calls:\n%s\nwant the first call's\n%s", again, first)
	}

	from = b.rpc.msgs.len()
	p.mustSend(map[string]any{"tools": []any{tools[3], tools[0]}})
	b.rpc.awaitListChanged(from)
	if _, names := list(); !slices.Equal(names, append(append([]string{}, bridgeTools...), "mid.dle", "zeta.last")) {
		t.Errorf("tools/list after a new tab list: %q, want the bridge's tools, then mid.dle, zeta.last", names)
	}
}

// A tab tool's annotations reach the client only as MCP's four boolean
// hints and a string title; anything else is dropped and counted in
// droppedTools (connection_status and /status), the tool still listed.
// The bridge's own tools carry hints too.
func TestSec_ToolAnnotationsBooleansOnly(t *testing.T) {
	t.Parallel()
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, mcp: true})
	b.rpc.initialize()
	from := b.rpc.msgs.len()
	tools := []any{
		map[string]any{"name": "scene.describe", "title": "Describe\u200b the design", "inputSchema": map[string]any{"type": "object"},
			"annotations": map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}},
		map[string]any{"name": "scene.clear", "inputSchema": map[string]any{"type": "object"},
			"annotations": map[string]any{"readOnlyHint": "true", "destructiveHint": true, "trustMe": true}},
	}
	connectPageListing(t, b, map[string]any{"token": tok}, tools)
	b.rpc.awaitListChanged(from)

	var res struct {
		Tools []struct {
			Name        string         `json:"name"`
			Title       string         `json:"title"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	b.rpc.result(b.rpc.call("tools/list", nil), &res)
	got := map[string]map[string]any{}
	titles := map[string]string{}
	for _, tl := range res.Tools {
		got[tl.Name], titles[tl.Name] = tl.Annotations, tl.Title
	}
	if want := map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}; !reflect.DeepEqual(got["scene.describe"], want) {
		t.Errorf("scene.describe annotations %v, want %v", got["scene.describe"], want)
	}
	if titles["scene.describe"] != "Describe the design" {
		t.Errorf("scene.describe title %q, want %q (the zero-width space removed)", titles["scene.describe"], "Describe the design")
	}
	if want := map[string]any{"destructiveHint": true}; !reflect.DeepEqual(got["scene.clear"], want) {
		t.Errorf("scene.clear annotations %v, want only %v", got["scene.clear"], want)
	}
	for _, n := range bridgeTools {
		a := got[n]
		if len(a) != 4 {
			t.Errorf("bridge tool %s annotations %v, want the four hints", n, a)
		}
	}
	if got["connection_status"]["readOnlyHint"] != true || got["call_to_files"]["destructiveHint"] != true {
		t.Errorf("connection_status %v, call_to_files %v: want read-only and destructive", got["connection_status"], got["call_to_files"])
	}

	wantDropped := func(where string, dropped any) {
		t.Helper()
		list, _ := dropped.([]any)
		if len(list) != 1 {
			t.Fatalf("%s droppedTools %v, want one entry", where, dropped)
		}
		d, _ := list[0].(map[string]any)
		reason, _ := d["reason"].(string)
		if d["name"] != "scene.clear" || d["part"] != "annotations" || !strings.Contains(reason, `"readOnlyHint"`) || !strings.Contains(reason, `"trustMe"`) {
			t.Errorf("%s droppedTools %v, want scene.clear's annotations readOnlyHint and trustMe", where, d)
		}
	}
	var cs map[string]any
	if err := json.Unmarshal([]byte(b.rpc.toolCall("connection_status", map[string]any{}).text()), &cs); err != nil {
		t.Fatalf("connection_status: %v", err)
	}
	wantDropped("connection_status", cs["droppedTools"])
	_, st := b.ctl("GET", "/status", nil)
	wantDropped("/status", st["droppedTools"])
}

// The hash is of the file the bridge runs from, whatever the path that
// named it says now: a binary whose name ends " (deleted)" beside another
// file under the trimmed name, and a binary replaced on disk after it
// started, each report their own bytes (an outside attack of issue 30).
func TestIdentity_HashIsOfTheRunningFile(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("no /proc/self/exe on this system: os.Executable names the file")
	}
	want := fileSHA256(t, binPath)
	dir := t.TempDir()
	bin, err := os.ReadFile(binPath)
	if err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "sb (deleted)")
	if err := os.WriteFile(named, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sb"), []byte("not the bridge\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(named, "version", "--json").Output()
	if err != nil {
		t.Fatalf("%s version --json: %v", named, err)
	}
	var id map[string]any
	if err := json.Unmarshal(out, &id); err != nil {
		t.Fatalf("version --json printed %q: %v", out, err)
	}
	if id["sha256"] != want {
		t.Errorf("a binary named %q reports sha256 %v, want its own %s", named, id["sha256"], want)
	}
}
