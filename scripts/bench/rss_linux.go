package main

import (
	"os"
	"syscall"
)

// maxRSSMiB is a finished child's peak resident set (ru_maxrss, in KiB on
// Linux), in MiB.
func maxRSSMiB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024
	}
	return 0
}
