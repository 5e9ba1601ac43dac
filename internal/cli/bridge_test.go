package cli

import (
	"context"
	"io"
)

// Main runs the bridge's program and returns its exit code.
func Main(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Bridge.Main(ctx, argv, stdin, stdout, stderr)
}

// parse parses argv as the bridge's command line.
func parse(argv []string) (args, error) { return Bridge.parse(argv) }

// lookup returns the bridge's command named name, or nil.
func lookup(name string) *command { return Bridge.lookup(name) }
