// Package cli parses the command line and runs either the bridge or one of
// the shell verbs that drive a running bridge.
package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/stitchslop/stitchslop-bridge/internal/version"
)

// Main runs the program and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--version" {
			fmt.Fprintln(stdout, version.Line())
			return 0
		}
	}
	fmt.Fprintln(stderr, "stitchslop-bridge: error: not implemented yet")
	return 64
}
