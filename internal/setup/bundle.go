package setup

import (
	"fmt"
	"regexp"

	"github.com/stitchslop/stitchslop-bridge/internal/releaseid"
)

// The MCP Bundle (.mcpb) of each release (scripts/release/mcpb): Claude
// Desktop installs it by double-click, and it runs the binary inside it
// with --lazy, so no token is written into any file. Each release has one
// per OS and arch below, listed in its signed checksums.txt.

const releasesURL = "https://github.com/stitchslop/stitchslop-bridge/releases"

const repoURL = "https://github.com/stitchslop/stitchslop-bridge"

// desktopGOOS are the systems Claude Desktop is made for; elsewhere setup
// names the clients that run there instead of a config path nothing reads.
var desktopGOOS = map[string]bool{"darwin": true, "windows": true}

// releaseVersion is a version a release was made from: vX.Y.Z's tag
// without the v, or a pre-release of it. Snapshots and development
// builds have no release to download from.
var releaseVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-(alpha|beta|rc)(\.[0-9]+)?)?$`)

// BundleOffer says how to install the bundle: where to download it, the
// ways to check it before opening it, and the double-click.
type BundleOffer struct {
	// File is the release asset's name, for this OS and arch.
	File string `json:"file"`
	// URL is File's download URL in this version's release, or, when this
	// binary is not from a release, the page of the latest release (and
	// File then says VERSION for its version).
	URL string `json:"url"`
	// Verify are the ways to check File, in the order to try them, each
	// run where File and the signed checksums.txt were downloaded.
	Verify []VerifyWay `json:"verify"`
	// Steps are what to do, in order, for a person.
	Steps []string `json:"steps"`
}

// VerifyWay is one way to check a downloaded bundle. The first two need
// nothing of ours: a verifier installed from this project cannot be the
// only way to check this project's download.
type VerifyWay struct {
	// Tool is "gh", "cosign" or "stitchslop-verify".
	Tool string `json:"tool"`
	// When says what the way needs and when it applies, for a person.
	When string `json:"when"`
	// Commands are the lines to run, one snippet per shell (several lines
	// in one snippet are run in order).
	Commands []Snippet `json:"commands"`
}

// bundleOffer is the offer for Claude Desktop on goos/goarch, or nil
// where Claude Desktop does not run or no bundle is made.
func (b *builder) bundleOffer(c string) *BundleOffer {
	goos, goarch := b.o.GOOS, b.o.GOARCH
	if !desktopGOOS[goos] || (goarch != "amd64" && goarch != "arm64") {
		return nil
	}
	v := b.o.Version
	o := &BundleOffer{}
	var download, tag string
	if releaseVersion.MatchString(v) {
		o.File = fmt.Sprintf("stitchslop-bridge_%s_%s_%s.mcpb", v, goos, goarch)
		o.URL = releasesURL + "/download/v" + v + "/" + o.File
		download = "Download " + o.File
		tag = "v" + v
	} else {
		// A snapshot or a development build: its bundle was never
		// published; the latest release's is the one to take.
		o.File = fmt.Sprintf("stitchslop-bridge_VERSION_%s_%s.mcpb", goos, goarch)
		o.URL = releasesURL + "/latest"
		download = "Download the latest release's " + o.File + " (VERSION is its version; this binary, version " + v + ", is not from a release)"
		tag = "vVERSION"
	}
	o.Verify = b.verifyWays(c, o.File, tag)
	site := "leave it as it is"
	if b.site != "" {
		site = "enter " + b.site
	}
	o.Steps = []string{
		download + " and, from the same release, checksums.txt and checksums.txt.sigstore.json, into one folder:",
		"Check it there, in one of these ways. Do not open a bundle that fails the check.",
		"Double-click " + o.File + " and choose Install in Claude Desktop (or drag it onto Settings > Extensions). When it asks for the Stitch Slop site, " + site + ".",
		"In a new chat, ask Claude to pair with Stitch Slop and paste the token from the Stitch Slop agent panel; Claude Desktop never stores it.",
	}
	return o
}

// verifyWays are the ways to check file of release tag, for b's shells.
func (b *builder) verifyWays(c, file, tag string) []VerifyWay {
	// The checksum of file against the now-authentic checksums.txt:
	// sha256sum or shasum where they exist; on Windows certutil prints
	// the hash and findstr the line to compare it with.
	var sums [][]string
	switch b.o.GOOS {
	case "windows":
		sums = [][]string{{"certutil", "-hashfile", file, "SHA256"}, {"findstr", "/L", file, "checksums.txt"}}
	case "darwin":
		sums = [][]string{{"shasum", "-a", "256", "--ignore-missing", "-c", "checksums.txt"}}
	default:
		sums = [][]string{{"sha256sum", "--ignore-missing", "-c", "checksums.txt"}}
	}
	cosignCheck := "cosign prints Verified OK, then the checksum line for " + file + " says OK"
	if b.o.GOOS == "windows" {
		cosignCheck = "cosign prints Verified OK, then the hash certutil prints is the one findstr shows for " + file
	}
	src := "stitchslop-bridge-src"
	ways := []VerifyWay{
		{Tool: "gh", When: "With the GitHub CLI, logged in (gh auth login). It needs nothing of ours, and checks the build provenance GitHub stores for every file of a release.",
			Commands: b.lines(c, [][]string{{"gh", "attestation", "verify", file, "--repo", "stitchslop/stitchslop-bridge"}})},
		{Tool: "cosign", When: "Or with cosign v3, which needs nothing of ours either: " + cosignCheck + ".",
			Commands: b.lines(c, append([][]string{{"cosign", "verify-blob", "--bundle", "checksums.txt.sigstore.json",
				"--certificate-identity-regexp", releaseid.SANRegexp,
				"--certificate-oidc-issuer", releaseid.OIDCIssuer, "checksums.txt"}}, sums...))},
		{Tool: "stitchslop-verify", When: "Or with stitchslop-verify, built from a clone of the release's tag (needs git and Go 1.26); it must say OK. " +
			"go install of it works only once the module is published, which it is not yet.",
			Commands: b.lines(c, [][]string{
				{"git", "clone", "--depth", "1", "--branch", tag, repoURL, src},
				{"go", "run", "-C", src, "./cmd/stitchslop-verify", "../" + file},
			})},
	}
	return ways
}

// lines is cmds as one snippet per shell, a line each, for the shells
// that can carry every one of them.
func (b *builder) lines(c string, cmds [][]string) []Snippet {
	var out []Snippet
	for _, sh := range b.shells {
		text := ""
		ok := true
		for i, words := range cmds {
			line, err := Line(sh, words...)
			if err != nil {
				ok = false
				break
			}
			if i > 0 {
				text += "\n"
			}
			text += line
		}
		if ok {
			out = append(out, Snippet{Client: c, Kind: "command", Shell: string(sh), Text: text})
		}
	}
	return out
}
