//go:build linux

// Command maxrss runs a command and writes its peak RSS, in KiB, to a file:
//
//	maxrss FILE COMMAND [ARG...]
//
// scripts/bench measures a shell verb's memory through it. Linux charges
// a child that execs with the high-water mark of the memory it was forked
// from, and Go forks with the parent's memory shared (CLONE_VM), so the
// bench cannot read a child's ru_maxrss itself: its own hundreds of MiB of
// images would be the figure. Started from this small program, the figure
// is the command's, or this program's few MiB when the command's is lower.
// The command's stdio is this program's; its exit code is this program's.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: maxrss FILE COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if err := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(ru.Maxrss, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
