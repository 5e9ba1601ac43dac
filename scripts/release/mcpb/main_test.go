package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

var commitTime = time.Date(2026, 11, 30, 12, 34, 56, 0, time.UTC)

// desktopTargets are the bundles a release has (written from the issue,
// not from bundleOS).
var desktopTargets = []struct{ goos, goarch string }{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func loadSchema(t *testing.T, name string) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving testdata/%s: %v", name, err)
	}
	return rs
}

// validate checks doc against rs as a JSON value (not a Go struct), so
// every field name is checked as written.
func validate(t *testing.T, rs *jsonschema.Resolved, doc []byte) error {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return rs.Validate(v)
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// unzip returns the bundle's entries in their order.
func unzip(t *testing.T, data []byte) []*zip.File {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("bundle is not a zip: %v", err)
	}
	return zr.File
}

func read(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPack_Reproducible: the same inputs give the same bytes; the entries
// are sorted, stamped with the commit time and a fixed mode, and hold the
// binary and the licence byte for byte.
func TestPack_Reproducible(t *testing.T) {
	bin := []byte("\x7fELF pretend binary")
	lic := []byte("MIT License\n")
	for _, tg := range desktopTargets {
		a, err := pack(tg.goos, "1.2.3", commitTime, bin, lic)
		if err != nil {
			t.Fatalf("pack(%s): %v", tg.goos, err)
		}
		b, err := pack(tg.goos, "1.2.3", commitTime.In(time.FixedZone("elsewhere", 5*3600)), slices.Clone(bin), lic)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("pack(%s) twice: different bytes", tg.goos)
		}
		exe := "server/stitchslop-bridge"
		if tg.goos == "windows" {
			exe += ".exe"
		}
		want := []struct {
			name string
			mode os.FileMode
			data []byte
		}{{"LICENSE", 0o644, lic}, {"manifest.json", 0o644, nil}, {exe, 0o755, bin}}
		files := unzip(t, a)
		if len(files) != len(want) {
			t.Fatalf("%s bundle has %d entries, want %d", tg.goos, len(files), len(want))
		}
		for i, f := range files {
			if f.Name != want[i].name {
				t.Errorf("%s entry %d = %q, want %q (sorted)", tg.goos, i, f.Name, want[i].name)
			}
			if f.Mode() != want[i].mode {
				t.Errorf("%s %s: mode %v, want %v", tg.goos, f.Name, f.Mode(), want[i].mode)
			}
			if !f.Modified.Equal(commitTime) {
				t.Errorf("%s %s: time %v, want the commit time %v", tg.goos, f.Name, f.Modified, commitTime)
			}
			if want[i].data != nil && !bytes.Equal(read(t, f), want[i].data) {
				t.Errorf("%s %s: not the input bytes", tg.goos, f.Name)
			}
		}
	}
	later, err := pack("darwin", "1.2.3", commitTime.Add(2*time.Second), bin, lic)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := pack("darwin", "1.2.3", commitTime, bin, lic)
	if bytes.Equal(first, later) {
		t.Error("pack ignores the date: two commit times gave the same bytes")
	}
}

// TestManifest_MCPBSchema: every bundle's manifest.json is valid against
// the MCPB 0.3 schema, runs the bundled binary with --lazy and no token,
// says its tools are generated, and offers only the site as a choice.
func TestManifest_MCPBSchema(t *testing.T) {
	rs := loadSchema(t, "mcpb-manifest-v0.3.schema.json")
	for _, tg := range desktopTargets {
		data, err := pack(tg.goos, "1.2.3", commitTime, []byte("bin"), []byte("lic"))
		if err != nil {
			t.Fatal(err)
		}
		var raw []byte
		for _, f := range unzip(t, data) {
			if f.Name == "manifest.json" {
				raw = read(t, f)
			}
		}
		if err := validate(t, rs, raw); err != nil {
			t.Errorf("%s manifest.json is not valid MCPB 0.3: %v\n%s", tg.goos, err, raw)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if m["manifest_version"] != "0.3" || m["version"] != "1.2.3" || m["tools_generated"] != true {
			t.Errorf("%s: manifest_version %v, version %v, tools_generated %v; want 0.3, 1.2.3, true",
				tg.goos, m["manifest_version"], m["version"], m["tools_generated"])
		}
		server := m["server"].(map[string]any)
		cfg := server["mcp_config"].(map[string]any)
		exe := "server/stitchslop-bridge"
		platform := tg.goos
		if tg.goos == "windows" {
			exe += ".exe"
			platform = "win32"
		}
		if server["type"] != "binary" || server["entry_point"] != exe || cfg["command"] != "${__dirname}/"+exe {
			t.Errorf("%s: server %v, want the binary %s", tg.goos, server, exe)
		}
		if args, _ := json.Marshal(cfg["args"]); string(args) != `["--lazy"]` {
			t.Errorf("%s: args %s, want [\"--lazy\"]", tg.goos, args)
		}
		if strings.Contains(strings.ToLower(string(raw)), "token\"") || strings.Contains(string(raw), "STITCHSLOP_TOKEN") {
			t.Errorf("%s: the manifest mentions a token setting:\n%s", tg.goos, raw)
		}
		if env, _ := json.Marshal(cfg["env"]); string(env) != `{"STITCHSLOP_ORIGIN":"${user_config.origin}"}` {
			t.Errorf("%s: env %s, want only STITCHSLOP_ORIGIN from user_config.origin", tg.goos, env)
		}
		uc := m["user_config"].(map[string]any)
		if len(uc) != 1 || uc["origin"] == nil {
			t.Errorf("%s: user_config %v, want the site only", tg.goos, uc)
		}
		if p, _ := json.Marshal(m["compatibility"]); string(p) != `{"platforms":["`+platform+`"]}` {
			t.Errorf("%s: compatibility %s, want platforms [%s]", tg.goos, p, platform)
		}
	}
}

// TestPack_NoBundleForFreeBSD: pack skips a target no MCP Bundle host
// runs on, saying so, and writes nothing.
func TestPack_NoBundleForFreeBSD(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := run([]string{"pack", "-binary", "missing", "-goos", "freebsd", "-goarch", "amd64", "-version", "1.2.3",
		"-date", commitTime.Format(time.RFC3339), "-out", dir}, &out)
	if err != nil {
		t.Fatalf("pack for freebsd: %v", err)
	}
	if !strings.Contains(out.String(), "no bundle for freebsd/amd64") {
		t.Errorf("pack for freebsd printed %q, want it to say there is no bundle", out.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("pack for freebsd wrote %d files", len(ents))
	}
}

// TestServerJSON_RegistrySchema: server.json generated from checksums.txt
// is valid against the registry's schema, has one mcpb package per bundle
// whose identifier is the bundle's release URL and whose fileSha256 is the
// bundle's own SHA-256.
func TestServerJSON_RegistrySchema(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	bundles := map[string][]byte{}
	for _, tg := range desktopTargets {
		bin := []byte("binary for " + tg.goos + "/" + tg.goarch)
		if err := os.WriteFile(filepath.Join(dir, "bin"), bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "LICENSE"), []byte("MIT"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run([]string{"pack", "-binary", filepath.Join(dir, "bin"), "-goos", tg.goos, "-goarch", tg.goarch,
			"-version", "1.2.3", "-date", commitTime.Format(time.RFC3339), "-license", filepath.Join(dir, "LICENSE"),
			"-out", filepath.Join(dir, "dist")}, &out); err != nil {
			t.Fatal(err)
		}
		name := "stitchslop-bridge_1.2.3_" + tg.goos + "_" + tg.goarch + ".mcpb"
		data, err := os.ReadFile(filepath.Join(dir, "dist", name))
		if err != nil {
			t.Fatalf("pack wrote no %s: %v", name, err)
		}
		bundles[name] = data
		lines = append(lines, sum(data)+"  "+name)
	}
	// Other assets are in checksums.txt too; only bundles become packages.
	lines = append(lines, strings.Repeat("a", 64)+"  stitchslop-bridge_1.2.3_linux_amd64.tar.gz")
	checksums := filepath.Join(dir, "dist", "checksums.txt")
	if err := os.WriteFile(checksums, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "dist", "server.json")
	if err := run([]string{"server-json", "-checksums", checksums, "-version", "1.2.3", "-tag", "v1.2.3", "-out", out}, io.Discard); err != nil {
		t.Fatalf("server-json: %v", err)
	}
	// -files: the bundles in a directory must be the listed ones.
	if err := run([]string{"server-json", "-checksums", checksums, "-version", "1.2.3", "-tag", "v1.2.3", "-files", filepath.Join(dir, "dist"), "-out", out}, io.Discard); err != nil {
		t.Fatalf("server-json -files over the bundles themselves: %v", err)
	}
	tampered := filepath.Join(dir, "dist", "stitchslop-bridge_1.2.3_linux_arm64.mcpb")
	if err := os.WriteFile(tampered, append(bundles["stitchslop-bridge_1.2.3_linux_arm64.mcpb"], 'x'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"server-json", "-checksums", checksums, "-version", "1.2.3", "-tag", "v1.2.3", "-files", filepath.Join(dir, "dist"), "-out", out + ".2"}, io.Discard); err == nil || !strings.Contains(err.Error(), "linux_arm64.mcpb") {
		t.Errorf("server-json -files with a tampered bundle = %v, want an error naming it", err)
	}
	if _, err := os.Stat(out + ".2"); err == nil {
		t.Error("server-json -files wrote server.json although a bundle did not match")
	}
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, loadSchema(t, "server.schema.json"), doc); err != nil {
		t.Fatalf("server.json is not valid against the registry schema: %v\n%s", err, doc)
	}
	var s struct {
		Schema      string `json:"$schema"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Version     string `json:"version"`
		Packages    []struct {
			RegistryType string `json:"registryType"`
			Identifier   string `json:"identifier"`
			FileSHA256   string `json:"fileSha256"`
			Transport    struct {
				Type string `json:"type"`
			} `json:"transport"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json" {
		t.Errorf("$schema = %q, want the vendored schema's $id", s.Schema)
	}
	if s.Name != "io.github.stitchslop/stitchslop-bridge" || s.Version != "1.2.3" {
		t.Errorf("name %q version %q", s.Name, s.Version)
	}
	if len(s.Packages) != len(desktopTargets) {
		t.Fatalf("%d packages, want one per bundle (%d)", len(s.Packages), len(desktopTargets))
	}
	for _, p := range s.Packages {
		name := strings.TrimPrefix(p.Identifier, "https://github.com/stitchslop/stitchslop-bridge/releases/download/v1.2.3/")
		data, ok := bundles[name]
		if !ok {
			t.Errorf("package identifier %s is not a bundle's release URL", p.Identifier)
			continue
		}
		if p.FileSHA256 != sum(data) {
			t.Errorf("%s: fileSha256 %s, but the bundle's SHA-256 is %s", name, p.FileSHA256, sum(data))
		}
		if p.RegistryType != "mcpb" || p.Transport.Type != "stdio" {
			t.Errorf("%s: registryType %q transport %q, want mcpb over stdio", name, p.RegistryType, p.Transport.Type)
		}
	}
}

// TestServerJSON_Refusals: no entry for a pre-release, for a version that
// is not the tag's, or when bundles are missing.
func TestServerJSON_Refusals(t *testing.T) {
	full := map[string]string{}
	for _, tg := range desktopTargets {
		full["stitchslop-bridge_1.2.3_"+tg.goos+"_"+tg.goarch+".mcpb"] = strings.Repeat("b", 64)
	}
	short := map[string]string{"stitchslop-bridge_1.2.3_darwin_arm64.mcpb": strings.Repeat("b", 64)}
	for _, c := range []struct {
		name, version, tag string
		sums               map[string]string
		want               string
	}{
		{"pre-release", "1.2.3-rc.1", "v1.2.3-rc.1", full, "not a release tag"},
		{"other version", "1.2.4", "v1.2.3", full, "without the v"},
		{"missing bundles", "1.2.3", "v1.2.3", short, "lists 1 bundles, want 6"},
	} {
		_, err := serverJSON(c.version, c.tag, c.sums)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: serverJSON = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
