//go:build unix

package session

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this pid exists, with signal 0,
// which tests existence without sending anything. EPERM means it exists
// but belongs to someone else.
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
