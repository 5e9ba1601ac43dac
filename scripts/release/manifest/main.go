// Command manifest writes and checks the release metadata in GoReleaser's
// dist directory.
//
//	go run ./scripts/release/manifest generate [-dist dist] [-tag vX.Y.Z]
//	go run ./scripts/release/manifest check [-dist dist]
//	go run ./scripts/release/manifest stage [-dist dist] -out DIR
//
// generate writes dist/release-manifest.json, the document the Stitch Slop
// page embeds as is (schema in docs/release.md, "release-manifest.json").
// Every SHA-256 and size in it is recomputed from the files, not copied from
// GoReleaser. Its date is the commit time ($SOURCE_DATE_EPOCH when set,
// otherwise the commit's time from git), so rebuilding the same commit
// writes the same bytes. A snapshot (a version that is not its tag without
// the v) says "snapshot": true and carries no tag and no URLs: there is no
// release to download it from. The release workflow signs the manifest like
// checksums.txt (release-manifest.json.sigstore.json).
//
// check verifies that the archives, raw binaries, SBOMs, MCP Bundles,
// checksums.txt, the manifest (when present), the Homebrew cask and the
// Scoop manifest all agree with each other and with the bytes on disk, that
// every archive holds the same binaries as the matching raw binaries (the
// bridge's and stitchslop's) plus exactly filesInArchive: LICENSE,
// README.md, SECURITY.md, each program's four shell completions and man
// page, and that every bundle holds exactly the bridge's binary, LICENSE and a manifest.json of this version
// (scripts/release/mcpb writes them).
//
// stage copies the release assets into DIR under their release names, as a
// person downloading them from the release page would have them (raw
// binaries live in per-target build directories in dist).
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/version"

	"github.com/stitchslop/stitchslop-bridge/scripts/release/internal/sums"
)

const (
	project = "stitchslop-bridge"
	// tool is the module's second program, the tools a person runs by
	// hand: in every archive, beside the bridge, and never in a bundle.
	tool        = "stitchslop"
	downloadURL = "https://github.com/stitchslop/stitchslop-bridge/releases/download"
	// manifestSchema is bumped on any incompatible change to the manifest.
	// 2: date, snapshot and the manifest's own signature; snapshots have
	// empty tag and URLs.
	manifestSchema = 2
	manifestName   = "release-manifest.json"
	checksumsName  = "checksums.txt"
	// maxManPage bounds how much of the gzipped man page check reads; the
	// page is about 10 KiB.
	maxManPage = 1 << 20
	// maxBundleEntry bounds how much of one file in a bundle check reads:
	// the binary is about 15 MiB.
	maxBundleEntry = 256 << 20
)

// bundleTargets are the targets with an MCP Bundle (scripts/release/mcpb
// skips freebsd: no MCP Bundle host runs there).
var bundleTargets = []string{
	"darwin_amd64", "darwin_arm64",
	"linux_amd64", "linux_arm64",
	"windows_amd64", "windows_arm64",
}

// targets is the release matrix; it must match .goreleaser.yaml builds.
var targets = []string{
	"darwin_amd64", "darwin_arm64",
	"freebsd_amd64", "freebsd_arm64",
	"linux_amd64", "linux_arm64",
	"windows_amd64", "windows_arm64",
}

// filesInArchive are the non-binary files every archive must hold: their
// path inside the archive and the file, relative to the repository root,
// whose bytes they must be. The completions and the man page are written by
// scripts/release/completions.sh into build/ (.goreleaser.yaml before.hooks
// and archives.files; the Homebrew cask installs them from these paths).
var filesInArchive = []struct{ path, src string }{
	{"LICENSE", "LICENSE"},
	{"README.md", "README.md"},
	{"SECURITY.md", "SECURITY.md"},
	{"completions/stitchslop-bridge.bash", "build/completions/stitchslop-bridge.bash"},
	{"completions/_stitchslop-bridge", "build/completions/_stitchslop-bridge"},
	{"completions/stitchslop-bridge.fish", "build/completions/stitchslop-bridge.fish"},
	{"completions/stitchslop-bridge.ps1", "build/completions/stitchslop-bridge.ps1"},
	{"manpages/stitchslop-bridge.1.gz", "build/manpages/stitchslop-bridge.1.gz"},
	{"completions/stitchslop.bash", "build/completions/stitchslop.bash"},
	{"completions/_stitchslop", "build/completions/_stitchslop"},
	{"completions/stitchslop.fish", "build/completions/stitchslop.fish"},
	{"completions/stitchslop.ps1", "build/completions/stitchslop.ps1"},
	{"manpages/stitchslop.1.gz", "build/manpages/stitchslop.1.gz"},
}

// manPages are the gzipped man pages in build/, of each program;
// checkManPage checks that a gzip header records no name and no time, so
// its bytes are reproducible.
var manPages = []string{project, tool}

// Manifest is release-manifest.json. Field names are part of the page's
// contract: change them only with manifestSchema.
type Manifest struct {
	Schema   int    `json:"schema"`
	Project  string `json:"project"`
	Version  string `json:"version"`
	Snapshot bool   `json:"snapshot"`
	Tag      string `json:"tag"`
	Commit   string `json:"commit"`
	// Date is the commit time, RFC 3339 in UTC: the same for every
	// rebuild of the commit.
	Date              string   `json:"date"`
	Protocol          int      `json:"protocol"`
	Checksums         FileRef  `json:"checksums"`
	Signature         FileRef  `json:"checksums_signature"`
	ManifestSignature FileRef  `json:"manifest_signature"`
	Targets           []Target `json:"targets"`
}

// FileRef names a release asset and where to download it (URL is empty in
// a snapshot).
type FileRef struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Target is one OS/arch.
type Target struct {
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	Archive Asset  `json:"archive"`
	Binary  Asset  `json:"binary"`
	// Tool is stitchslop's raw binary, which the archive holds beside the
	// bridge. Added within schema 2: a reader that ignores unknown fields
	// is unaffected, and the bridge's identity stays Binary's.
	Tool Asset `json:"tool"`
	SBOM Asset `json:"sbom"`
	// Bundle is the MCP Bundle (.mcpb) for Claude Desktop; absent for
	// targets without one (freebsd). Added within schema 2: a reader that
	// ignores unknown fields is unaffected.
	Bundle *Asset `json:"bundle,omitempty"`
}

// Asset is one downloadable file.
type Asset struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	URL    string `json:"url"`
}

// artifact is the part of an entry in GoReleaser's dist/artifacts.json we use.
type artifact struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"`
	GOOS   string         `json:"goos"`
	GOARCH string         `json:"goarch"`
	Type   string         `json:"type"`
	Extra  map[string]any `json:"extra"`
}

type metadata struct {
	ProjectName string `json:"project_name"`
	Tag         string `json:"tag"`
	Version     string `json:"version"`
	Commit      string `json:"commit"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "release-manifest: error: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: manifest generate|check [-dist DIR] [-tag TAG]")
	}
	cmd := args[0]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	dist := fs.String("dist", "dist", "GoReleaser dist directory")
	tag := fs.String("tag", "", "release tag for download URLs (default: the tag in dist/metadata.json)")
	out := fs.String("out", "", "stage: directory to copy the release assets into")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	rel, err := load(*dist, *tag)
	if err != nil {
		return err
	}
	switch cmd {
	case "generate":
		m, err := rel.manifest()
		if err != nil {
			return err
		}
		data, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		out := filepath.Join(*dist, manifestName)
		if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d targets)\n", out, len(m.Targets))
		return nil
	case "check":
		n, err := rel.check()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "release check: OK: %d targets; the %d files in %s/%s, the archives' contents, the SBOMs, %s, the cask and the scoop manifest agree\n",
			len(targets), n, *dist, checksumsName, manifestName)
		return nil
	case "stage":
		if *out == "" {
			return errors.New("stage needs -out DIR")
		}
		n, err := rel.stage(*out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "staged %d release assets in %s\n", n, *out)
		return nil
	default:
		return fmt.Errorf("unknown command %q (want generate, check or stage)", cmd)
	}
}

// release is what GoReleaser left in dist, grouped per target.
type release struct {
	dist     string
	meta     metadata
	tag      string
	snapshot bool
	date     string
	archive  map[string]artifact // target -> archive
	binary   map[string]artifact // target -> raw uploadable binary
	tool     map[string]artifact // target -> stitchslop's raw binary
	sbom     map[string]artifact // target -> SBOM of its archive
	bundle   map[string]artifact // target -> MCP Bundle (bundleTargets only)
	paths    map[string]string   // asset name -> path on disk
}

func load(dist, tag string) (*release, error) {
	r := &release{dist: dist, archive: map[string]artifact{}, binary: map[string]artifact{}, tool: map[string]artifact{}, sbom: map[string]artifact{},
		bundle: map[string]artifact{}, paths: map[string]string{}}
	if err := readJSON(filepath.Join(dist, "metadata.json"), &r.meta); err != nil {
		return nil, err
	}
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(r.meta.Commit) {
		return nil, fmt.Errorf("metadata.json: commit %q is not a full SHA-1 (was goreleaser run without a git remote?)", r.meta.Commit)
	}
	r.tag = tag
	if r.tag == "" {
		r.tag = r.meta.Tag
	}
	// A release's version is its tag without the v; GoReleaser gives a
	// snapshot a version of its own (snapshot.version_template) while the
	// tag stays the last one, or v0.0.0.
	if r.meta.Version != strings.TrimPrefix(r.meta.Tag, "v") {
		if tag != "" {
			return nil, fmt.Errorf("-tag %s given, but dist holds the snapshot %s, which has no release tag", tag, r.meta.Version)
		}
		r.snapshot = true
		r.tag = ""
	} else if r.tag != r.meta.Tag {
		return nil, fmt.Errorf("-tag %s, but dist holds version %s built from tag %s", tag, r.meta.Version, r.meta.Tag)
	}
	date, err := commitDate(filepath.Dir(filepath.Clean(dist)), r.meta.Commit)
	if err != nil {
		return nil, err
	}
	r.date = date
	var arts []artifact
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &arts); err != nil {
		return nil, err
	}
	prefix := project + "_" + r.meta.Version + "_"
	toolPrefix := tool + "_" + r.meta.Version + "_"
	var sboms []artifact
	for _, a := range arts {
		// Paths in artifacts.json are relative to the project root, the
		// parent of dist.
		if !filepath.IsAbs(a.Path) {
			a.Path = filepath.Join(filepath.Dir(filepath.Clean(dist)), a.Path)
		}
		r.paths[a.Name] = a.Path
		t := a.GOOS + "_" + a.GOARCH
		switch {
		case a.Type == "Archive":
			if _, dup := r.archive[t]; dup {
				return nil, fmt.Errorf("two archives for %s", t)
			}
			r.archive[t] = a
		case a.Type == "Binary" && strings.HasPrefix(a.Name, prefix):
			// The uploadable raw binary (archives.formats: binary), as
			// opposed to the build output named plain stitchslop-bridge.
			if _, dup := r.binary[t]; dup {
				return nil, fmt.Errorf("two raw binaries for %s", t)
			}
			r.binary[t] = a
		case a.Type == "Binary" && strings.HasPrefix(a.Name, toolPrefix):
			if _, dup := r.tool[t]; dup {
				return nil, fmt.Errorf("two raw stitchslop binaries for %s", t)
			}
			r.tool[t] = a
		case a.Type == "SBOM":
			sboms = append(sboms, a)
		}
	}
	for _, s := range sboms {
		found := false
		for t, a := range r.archive {
			if s.Name == a.Name+".sbom.json" {
				r.sbom[t] = s
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("SBOM %s does not belong to any archive", s.Name)
		}
	}
	for _, t := range targets {
		for kind, m := range map[string]map[string]artifact{"archive": r.archive, "raw binary": r.binary, "raw stitchslop binary": r.tool, "SBOM": r.sbom} {
			if _, ok := m[t]; !ok {
				return nil, fmt.Errorf("no %s for %s in artifacts.json", kind, t)
			}
		}
	}
	if len(r.archive) != len(targets) || len(r.binary) != len(targets) || len(r.tool) != len(targets) || len(r.sbom) != len(targets) {
		return nil, fmt.Errorf("artifacts.json has %d archives, %d raw bridge and %d raw stitchslop binaries, %d SBOMs; want %d of each",
			len(r.archive), len(r.binary), len(r.tool), len(r.sbom), len(targets))
	}
	// The bundles are not GoReleaser artifacts (a build hook writes them
	// into dist; checksum.extra_files lists them): found by name.
	for _, t := range bundleTargets {
		osName, arch, _ := strings.Cut(t, "_")
		name := prefix + t + ".mcpb"
		path := filepath.Join(dist, name)
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("no MCP Bundle for %s: %v (the build hook scripts/release/mcpb writes it)", t, err)
		}
		r.bundle[t] = artifact{Name: name, Path: path, GOOS: osName, GOARCH: arch, Type: "MCPB"}
		r.paths[name] = path
	}
	return r, nil
}

// url is where name is downloaded from: nowhere for a snapshot, so that no
// URL in a snapshot's manifest can be mistaken for a release's.
func (r *release) url(name string) string {
	if r.snapshot {
		return ""
	}
	return downloadURL + "/" + r.tag + "/" + name
}

// commitDate is the commit's time in RFC 3339 UTC: $SOURCE_DATE_EPOCH when
// set (reproducible-builds.org convention), otherwise git's committer time.
func commitDate(repo, commit string) (string, error) {
	if sde, ok := os.LookupEnv("SOURCE_DATE_EPOCH"); ok {
		sec, err := strconv.ParseInt(sde, 10, 64)
		if err != nil || sec < 0 {
			return "", fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a non-negative number of seconds", sde)
		}
		return time.Unix(sec, 0).UTC().Format(time.RFC3339), nil
	}
	out, err := exec.Command("git", "-C", repo, "show", "-s", "--format=%ct", commit).Output()
	if err != nil {
		return "", fmt.Errorf("reading the time of commit %s with git in %s (set SOURCE_DATE_EPOCH to give it): %v", commit, repo, err)
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return "", fmt.Errorf("git gave the time of commit %s as %q: %v", commit, out, err)
	}
	return time.Unix(sec, 0).UTC().Format(time.RFC3339), nil
}

func (r *release) asset(a artifact) (Asset, error) {
	sum, size, err := hashFile(a.Path)
	if err != nil {
		return Asset{}, err
	}
	return Asset{Name: a.Name, SHA256: sum, Size: size, URL: r.url(a.Name)}, nil
}

func (r *release) manifest() (*Manifest, error) {
	m := &Manifest{
		Schema:            manifestSchema,
		Project:           project,
		Version:           r.meta.Version,
		Snapshot:          r.snapshot,
		Tag:               r.tag,
		Commit:            r.meta.Commit,
		Date:              r.date,
		Protocol:          version.Protocol,
		Checksums:         FileRef{Name: checksumsName, URL: r.url(checksumsName)},
		Signature:         FileRef{Name: checksumsName + ".sigstore.json", URL: r.url(checksumsName + ".sigstore.json")},
		ManifestSignature: FileRef{Name: manifestName + ".sigstore.json", URL: r.url(manifestName + ".sigstore.json")},
	}
	for _, t := range targets {
		osName, arch, _ := strings.Cut(t, "_")
		tgt := Target{OS: osName, Arch: arch}
		var err error
		if tgt.Archive, err = r.asset(r.archive[t]); err != nil {
			return nil, err
		}
		if tgt.Binary, err = r.asset(r.binary[t]); err != nil {
			return nil, err
		}
		if tgt.Tool, err = r.asset(r.tool[t]); err != nil {
			return nil, err
		}
		if tgt.SBOM, err = r.asset(r.sbom[t]); err != nil {
			return nil, err
		}
		if b, ok := r.bundle[t]; ok {
			a, err := r.asset(b)
			if err != nil {
				return nil, err
			}
			tgt.Bundle = &a
		}
		m.Targets = append(m.Targets, tgt)
	}
	return m, nil
}

// check returns the number of entries in checksums.txt.
func (r *release) check() (int, error) {
	sums, err := sums.Read(filepath.Join(r.dist, checksumsName))
	if err != nil {
		return 0, err
	}
	// 1. Every line of checksums.txt matches the file's bytes.
	for name, want := range sums {
		path, ok := r.paths[name]
		if !ok {
			path = filepath.Join(r.dist, name)
		}
		got, _, err := hashFile(path)
		if err != nil {
			return 0, fmt.Errorf("%s lists %s: %v", checksumsName, name, err)
		}
		if got != want {
			return 0, fmt.Errorf("%s: sha256 %s, but %s says %s", name, got, checksumsName, want)
		}
	}
	// 2. Every archive, raw binary, SBOM and bundle is listed (by the sha
	// of its real path: raw binaries live in per-target build directories).
	listed := 0
	for _, t := range targets {
		arts := []artifact{r.archive[t], r.binary[t], r.tool[t], r.sbom[t]}
		if b, ok := r.bundle[t]; ok {
			arts = append(arts, b)
		}
		for _, a := range arts {
			want, ok := sums[a.Name]
			if !ok {
				return 0, fmt.Errorf("%s is not listed in %s", a.Name, checksumsName)
			}
			got, _, err := hashFile(a.Path)
			if err != nil {
				return 0, err
			}
			if got != want {
				return 0, fmt.Errorf("%s (%s): sha256 %s, but %s says %s", a.Name, a.Path, got, checksumsName, want)
			}
			listed++
		}
	}
	if listed != len(sums) {
		return 0, fmt.Errorf("%s has %d entries, want exactly the %d archives, binaries, SBOMs and bundles", checksumsName, len(sums), listed)
	}
	// 3. Each archive holds the raw binary byte for byte, and the docs,
	// completions and man page, byte for byte too.
	root := filepath.Dir(filepath.Clean(r.dist))
	for _, prog := range manPages {
		if err := checkManPage(root, prog, r.meta.Version, r.date); err != nil {
			return 0, err
		}
	}
	for _, t := range targets {
		if err := checkArchive(root, r.archive[t], sums[r.binary[t].Name], sums[r.tool[t].Name]); err != nil {
			return 0, err
		}
		if err := checkSBOM(r.sbom[t]); err != nil {
			return 0, err
		}
		if b, ok := r.bundle[t]; ok {
			if err := checkBundle(root, b, sums[r.binary[t].Name], r.meta.Version); err != nil {
				return 0, err
			}
		}
	}
	// 4. The manifest, when generated, says exactly what a fresh one would.
	if err := r.checkManifest(); err != nil {
		return 0, err
	}
	// 5. The package-manager manifests use the same archive checksums.
	if err := r.checkPackageManagers(sums); err != nil {
		return 0, err
	}
	return len(sums), nil
}

// checkArchive checks that the archive holds exactly the two binaries and
// filesInArchive, each binary byte for byte its raw binary (the bridge's,
// toolSHA stitchslop's), and every other file byte for byte its source
// under root.
func checkArchive(root string, a artifact, binarySHA, toolSHA string) error {
	contents, err := archiveFiles(a.Path)
	if err != nil {
		return fmt.Errorf("%s: %v", a.Name, err)
	}
	bin, toolBin := project, tool
	if a.GOOS == "windows" {
		bin, toolBin = bin+".exe", toolBin+".exe"
	}
	want := map[string]string{bin: binarySHA, toolBin: toolSHA}
	wantNames := []string{bin, toolBin}
	for _, f := range filesInArchive {
		sum, _, err := hashFile(filepath.Join(root, f.src))
		if err != nil {
			return fmt.Errorf("%s should hold %s: %v", a.Name, f.path, err)
		}
		want[f.path] = sum
		wantNames = append(wantNames, f.path)
	}
	for _, name := range wantNames {
		if _, ok := contents[name]; !ok {
			return fmt.Errorf("%s does not contain %s", a.Name, name)
		}
	}
	if len(contents) != len(want) {
		var names []string
		for n := range contents {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("%s holds %q, want exactly %q", a.Name, names, wantNames)
	}
	for _, name := range wantNames {
		whose := "its source's"
		if name == bin || name == toolBin {
			// The SHA-256 a running bridge reports of itself is then the
			// raw binary's line in checksums.txt (docs/protocol.md §7.18).
			whose = "the released binary's"
		}
		if contents[name] != want[name] {
			return fmt.Errorf("%s: %s inside has sha256 %s, want %s %s", a.Name, name, contents[name], whose, want[name])
		}
	}
	return nil
}

// checkBundle checks that the MCP Bundle holds exactly manifest.json (for
// this version, on this platform), LICENSE byte for byte, and the binary
// byte for byte the raw binary, executable, at the manifest's entry point.
func checkBundle(root string, a artifact, binarySHA, version string) error {
	zr, err := zip.OpenReader(a.Path)
	if err != nil {
		return fmt.Errorf("%s: %v", a.Name, err)
	}
	defer zr.Close()
	bin := "server/" + project
	if a.GOOS == "windows" {
		bin += ".exe"
	}
	license, _, err := hashFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return err
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %s: %v", a.Name, f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxBundleEntry))
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %s: %v", a.Name, f.Name, err)
		}
		h := sha256.Sum256(data)
		got := hex.EncodeToString(h[:])
		switch f.Name {
		case bin:
			if got != binarySHA {
				return fmt.Errorf("%s: %s inside has sha256 %s, want the released binary's %s", a.Name, bin, got, binarySHA)
			}
			if f.Mode() != 0o755 {
				return fmt.Errorf("%s: %s has mode %v, want 0755", a.Name, bin, f.Mode())
			}
		case "LICENSE":
			if got != license {
				return fmt.Errorf("%s: LICENSE inside is not the repository's", a.Name)
			}
		case "manifest.json":
			var m struct {
				Version string `json:"version"`
				Server  struct {
					EntryPoint string `json:"entry_point"`
				} `json:"server"`
				Compatibility struct {
					Platforms []string `json:"platforms"`
				} `json:"compatibility"`
			}
			if err := json.Unmarshal(data, &m); err != nil {
				return fmt.Errorf("%s: manifest.json: %v", a.Name, err)
			}
			platform := map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win32"}[a.GOOS]
			if m.Version != version || m.Server.EntryPoint != bin || len(m.Compatibility.Platforms) != 1 || m.Compatibility.Platforms[0] != platform {
				return fmt.Errorf("%s: manifest.json says version %q, entry point %q, platforms %q; want %s, %s, [%s]",
					a.Name, m.Version, m.Server.EntryPoint, m.Compatibility.Platforms, version, bin, platform)
			}
		}
	}
	want := []string{"LICENSE", "manifest.json", bin}
	sort.Strings(want)
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		return fmt.Errorf("%s holds %q, want exactly %q in that order", a.Name, names, want)
	}
	return nil
}

// checkManPage checks that the gzipped man page of prog is reproducible
// (no file name or time in the gzip header, as gzip -n writes it) and holds
// a man page for the version being released, dated like the commit (date
// is RFC 3339).
func checkManPage(root, prog, version, date string) error {
	manPage := "build/manpages/" + prog + ".1.gz"
	path := filepath.Join(root, manPage)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %v", manPage, err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		return fmt.Errorf("%s: the gzip header records name %q and time %v; want neither (gzip -n), so rebuilds are identical", manPage, zr.Name, zr.ModTime)
	}
	page, err := io.ReadAll(io.LimitReader(zr, maxManPage))
	if err != nil {
		return fmt.Errorf("%s: %v", manPage, err)
	}
	// The header line, e.g.
	//   .TH STITCHSLOP-BRIDGE 1 "2026\-12\-01" "stitchslop\-bridge 1.2.3" "User Commands"
	// with the commit's date; roff escapes every hyphen.
	esc := func(s string) string { return strings.ReplaceAll(s, "-", `\-`) }
	th := `.TH ` + strings.ToUpper(prog) + ` 1 "` + esc(date[:len("2006-01-02")]) + `" "` + esc(prog) + ` ` + esc(version) + `" "User Commands"` + "\n"
	if !bytes.Contains(page, []byte("\n"+th)) {
		return fmt.Errorf("%s has no line %s: not the man page of version %s from %s", manPage, strings.TrimSpace(th), version, date)
	}
	return nil
}

// archiveFiles returns the SHA-256 of every regular file in a tar.gz or zip.
func archiveFiles(path string) (map[string]string, error) {
	out := map[string]string{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			h := sha256.New()
			_, err = io.Copy(h, rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
			out[f.Name] = hex.EncodeToString(h.Sum(nil))
		}
		return out, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		h := sha256.New()
		if _, err := io.Copy(h, tr); err != nil {
			return nil, err
		}
		out[hdr.Name] = hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

func checkSBOM(a artifact) error {
	var doc struct {
		BOMFormat  string `json:"bomFormat"`
		Components []struct {
			Name string `json:"name"`
		} `json:"components"`
		Metadata struct {
			Component struct {
				Name string `json:"name"`
			} `json:"component"`
		} `json:"metadata"`
	}
	if err := readJSON(a.Path, &doc); err != nil {
		return err
	}
	if doc.BOMFormat != "CycloneDX" {
		return fmt.Errorf("%s: bomFormat %q, want CycloneDX", a.Name, doc.BOMFormat)
	}
	if !strings.HasSuffix(doc.Metadata.Component.Name, project) {
		return fmt.Errorf("%s: describes %q, want the %s module", a.Name, doc.Metadata.Component.Name, project)
	}
	return nil
}

func (r *release) checkManifest() error {
	path := filepath.Join(r.dist, manifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is missing: run `go run ./scripts/release/manifest generate` first", path)
	}
	if err != nil {
		return err
	}
	var got Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	want, err := r.manifest()
	if err != nil {
		return err
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(gotJSON, wantJSON) {
		return fmt.Errorf("%s does not match the files in %s:\n got %s\nwant %s", path, r.dist, gotJSON, wantJSON)
	}
	return nil
}

// checkPackageManagers compares the sha256 values in the generated Homebrew
// cask and Scoop manifest with checksums.txt, and checks that the cask's
// completions and man page are files the archives hold.
func (r *release) checkPackageManagers(sums map[string]string) error {
	byHash := map[string]string{}
	for name, h := range sums {
		byHash[h] = name
	}
	cask, err := os.ReadFile(filepath.Join(r.dist, "homebrew", "Casks", project+".rb"))
	if err != nil {
		return fmt.Errorf("homebrew cask: %v", err)
	}
	caskSHAs := regexp.MustCompile(`sha256 "([0-9a-f]{64})"`).FindAllSubmatch(cask, -1)
	if len(caskSHAs) != 4 {
		return fmt.Errorf("homebrew cask: %d sha256 lines, want 4 (darwin and linux, amd64 and arm64)", len(caskSHAs))
	}
	for _, m := range caskSHAs {
		name, ok := byHash[string(m[1])]
		if !ok || !strings.HasSuffix(name, ".tar.gz") || !(strings.Contains(name, "_darwin_") || strings.Contains(name, "_linux_")) {
			return fmt.Errorf("homebrew cask: sha256 %s is not a darwin or linux archive in %s", m[1], checksumsName)
		}
	}
	// The cask installs the completions and the man page from the archive:
	// each path it names must be one the archives hold.
	inArchive := map[string]bool{}
	for _, f := range filesInArchive {
		inArchive[f.path] = true
	}
	// One completion per shell (a cask takes one: the bridge's); a man
	// page of each program.
	for stanza, n := range map[string]int{"bash_completion": 1, "zsh_completion": 1, "fish_completion": 1, "manpage": len(manPages)} {
		m := regexp.MustCompile(`(?m)^\s*`+stanza+` "([^"]*)"$`).FindAllSubmatch(cask, -1)
		if len(m) != n {
			return fmt.Errorf("homebrew cask: %d %s lines, want %d", len(m), stanza, n)
		}
		for _, l := range m {
			if !inArchive[string(l[1])] {
				return fmt.Errorf("homebrew cask: %s %q is not a file the archives hold", stanza, l[1])
			}
		}
	}
	var scoop struct {
		Version      string `json:"version"`
		Architecture map[string]struct {
			URL  string `json:"url"`
			Hash string `json:"hash"`
		} `json:"architecture"`
	}
	if err := readJSON(filepath.Join(r.dist, "scoop", project+".json"), &scoop); err != nil {
		return err
	}
	if len(scoop.Architecture) != 2 {
		return fmt.Errorf("scoop manifest: %d architectures, want 2", len(scoop.Architecture))
	}
	for arch, a := range scoop.Architecture {
		name := a.URL[strings.LastIndex(a.URL, "/")+1:]
		if sums[name] == "" || sums[name] != a.Hash || !strings.HasSuffix(name, ".zip") {
			return fmt.Errorf("scoop manifest: %s entry %s (hash %s) does not match a zip in %s", arch, name, a.Hash, checksumsName)
		}
	}
	return nil
}

// stage copies every file listed in checksums.txt, and checksums.txt, the
// manifest and their bundles when present, into dir.
func (r *release) stage(dir string) (int, error) {
	sums, err := sums.Read(filepath.Join(r.dist, checksumsName))
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for name := range sums {
		src, ok := r.paths[name]
		if !ok {
			src = filepath.Join(r.dist, name)
		}
		if err := copyFile(src, filepath.Join(dir, name)); err != nil {
			return 0, err
		}
		n++
	}
	for _, name := range []string{checksumsName, checksumsName + ".sigstore.json", manifestName, manifestName + ".sigstore.json"} {
		src := filepath.Join(r.dist, name)
		if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) && name != checksumsName {
			continue
		}
		if err := copyFile(src, filepath.Join(dir, name)); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}
