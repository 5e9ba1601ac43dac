//go:build stitchslop_testhooks && unix

package bridge

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

// reportOnSignal logs the goroutine count and the live heap (after a
// collection) on SIGUSR1, so the black-box tests can check that nothing a
// peer does grows them.
func reportOnSignal(log *slog.Logger) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-ch:
				// Twice: a sync.Pool keeps what it held until the
				// second collection.
				runtime.GC()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				// Numbered, so the log's counting of repeated lines
				// never holds a report back.
				n++
				log.Info(fmt.Sprintf("test hook %d", n), "goroutines", runtime.NumGoroutine(), "heapKB", ms.HeapAlloc>>10)
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
