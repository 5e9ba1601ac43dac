package cli

import (
	"context"
	"io"
	"log/slog"

	"github.com/stitchslop/stitchslop-bridge/internal/demo"
)

// runDemo is `stitchslop-bridge demo`: a bridge and the stand-in tab it
// serves, until Ctrl-C. Which flags go with it, Main has checked already.
func runDemo(ctx context.Context, c *command, a args, dir string, stdout io.Writer, log *slog.Logger) int {
	if len(a.pos) > 1 {
		return mistake(log, stdout, c, a, "demo takes no arguments", "")
	}
	ports, err := portsFlag(a)
	if err != nil {
		return mistake(log, stdout, c, a, err.Error(), "")
	}
	return bridgeExit(log, demo.Run(ctx, demo.Options{ConfigDir: dir, DefaultConfigDir: !a.has("config-dir"), Ports: ports, Log: log}))
}
