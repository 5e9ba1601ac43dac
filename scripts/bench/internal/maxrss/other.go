//go:build !linux

// Command maxrss measures a command's peak RSS on Linux only (see
// main.go); elsewhere it says so and fails.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "maxrss: peak RSS is measured on Linux only")
	os.Exit(2)
}
