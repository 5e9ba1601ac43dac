package cli

import (
	"context"
	"log/slog"

	"github.com/stitchslop/stitchslop-bridge/internal/demo"
)

// runDemo is `stitchslop-bridge demo`: a bridge and the stand-in tab it
// serves, until Ctrl-C.
func runDemo(ctx context.Context, a args, dir string, log *slog.Logger) int {
	if len(a.pos) > 1 {
		return usageError(log, "demo takes no arguments")
	}
	for name := range a.flags {
		if name != "port" && name != "config-dir" {
			return usageError(log, "--"+name+" does not go with demo; it takes --port and --config-dir")
		}
	}
	ports, err := portsFlag(a)
	if err != nil {
		return usageError(log, err.Error())
	}
	return bridgeExit(log, demo.Run(ctx, demo.Options{ConfigDir: dir, DefaultConfigDir: !a.has("config-dir"), Ports: ports, Log: log}))
}
