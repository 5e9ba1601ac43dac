package toolbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/stitchslop/stitchslop-bridge/internal/setup"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

// executable is this binary's path, links resolved. Tests swap it.
var executable = func() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// bridgeName is the bridge binary's file name on this system.
func bridgeName() string {
	if runtime.GOOS == "windows" {
		return "stitchslop-bridge.exe"
	}
	return "stitchslop-bridge"
}

// bridgeBeside is the stitchslop-bridge in this program's folder, where
// every release installs both: the bridge setup registers and doctor and
// the demo name, whether it is there yet or not.
func bridgeBeside() (string, error) {
	self, err := executable()
	if err != nil {
		return "", fmt.Errorf("finding this program's path: %w", err)
	}
	return filepath.Join(filepath.Dir(self), bridgeName()), nil
}

// bridgeToRun is the bridge the demo starts: the one beside this program;
// under go run (whose build cache holds no bridge beside it) the one the
// repository around the working directory builds, at the lasting path
// setup names (go build, cached, so only a changed source costs time);
// else the one on PATH.
func bridgeToRun(ctx context.Context, log *slog.Logger, stderr io.Writer) (string, error) {
	beside, err := bridgeBeside()
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
		return beside, nil
	}
	cwd, _ := os.Getwd()
	if l, ok := setup.LastingBinary(beside, cwd); ok && len(l.Build) > 1 && l.Build[1] == "-C" {
		if line, err := setup.Line(setup.Posix, l.Build...); err == nil {
			ui.Hint(log, "this is go run's stitchslop; building the bridge it starts: "+line)
		}
		build := exec.CommandContext(ctx, l.Build[0], l.Build[1:]...)
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			return "", fmt.Errorf("building the bridge: %w", err)
		}
		return l.Path, nil
	}
	if p, err := exec.LookPath(bridgeName()); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	return "", errors.New("no stitchslop-bridge beside this program (" + beside + ") or on PATH; install both from one release, or run go run ./cmd/stitchslop demo in a clone")
}
