//go:build unix

package bridge

import (
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

// reportOnSignal, in a testHooks build, logs the goroutine count on
// SIGUSR1, so the black-box tests can check that nothing a peer does grows
// it. Release builds do nothing.
func reportOnSignal(log *slog.Logger) (stop func()) {
	if testHooks != "on" {
		return func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				log.Info("test hook", "goroutines", runtime.NumGoroutine())
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
