//go:build !linux

package main

import "os"

// maxRSSMiB is 0 where the bench does not read a child's peak RSS: it
// measures on Linux, as it reads /proc.
func maxRSSMiB(*os.ProcessState) float64 { return 0 }
