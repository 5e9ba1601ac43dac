// Command stitchslop-bridge connects an AI agent to the Stitch Slop design
// open in a browser tab. See the README for usage.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/stitchslop/stitchslop-bridge/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
