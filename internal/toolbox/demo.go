package toolbox

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/stitchslop/stitchslop-bridge/internal/demo"
)

// runDemo is `stitchslop demo`: a bridge (bridgeToRun) and the stand-in
// tab it serves, until Ctrl-C. Which flags go with it, Main has checked
// already.
func runDemo(ctx context.Context, c *command, a args, dir string, stdout io.Writer, log *slog.Logger) int {
	if len(a.Pos()) > 1 {
		return mistake(log, stdout, c, a, "demo takes no arguments", "")
	}
	ports, err := portsFlag(a)
	if err != nil {
		return mistake(log, stdout, c, a, err.Error(), "")
	}
	bin, err := bridgeToRun(ctx, log, stderrOf(ctx))
	if err != nil {
		log.Error("demo: " + err.Error())
		return 1
	}
	err = demo.Run(ctx, demo.Options{Bridge: bin, ConfigDir: dir, DefaultConfigDir: !a.Has("config-dir"),
		Ports: ports, Log: log, Stderr: stderrOf(ctx)})
	var be *demo.BridgeExit
	switch {
	case errors.As(err, &be):
		return be.Code // the bridge said why
	case err != nil:
		log.Error(err.Error())
		return 1
	}
	return 0
}
