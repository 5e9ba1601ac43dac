//go:build !stitchslop_testhooks

package bridge

import "log/slog"

// A release build (no stitchslop_testhooks tag) has no test seams
// (hooks.go), whatever the environment holds.

func testTimings(*slog.Logger, *Timings) {}

func reportOnSignal(*slog.Logger) (stop func()) { return func() {} }
