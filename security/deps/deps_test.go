package deps

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/stitchslop/stitchslop-bridge"

// allowedOutside are the only modules outside the standard library and
// security/ itself that a security package, or its tests, may import:
// x/sys for the OS calls (peer credentials, Windows ACLs), and the
// standard's JSON v2 (encoding/json/jsontext from Go 1.27, by its module on
// Go 1.26), the one reader and writer of a page's JSON (security/gate).
var allowedOutside = []string{"golang.org/x/sys/", "github.com/go-json-experiment/json/"}

// TestNoUpwardImports runs `go list -deps -test` over security/... and fails
// if any security package, or any of its tests, depends on anything under
// internal/ or cmd/, or on a module not in allowedOutside.
func TestNoUpwardImports(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", "-test",
		"-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+"/security/...")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	pkgs := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(pkgs) == 0 || pkgs[0] == "" {
		t.Fatal("go list listed no packages; the check would prove nothing")
	}
	for _, p := range pkgs {
		// Test variants are listed as "pkg [pkg.test]" and "pkg.test".
		p, _, _ = strings.Cut(p, " [")
		p = strings.TrimSuffix(p, ".test")
		if bad := check(p); bad != "" {
			t.Errorf("security/... depends on %s: %s", p, bad)
		}
	}
}

// check says what is wrong with a dependency of security/..., or "".
func check(p string) string {
	switch {
	case p == module+"/security" || strings.HasPrefix(p, module+"/security/"):
		return ""
	case p == module+"/internal" || strings.HasPrefix(p, module+"/internal/"),
		p == module+"/cmd" || strings.HasPrefix(p, module+"/cmd/"):
		return "the arrows point cmd -> internal -> security, never back"
	case strings.HasPrefix(p, module+"/"):
		return "only security/ packages may be imported from this module"
	}
	for _, a := range allowedOutside {
		if strings.HasPrefix(p, a) || p+"/" == a {
			return ""
		}
	}
	return "not the standard library nor an allowed module; add it to allowedOutside if it is deliberate"
}

func TestCheck(t *testing.T) {
	tests := []struct {
		pkg string
		ok  bool
	}{
		{module + "/security/credential", true},
		{module + "/security/fileperm", true},
		{"golang.org/x/sys/windows", true},
		{module + "/internal/page", false},
		{module + "/internal", false},
		{module + "/cmd/stitchslop-bridge", false},
		{module + "/internalish", false},
		{module + "/securityx", false},
		{"github.com/gorilla/websocket", false},
	}
	for _, tt := range tests {
		if got := check(tt.pkg) == ""; got != tt.ok {
			t.Errorf("check(%q) ok = %v, want %v", tt.pkg, got, tt.ok)
		}
	}
}

// testOnly are modules the tests use (a real browser, a real MCP client,
// testscript) that a release binary must never link: each is a large
// dependency the shipped bridge has no use for, and a reviewer of the
// release should not have to read it.
var testOnly = []string{
	"github.com/chromedp/",
	"github.com/modelcontextprotocol/go-sdk",
	"github.com/rogpeppe/go-internal",
}

// releaseMains are the binaries a release ships.
var releaseMains = []string{module + "/cmd/stitchslop-bridge", module + "/cmd/stitchslop-verify"}

// releaseOSes are the platforms a release is built for; build tags can
// pull in different files on each.
var releaseOSes = []string{"linux", "darwin", "windows"}

// goListDeps lists the non-standard packages pkgs depend on, for goos,
// with their tests when withTests.
func goListDeps(t *testing.T, goos string, withTests bool, pkgs ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	args := []string{"list", "-deps"}
	if withTests {
		args = append(args, "-test")
	}
	args = append(args, "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}")
	cmd := exec.Command(gobin, append(args, pkgs...)...)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("GOOS=%s go list: %v\n%s", goos, err, stderr)
	}
	var list []string
	for _, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p != "" {
			list = append(list, p)
		}
	}
	return list
}

// linksTestOnly says which test-only module p belongs to, or "".
func linksTestOnly(p string) string {
	for _, m := range testOnly {
		if p == strings.TrimSuffix(m, "/") || strings.HasPrefix(p, strings.TrimSuffix(m, "/")+"/") {
			return m
		}
	}
	return ""
}

// TestReleaseBinariesLinkNoTestModules runs `go list -deps` (no -test: what
// the linker gets) over the release binaries for every release OS and
// fails if any of them links chromedp, the MCP go-sdk or go-internal.
func TestReleaseBinariesLinkNoTestModules(t *testing.T) {
	for _, goos := range releaseOSes {
		t.Run(goos, func(t *testing.T) {
			deps := goListDeps(t, goos, false, releaseMains...)
			for _, main := range releaseMains {
				if !contains(deps, main) {
					t.Fatalf("GOOS=%s go list -deps %v does not list %s itself; the check would prove nothing", goos, releaseMains, main)
				}
			}
			for _, p := range deps {
				if m := linksTestOnly(p); m != "" {
					t.Errorf("GOOS=%s: a release binary links %s (module %s), which only tests may use", goos, p, m)
				}
			}
		})
	}
}

// The same query over the end-to-end tests does find the browser and the
// MCP client, so the check above sees these modules when they are there.
func TestTestModulesAreSeenWhereUsed(t *testing.T) {
	deps := goListDeps(t, "linux", true, module+"/e2e")
	for _, want := range []string{"github.com/chromedp/", "github.com/modelcontextprotocol/go-sdk"} {
		found := false
		for _, p := range deps {
			if linksTestOnly(p) == want {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("go list -deps -test e2e: no package of %s, want the e2e tests' use of it seen", want)
		}
	}
}

func TestLinksTestOnly(t *testing.T) {
	tests := []struct {
		pkg, want string
	}{
		{"github.com/chromedp/chromedp", "github.com/chromedp/"},
		{"github.com/chromedp/cdproto/network", "github.com/chromedp/"},
		{"github.com/modelcontextprotocol/go-sdk/mcp", "github.com/modelcontextprotocol/go-sdk"},
		{"github.com/modelcontextprotocol/go-sdk", "github.com/modelcontextprotocol/go-sdk"},
		{"github.com/rogpeppe/go-internal/testscript", "github.com/rogpeppe/go-internal"},
		{"github.com/modelcontextprotocol/go-sdkx", ""},
		{"github.com/gorilla/websocket", ""},
		{module + "/internal/demo", ""},
	}
	for _, tt := range tests {
		if got := linksTestOnly(tt.pkg); got != tt.want {
			t.Errorf("linksTestOnly(%q) = %q, want %q", tt.pkg, got, tt.want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
