package setup

import (
	"fmt"
	"regexp"
)

// The MCP Bundle (.mcpb) of each release (scripts/release/mcpb): Claude
// Desktop installs it by double-click, and it runs the binary inside it
// with --lazy, so no token is written into any file. Each release has one
// per OS and arch below, listed in its signed checksums.txt.

// releasesURL is where the releases are downloaded from.
const releasesURL = "https://github.com/stitchslop/stitchslop-bridge/releases"

// bundleGOOS are the systems with a bundle (freebsd has none).
var bundleGOOS = map[string]bool{"darwin": true, "windows": true, "linux": true}

// releaseVersion is a version a release was made from: vX.Y.Z's tag
// without the v, or a pre-release of it. Snapshots and development
// builds have no release to download from.
var releaseVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-(alpha|beta|rc)(\.[0-9]+)?)?$`)

// BundleOffer says how to install the bundle: where to download it, how
// to check it with stitchslop-verify, and the double-click.
type BundleOffer struct {
	// File is the release asset's name, for this OS and arch.
	File string `json:"file"`
	// URL is File's download URL in this version's release, or, when this
	// binary is not from a release, the page of the latest release (and
	// File then says VERSION for its version).
	URL string `json:"url"`
	// Verify is "stitchslop-verify FILE" for each shell, run where File,
	// checksums.txt and checksums.txt.sigstore.json were downloaded.
	Verify []Snippet `json:"verify"`
	// Steps are what to do, in order, for a person.
	Steps []string `json:"steps"`
}

// bundleOffer is the offer for Claude Desktop on goos/goarch, or nil
// where no bundle is made.
func (b *builder) bundleOffer(c string) *BundleOffer {
	goos, goarch := b.o.GOOS, b.o.GOARCH
	if !bundleGOOS[goos] || (goarch != "amd64" && goarch != "arm64") {
		return nil
	}
	v := b.o.Version
	o := &BundleOffer{}
	var download string
	if releaseVersion.MatchString(v) {
		o.File = fmt.Sprintf("stitchslop-bridge_%s_%s_%s.mcpb", v, goos, goarch)
		o.URL = releasesURL + "/download/v" + v + "/" + o.File
		download = "Download " + o.File
	} else {
		// A snapshot or a development build: its bundle was never
		// published; the latest release's is the one to take.
		o.File = fmt.Sprintf("stitchslop-bridge_VERSION_%s_%s.mcpb", goos, goarch)
		o.URL = releasesURL + "/latest"
		download = "Download the latest release's " + o.File + " (VERSION is its version; this binary, version " + v + ", is not from a release)"
	}
	f := &form{client: c}
	b.command(f, []string{"stitchslop-verify", o.File})
	o.Verify = f.snippets
	site := "leave it as it is"
	if b.site != "" {
		site = "enter " + b.site
	}
	o.Steps = []string{
		download + " and, from the same release, checksums.txt and checksums.txt.sigstore.json, into one folder:",
		"Check it there with stitchslop-verify (go install github.com/stitchslop/stitchslop-bridge/cmd/stitchslop-verify@latest): it must say OK. Do not open a bundle it refuses.",
		"Double-click " + o.File + " and choose Install in Claude Desktop (or drag it onto Settings > Extensions). When it asks for the Stitch Slop site, " + site + ".",
		"In a new chat, ask Claude to pair with Stitch Slop and paste the token from the Stitch Slop agent panel; Claude Desktop never stores it.",
	}
	return o
}
