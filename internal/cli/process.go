package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// errStdoutGone ends the run when stdout's reader has gone (EPIPE).
var errStdoutGone = errors.New("stdout was closed by its reader")

// Exec runs p as this process, with its arguments, stdin, stdout and
// stderr, and exits with its code: what each program's main does.
func Exec(p *Program) {
	// SIGTERM, SIGINT and SIGHUP (a closed terminal) stop the bridge the
	// same way: it closes its tab with 1001, removes its session file and
	// exits 0.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// Without this, the first write to a stdout whose reader has gone
	// (`stitchslop listen | head -1`, an MCP client that died) kills the
	// process with SIGPIPE, before it can remove its session file or close
	// its tab. Ignored, the write fails with EPIPE instead, and
	// stdoutWriter ends the run as a signal would.
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(ctx)
	out := &stdoutWriter{w: os.Stdout, gone: func() { cancel(errStdoutGone) }}
	code := p.Main(ctx, os.Args[1:], os.Stdin, out, os.Stderr)
	cancel(nil)
	stop()
	os.Exit(code)
}

// stdoutWriter reports the first EPIPE on stdout once; every write after
// it fails the same way.
type stdoutWriter struct {
	w    io.Writer
	gone func()
	once sync.Once
}

func (s *stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		s.once.Do(s.gone)
	}
	return n, err
}
