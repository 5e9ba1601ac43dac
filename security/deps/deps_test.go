package deps

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/stitchslop/stitchslop-bridge"

// allowedOutside are the only modules outside the standard library and
// security/ itself that a security package, or its tests, may import.
var allowedOutside = []string{"golang.org/x/sys/"}

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
