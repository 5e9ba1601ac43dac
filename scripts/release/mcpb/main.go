// Command mcpb writes the release's MCP Bundles (.mcpb, installed by
// double-click in Claude Desktop) and its MCP Registry entry (server.json).
//
//	go run ./scripts/release/mcpb pack -binary PATH -goos OS -goarch ARCH -version V -date RFC3339 -license FILE -out DIR
//	go run ./scripts/release/mcpb server-json -checksums dist/checksums.txt -version V -tag vX.Y.Z [-files DIR] -out dist/server.json
//
// pack is run by GoReleaser for every build (.goreleaser.yaml,
// builds.hooks.post, after Authenticode) and writes
// DIR/stitchslop-bridge_V_OS_ARCH.mcpb for the desktop targets (darwin,
// windows and linux; freebsd has no MCP Bundle host and is skipped, said
// so). A bundle is a zip of exactly three files: manifest.json (MCPB
// manifest_version 0.3, the current one of modelcontextprotocol/mcpb's
// MANIFEST.md), server/stitchslop-bridge[.exe] (the release binary, byte
// for byte) and LICENSE. Its bytes depend only on its inputs: entries in
// sorted order, each stamped with the commit time and a fixed mode (0755
// for the binary, 0644 otherwise), deflated by the standard library, with no
// comment and no extra fields beyond the timestamp archive/zip writes for
// the time. scripts/release/reproducible.sh builds every bundle twice and
// compares them; checksums.txt lists them (checksum.extra_files).
//
// The bundle's server runs the binary with --lazy: it listens on nothing
// and needs no token until the agent calls pair, so no token is ever
// written into Claude Desktop's configuration. The one choice a user makes
// at install is the Stitch Slop site (user_config.origin, passed as
// STITCHSLOP_ORIGIN; empty means the default site). The tools are the
// connected tab's, so the manifest lists none and says tools_generated.
//
// server-json writes the MCP Registry entry for a release: one mcpb package
// per bundle listed in checksums.txt, its identifier the bundle's release
// download URL and its fileSha256 the checksums.txt line, valid against the
// registry's schema (testdata/server.schema.json, checked by this
// package's tests). The release workflow publishes it after the release is
// public (scripts/release/registry.sh), never for a pre-release. With
// -files DIR it first checks that every bundle it lists is in DIR with that
// SHA-256 (there: the downloaded public release).
package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/scripts/release/internal/sums"
)

const (
	project = "stitchslop-bridge"
	// repoURL is the canonical repository; download URLs are under it.
	repoURL     = "https://github.com/stitchslop/stitchslop-bridge"
	downloadURL = repoURL + "/releases/download"
	// manifestVersion is the MCPB manifest version: "Current version" in
	// modelcontextprotocol/mcpb's MANIFEST.md (read at commit 27083dcf,
	// 2025-12-03).
	manifestVersion = "0.3"
	// registryName is the server's name in the MCP Registry: the
	// io.github.<owner> namespace is the one the registry grants to the
	// GitHub organisation's workflow (mcp-publisher login github-oidc).
	registryName = "io.github.stitchslop/stitchslop-bridge"
	// registrySchema is the registry schema server.json conforms to
	// ($schema), the one vendored in testdata.
	registrySchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	// description is the one-line description (the registry allows at most
	// 100 characters; the test checks it).
	description = "Local bridge between an AI agent and a Stitch Slop tab in your browser"
	// originEnv is the variable the bridge reads its site from when
	// --origin is not given (internal/cli.OriginEnv).
	originEnv = "STITCHSLOP_ORIGIN"
	// defaultOrigin is the site the bridge serves by default
	// (internal/cli.DefaultOrigin).
	defaultOrigin = "https://www.stitchslop.com"
)

// bundleOS maps the GOOS values that get a bundle to the MCPB platform
// name (Node's process.platform).
var bundleOS = map[string]string{"darwin": "darwin", "windows": "win32", "linux": "linux"}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "mcpb: error: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: mcpb pack|server-json [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	binary := fs.String("binary", "", "pack: the release binary")
	goos := fs.String("goos", "", "pack: its GOOS")
	goarch := fs.String("goarch", "", "pack: its GOARCH")
	ver := fs.String("version", "", "the release version (no v)")
	date := fs.String("date", "", "pack: the commit time, RFC 3339")
	license := fs.String("license", "LICENSE", "pack: the licence file shipped in the bundle")
	out := fs.String("out", "", "pack: output directory; server-json: output file")
	checksums := fs.String("checksums", "", "server-json: checksums.txt")
	tag := fs.String("tag", "", "server-json: the release tag (vX.Y.Z)")
	files := fs.String("files", "", "server-json: directory whose bundles must have the SHA-256 checksums.txt gives")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	switch args[0] {
	case "pack":
		if _, ok := bundleOS[*goos]; !ok {
			fmt.Fprintf(stdout, "mcpb: no bundle for %s/%s: MCP Bundles run on darwin, windows and linux only\n", *goos, *goarch)
			return nil
		}
		t, err := time.Parse(time.RFC3339, *date)
		if err != nil {
			return fmt.Errorf("-date %q: %v", *date, err)
		}
		bin, err := os.ReadFile(*binary)
		if err != nil {
			return fmt.Errorf("reading the binary: %w", err)
		}
		lic, err := os.ReadFile(*license)
		if err != nil {
			return fmt.Errorf("reading the licence: %w", err)
		}
		data, err := pack(*goos, *ver, t, bin, lic)
		if err != nil {
			return err
		}
		path := filepath.Join(*out, BundleName(*ver, *goos, *goarch))
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "mcpb: wrote %s (%d bytes)\n", path, len(data))
		return nil
	case "server-json":
		sums, err := sums.Read(*checksums)
		if err != nil {
			return err
		}
		data, err := serverJSON(*ver, *tag, sums)
		if err != nil {
			return err
		}
		if *files != "" {
			if err := checkFiles(*files, sums); err != nil {
				return err
			}
		}
		if err := os.WriteFile(*out, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "mcpb: wrote %s\n", *out)
		return nil
	default:
		return fmt.Errorf("unknown command %q (want pack or server-json)", args[0])
	}
}

// BundleName is the release asset name of the bundle for goos/goarch,
// named like the archives.
func BundleName(version, goos, goarch string) string {
	return project + "_" + version + "_" + goos + "_" + goarch + ".mcpb"
}

// binaryPath is where the binary sits inside the bundle.
func binaryPath(goos string) string {
	if goos == "windows" {
		return "server/" + project + ".exe"
	}
	return "server/" + project
}

// Manifest is the part of the MCPB manifest (MANIFEST.md, version 0.3)
// the bundles use.
type Manifest struct {
	ManifestVersion string                `json:"manifest_version"`
	Name            string                `json:"name"`
	DisplayName     string                `json:"display_name"`
	Version         string                `json:"version"`
	Description     string                `json:"description"`
	LongDescription string                `json:"long_description"`
	Author          Author                `json:"author"`
	Repository      Repository            `json:"repository"`
	Homepage        string                `json:"homepage"`
	Documentation   string                `json:"documentation"`
	Support         string                `json:"support"`
	Server          Server                `json:"server"`
	ToolsGenerated  bool                  `json:"tools_generated"`
	Keywords        []string              `json:"keywords"`
	License         string                `json:"license"`
	Compatibility   Compatibility         `json:"compatibility"`
	UserConfig      map[string]UserConfig `json:"user_config"`
}

type Author struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type Repository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type Server struct {
	Type       string    `json:"type"`
	EntryPoint string    `json:"entry_point"`
	MCPConfig  MCPConfig `json:"mcp_config"`
}

type MCPConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type Compatibility struct {
	Platforms []string `json:"platforms"`
}

type UserConfig struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Default     string `json:"default"`
}

// manifest is the bundle manifest for goos.
func manifest(goos, version string) Manifest {
	entry := binaryPath(goos)
	return Manifest{
		ManifestVersion: manifestVersion,
		Name:            project,
		DisplayName:     "Stitch Slop",
		Version:         version,
		Description:     description,
		LongDescription: "Lets Claude use the Stitch Slop embroidery app open in your browser. " +
			"The bridge runs on this computer and talks only to a Stitch Slop tab on this computer. " +
			"After installing, ask Claude to pair with Stitch Slop and paste the one-time token " +
			"shown in the Stitch Slop agent panel: the token is never stored in Claude's settings. " +
			"The tools are the ones the connected tab offers.",
		Author:        Author{Name: "Stitch Slop", URL: "https://github.com/stitchslop"},
		Repository:    Repository{Type: "git", URL: repoURL + ".git"},
		Homepage:      repoURL,
		Documentation: repoURL + "#readme",
		Support:       repoURL + "/issues",
		Server: Server{
			Type:       "binary",
			EntryPoint: entry,
			MCPConfig: MCPConfig{
				Command: "${__dirname}/" + entry,
				// --lazy: no listener, no token, until the agent calls
				// pair (setup.LazyFlag).
				Args: []string{"--lazy"},
				Env:  map[string]string{originEnv: "${user_config.origin}"},
			},
		},
		// The tools are the connected tab's, listed when it connects.
		ToolsGenerated: true,
		Keywords:       []string{"embroidery", "stitch slop", "browser", "design"},
		License:        "MIT",
		Compatibility:  Compatibility{Platforms: []string{bundleOS[goos]}},
		UserConfig: map[string]UserConfig{
			"origin": {
				Type:        "string",
				Title:       "Stitch Slop site",
				Description: "The Stitch Slop site your tab is open on. Leave it as it is unless you use another Stitch Slop site.",
				Required:    false,
				Default:     defaultOrigin,
			},
		},
	}
}

// zipEntry is one file in a bundle.
type zipEntry struct {
	name string
	mode os.FileMode
	data []byte
}

// pack returns the bundle's bytes: the same inputs give the same bytes.
func pack(goos, version string, date time.Time, binary, license []byte) ([]byte, error) {
	if version == "" {
		return nil, errors.New("-version is empty")
	}
	m, err := json.MarshalIndent(manifest(goos, version), "", "  ")
	if err != nil {
		return nil, err
	}
	entries := []zipEntry{
		{binaryPath(goos), 0o755, binary},
		{"LICENSE", 0o644, license},
		{"manifest.json", 0o644, append(m, '\n')},
	}
	slices.SortFunc(entries, func(a, b zipEntry) int { return strings.Compare(a.name, b.name) })
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: date.UTC()}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ServerJSON is the MCP Registry entry (schema 2025-12-11).
type ServerJSON struct {
	Schema      string    `json:"$schema"`
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Repository  RegRepo   `json:"repository"`
	Version     string    `json:"version"`
	WebsiteURL  string    `json:"websiteUrl"`
	Packages    []Package `json:"packages"`
}

type RegRepo struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type Package struct {
	RegistryType string    `json:"registryType"`
	Identifier   string    `json:"identifier"`
	Version      string    `json:"version"`
	FileSHA256   string    `json:"fileSha256"`
	Transport    Transport `json:"transport"`
}

type Transport struct {
	Type string `json:"type"`
}

var releaseTag = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// serverJSON is server.json for the release tag of version, with one mcpb
// package per bundle in sums (checksums.txt: name -> sha256), in name
// order. A pre-release is refused: it is never listed.
func serverJSON(version, tag string, sums map[string]string) ([]byte, error) {
	if !releaseTag.MatchString(tag) {
		return nil, fmt.Errorf("tag %q is not a release tag vX.Y.Z: the registry lists releases only", tag)
	}
	if strings.TrimPrefix(tag, "v") != version {
		return nil, fmt.Errorf("version %q is not tag %s without the v", version, tag)
	}
	s := ServerJSON{
		Schema:      registrySchema,
		Name:        registryName,
		Title:       "Stitch Slop",
		Description: description,
		Repository:  RegRepo{URL: repoURL, Source: "github"},
		Version:     version,
		WebsiteURL:  repoURL,
	}
	var names []string
	for name := range sums {
		if strings.HasSuffix(name, ".mcpb") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if !strings.HasPrefix(name, project+"_"+version+"_") {
			return nil, fmt.Errorf("checksums.txt lists %s, a bundle of another version than %s", name, version)
		}
		s.Packages = append(s.Packages, Package{
			RegistryType: "mcpb",
			Identifier:   downloadURL + "/" + tag + "/" + name,
			Version:      version,
			FileSHA256:   sums[name],
			Transport:    Transport{Type: "stdio"},
		})
	}
	if want := len(bundleOS) * 2; len(s.Packages) != want {
		return nil, fmt.Errorf("checksums.txt lists %d bundles, want %d (darwin, windows and linux, amd64 and arm64)", len(s.Packages), want)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// checkFiles checks that every bundle in sums is in dir with its SHA-256.
func checkFiles(dir string, sums map[string]string) error {
	for name, want := range sums {
		if !strings.HasSuffix(name, ".mcpb") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("checksums.txt lists %s: %w", name, err)
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			return fmt.Errorf("%s in %s has SHA-256 %s, but checksums.txt says %s", name, dir, got, want)
		}
	}
	return nil
}
