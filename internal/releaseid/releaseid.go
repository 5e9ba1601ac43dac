// Package releaseid is the one place that says who signs a stitchslop-bridge
// release: the GitHub Actions workflow .github/workflows/release.yml of this
// repository, running on a version tag, with GitHub's OIDC issuer.
//
// cmd/stitchslop-verify builds its keyless policy from these constants, and
// a test in this package checks that every document quoting the identity
// (README.md, docs/release.md, SECURITY.md, the release notes footer in
// .goreleaser.yaml and the workflows) quotes exactly these strings.
package releaseid

const (
	// Repository is where releases are built and published.
	Repository = "github.com/stitchslop/stitchslop-bridge"

	// Workflow is the workflow file that signs releases. Renaming it
	// changes the identity and so breaks verification of new releases.
	Workflow = ".github/workflows/release.yml"

	// SANRegexp must match the Subject Alternative Name of the Fulcio
	// certificate that signed checksums.txt and release-manifest.json. It
	// is anchored at both ends, so a fork, another workflow file or a
	// branch ref cannot match; the tag must start with v and a digit.
	// It is the value of cosign's --certificate-identity-regexp.
	SANRegexp = `^https://github\.com/stitchslop/stitchslop-bridge/\.github/workflows/release\.yml@refs/tags/v[0-9].*$`

	// OIDCIssuer is compared exactly with the certificate's OIDC issuer
	// (cosign's --certificate-oidc-issuer).
	OIDCIssuer = "https://token.actions.githubusercontent.com"
)
