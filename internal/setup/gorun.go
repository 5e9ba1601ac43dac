package setup

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// goRunExe matches a binary that `go run` built: the go command links it
// as $WORK/b001/exe/NAME in its temporary work directory, $WORK being
// go-buildNNNN under GOTMPDIR or the system's temporary directory, and
// removes $WORK when the program exits. Since Go 1.24 it may instead run
// the copy it caches in GOCACHE (by default a directory named go-build),
// which `go clean -cache` or the cache's trimming removes. Either way a
// client told to start that path later finds nothing there.
var goRunExe = regexp.MustCompile(`(^|[/\\])go-build[0-9]+[/\\]b[0-9]+[/\\]exe[/\\][^/\\]+$|[/\\]go-build[/\\].+[/\\][^/\\]+$`)

// GoRunBinary reports whether exe (os.Executable) is a binary that
// `go run` built and deletes, so a command naming it stops working when
// it exits.
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

// LastingCommand is the binary to name in a client's configuration
// instead of exe, as a POSIX shell word: exe itself, or, when `go run`
// built it, the binary that the returned build command writes (into the
// repository around dir, where .gitignore leaves /stitchslop-bridge out, or
// else where go install puts it). build is "" when exe lasts.
func LastingCommand(exe, dir string) (word, build string) {
	if !GoRunBinary(exe) {
		return QuotePosix(exe), ""
	}
	name := "stitchslop-bridge"
	if strings.HasSuffix(exe, ".exe") {
		name += ".exe"
	}
	for d := dir; d != ""; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(data), moduleLine) {
			bin := QuotePosix(filepath.Join(d, name))
			return bin, "go -C " + QuotePosix(d) + " build -o " + bin + " ./cmd/stitchslop-bridge"
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	// Not inside the repository: go install puts it in GOBIN, by default
	// $(go env GOPATH)/bin (double quotes, so the shell expands it).
	return `"$(go env GOPATH)/bin/` + name + `"`, "go install github.com/stitchslop/stitchslop-bridge/cmd/stitchslop-bridge@latest"
}
