// Package version holds the build identity printed by --version and sent
// as serverInfo.version.
//
// Release builds set Version, Commit and Date with
//
//	-ldflags "-X github.com/stitchslop/stitchslop-bridge/internal/version.Version=1.2.3
//	          -X github.com/stitchslop/stitchslop-bridge/internal/version.Commit=<sha>
//	          -X github.com/stitchslop/stitchslop-bridge/internal/version.Date=<RFC 3339>"
//
// A plain `go build` or `go install` leaves them empty and String falls back
// to what debug.ReadBuildInfo knows.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Protocol is the Stitch Slop wire protocol this bridge speaks.
const Protocol = 1

// Set by -ldflags -X in release builds.
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// Short returns the version alone, e.g. "1.2.3" or "(devel)".
func Short() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// Line is the one line --version prints: version, protocol, Go version and
// platform, plus the commit when it is known.
func Line() string {
	s := fmt.Sprintf("stitchslop-bridge %s (wire protocol %d) %s %s/%s",
		Short(), Protocol, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if c := commit(); c != "" {
		s += " commit " + c
	}
	return s
}

func commit() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}
