package releaseid

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository root, relative to this package's directory.
const repoRoot = "../.."

// mustQuote are the documents that must quote the identity regexp and the
// issuer: the release document, the security policy and the release notes
// footer. Every other document is checked only where it quotes them.
var mustQuote = []string{"docs/release.md", "SECURITY.md", ".goreleaser.yaml"}

// documents lists every file checked: the Markdown at the root and in docs,
// the GoReleaser configuration and the workflows.
func documents(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.md", "docs/*.md", ".goreleaser.yaml", ".github/workflows/*.yml"} {
		m, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		if err != nil {
			t.Fatalf("Glob(%q) = %v", pattern, err)
		}
		for _, f := range m {
			rel, err := filepath.Rel(repoRoot, f)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	for _, want := range append([]string{"README.md"}, mustQuote...) {
		found := false
		for _, f := range files {
			found = found || f == want
		}
		if !found {
			t.Fatalf("documents() = %q, want it to include %s", files, want)
		}
	}
	return files
}

var (
	// A token is a run of characters up to whitespace, a quote or a
	// backtick: how a regexp or URL is quoted in Markdown, YAML and shell.
	tokenChars = "[^\\s'\"`]"
	// regexpQuote finds a quoted identity regexp: a token holding the
	// escaped workflow path, as only a regexp writes it.
	regexpQuote = regexp.MustCompile(tokenChars + `*release\\\.yml` + tokenChars + `*`)
	// regexpFlag and issuerFlag find cosign's flags and the value after them.
	regexpFlag = regexp.MustCompile(`--certificate-identity-regexp[= ]+['"]?(` + tokenChars + `*)`)
	issuerFlag = regexp.MustCompile(`--certificate-oidc-issuer[= ]+['"]?(` + tokenChars + `*)`)
	// exactIdentity finds a certificate identity written out for a concrete
	// tag (v and a digit): it must be one the regexp accepts. Placeholders
	// such as vX.Y.Z are not identities and are skipped.
	exactIdentity = regexp.MustCompile(`https://github\.com/stitchslop/stitchslop-bridge/\.github/workflows/` + tokenChars + `*@refs/tags/v[0-9]` + tokenChars + `*`)
)

// quoteProblems returns what is wrong with the identity quotes in text, and
// how many quotes of the regexp and the issuer it found.
func quoteProblems(text string) (problems []string, regexps, issuers int) {
	san := regexp.MustCompile(SANRegexp)
	for _, q := range regexpQuote.FindAllString(text, -1) {
		regexps++
		if q != SANRegexp {
			problems = append(problems, "identity regexp "+q+" differs from releaseid.SANRegexp "+SANRegexp)
		}
	}
	for _, m := range regexpFlag.FindAllStringSubmatch(text, -1) {
		if m[1] != SANRegexp {
			problems = append(problems, "--certificate-identity-regexp "+m[1]+", want "+SANRegexp)
		}
	}
	for _, m := range issuerFlag.FindAllStringSubmatch(text, -1) {
		issuers++
		if m[1] != OIDCIssuer {
			problems = append(problems, "--certificate-oidc-issuer "+m[1]+", want "+OIDCIssuer)
		}
	}
	for _, id := range exactIdentity.FindAllString(text, -1) {
		// Markdown may end a sentence or a link right after the identity.
		id = strings.TrimRight(id, ".,;:)")
		if !san.MatchString(id) {
			problems = append(problems, "identity "+id+" does not match releaseid.SANRegexp")
		}
	}
	return problems, regexps, issuers
}

// TestDocumentsQuoteTheIdentity: every document that quotes the signing
// identity quotes exactly the one the verifier enforces.
func TestDocumentsQuoteTheIdentity(t *testing.T) {
	for _, doc := range documents(t) {
		t.Run(doc, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(repoRoot, doc))
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			problems, regexps, issuers := quoteProblems(text)
			for _, p := range problems {
				t.Errorf("%s: %s", doc, p)
			}
			for _, must := range mustQuote {
				if doc == must && (regexps == 0 || issuers == 0) {
					t.Errorf("%s quotes the identity regexp %d times and the issuer %d times, want both at least once", doc, regexps, issuers)
				}
			}
		})
	}
}

// TestQuoteProblems: the checker above catches the mistakes it is for.
func TestQuoteProblems(t *testing.T) {
	tests := []struct {
		name, text   string
		wantProblems int
		wantRegexps  int
		wantIssuers  int
	}{
		{"exact", "cosign verify-blob \\\n  --certificate-identity-regexp '" + SANRegexp + "' \\\n  --certificate-oidc-issuer " + OIDCIssuer + "\n", 0, 1, 1},
		{"quoted issuer", "`--certificate-oidc-issuer 'https://token.actions.githubusercontent.com'`", 0, 0, 1},
		{"unanchored, old SECURITY.md", "`--certificate-identity-regexp '^https://github\\.com/stitchslop/stitchslop-bridge/\\.github/workflows/release\\.yml@refs/tags/v'`", 2, 1, 0},
		{"regexp without the flag", "SAN matching `^https://github\\.com/stitchslop/stitchslop-bridge/\\.github/workflows/release\\.yml@refs/tags/v.*`", 1, 1, 0},
		{"another regexp after the flag", "--certificate-identity-regexp '.*'", 1, 0, 0},
		{"wrong issuer", "--certificate-oidc-issuer=https://accounts.google.com", 1, 0, 1},
		{"good exact identity", "--certificate-identity " + SAN("v1.2.3") + ".", 0, 0, 0},
		{"identity of another workflow", "https://github.com/stitchslop/stitchslop-bridge/.github/workflows/ci.yml@refs/tags/v1.2.3", 1, 0, 0},
		{"placeholder tag", SAN("vX.Y.Z"), 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, regexps, issuers := quoteProblems(tt.text)
			if len(problems) != tt.wantProblems || regexps != tt.wantRegexps || issuers != tt.wantIssuers {
				t.Errorf("quoteProblems(%q) = %q, %d regexps, %d issuers; want %d problems, %d regexps, %d issuers",
					tt.text, problems, regexps, issuers, tt.wantProblems, tt.wantRegexps, tt.wantIssuers)
			}
		})
	}
}

// TestSAN: the exact identity of a release is one the regexp accepts.
func TestSAN(t *testing.T) {
	re := regexp.MustCompile(SANRegexp)
	for _, tag := range []string{"v1.2.3", "v0.1.0-rc.1"} {
		if got := SAN(tag); !re.MatchString(got) {
			t.Errorf("SAN(%q) = %q, which SANRegexp does not match", tag, got)
		}
	}
	if got := SAN("latest"); re.MatchString(got) {
		t.Errorf("SAN(%q) = %q, which SANRegexp matches; want no match without v and a digit", "latest", got)
	}
}
