//go:build unix

package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInstalledFIFORefused: a path that became a FIFO after the earlier
// Stat (checkFilesExist) is opened without blocking and refused by the
// Fstat of what was opened, instead of hanging the read. checkInstalled is
// called directly: it is the step after that Stat.
func TestInstalledFIFORefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "stitchslop-bridge")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		done <- checkInstalled(context.Background(), map[string]string{}, "checksums.txt", fifo, io.Discard)
	}()
	select {
	case err := <-done:
		var ve *verifyError
		if !errors.As(err, &ve) || ve.code != exitMissingFile {
			t.Fatalf("checkInstalled(FIFO) = %v, want exit %d", err, exitMissingFile)
		}
		if want := "not a regular file"; !strings.Contains(ve.msg, want) {
			t.Fatalf("checkInstalled(FIFO) = %q, want it to say %q", ve.msg, want)
		}
	case <-time.After(10 * time.Second):
		// The old code blocked in open(2) here, waiting for a writer.
		t.Fatal("checkInstalled blocked on a FIFO")
	}
}
