package setup

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// goRunExe matches a binary that `go run` built, in its work directory
// ($WORK/b001/exe/NAME, removed on exit) or, since Go 1.24, in the build
// cache, which trims it. A client told to start that path later may find
// nothing there.
var goRunExe = regexp.MustCompile(`(^|[/\\])go-build[0-9]+[/\\]b[0-9]+[/\\]exe[/\\][^/\\]+$|[/\\]go-build[/\\].+[/\\][^/\\]+$`)

// GoRunBinary reports whether exe is a binary that `go run` built: no path
// to give a client.
func GoRunBinary(exe string) bool {
	if goRunExe.MatchString(exe) {
		return true
	}
	if c := os.Getenv("GOCACHE"); c != "" && c != "off" {
		rel, err := filepath.Rel(c, exe)
		return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
	}
	return false
}

// moduleLine starts the go.mod of this repository.
const moduleLine = "module github.com/stitchslop/stitchslop-bridge\n"

// Lasting is the binary to name instead of one `go run` built, and the
// command that makes it.
type Lasting struct {
	// Path is the absolute path of the binary Build writes: never a path
	// in the build cache or a go run work directory.
	Path string
	// Build is the command's words: go build into the repository around
	// the working directory (.gitignore leaves /stitchslop-bridge out),
	// or, outside it, go install.
	Build []string
}

// LastingBinary says which binary a client should start instead of exe,
// and how to build it, when exe is one `go run` built (GoRunBinary); ok is
// false when exe lasts and is the one to name.
func LastingBinary(exe, dir string) (l Lasting, ok bool) {
	if !GoRunBinary(exe) {
		return Lasting{}, false
	}
	name := "stitchslop-bridge"
	if strings.HasSuffix(exe, ".exe") {
		name += ".exe"
	}
	for d := dir; d != ""; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(data), moduleLine) {
			bin := filepath.Join(d, name)
			return Lasting{Path: bin, Build: []string{"go", "-C", d, "build", "-o", bin, "./cmd/stitchslop-bridge"}}, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return Lasting{Path: filepath.Join(goBin(), name),
		Build: []string{"go", "install", "github.com/stitchslop/stitchslop-bridge/cmd/stitchslop-bridge@latest"}}, true
}

// goBin is where go install puts a binary, as far as the environment says:
// GOBIN, else the first GOPATH entry's bin, else ~/go/bin (Go's default
// GOPATH). A GOBIN set with go env -w is not seen; setup's note says to
// use the binary go install wrote if it is elsewhere.
func goBin() string {
	if b := os.Getenv("GOBIN"); b != "" {
		return b
	}
	if gp := filepath.SplitList(os.Getenv("GOPATH")); len(gp) > 0 && gp[0] != "" {
		return filepath.Join(gp[0], "bin")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, "go", "bin")
}
