//go:build stitchslop_testhooks && !unix

package bridge

import "log/slog"

// reportOnSignal has no signal to listen for here; see hooks_signal.go.
func reportOnSignal(*slog.Logger) (stop func()) { return func() {} }
