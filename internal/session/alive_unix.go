//go:build unix

package session

import (
	"errors"
	"syscall"
)

// Alive sends signal 0, which tests existence; EPERM means it exists but
// belongs to someone else.
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
