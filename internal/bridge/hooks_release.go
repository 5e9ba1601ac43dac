//go:build !stitchslop_testhooks

package bridge

import "log/slog"

// A build without the stitchslop_testhooks tag (every release build) has
// no test seams: the clocks are DefaultTimings and the ports DefaultPorts,
// whatever the environment holds (hooks.go).

func testTimings(*slog.Logger, *Timings) {}

func reportOnSignal(*slog.Logger) (stop func()) { return func() {} }
