// Command probe asks the Windows it runs on (in CI: Wine) what the
// bridge's Windows controls need from it, so that a test run judges those
// controls only where they can be seen. Built for windows by .ci/run and
// run under Wine by scripts/wine/smoke.sh and scripts/wine/gotest.sh.
//
//	probe.exe acl PATH       the owner and DACL of PATH, one JSON line
//	probe.exe dacl-kept DIR  does a DACL set on a new directory in DIR read back as set?
//	probe.exe tcp-owner      does the TCP table name this process as the owner of its socket?
//	probe.exe rename-open DIR  may a rename replace a file another handle holds open with FILE_SHARE_DELETE?
//
// acl exits 0 when PATH's DACL is protected and every entry allows the
// current user and no one else (at least one entry), 1 otherwise.
// dacl-kept, tcp-owner and rename-open exit 0 when the system can do it and
// 3 when it cannot, printing what they saw: Wine 8 answers a DACL made from
// the Unix mode whatever was set, its TCP table names no owning process, and
// it refuses to rename over a file held open even with FILE_SHARE_DELETE,
// which Windows allows (docs/windows-wine.md). 2 is an error.
package main

import (
	"fmt"
	"os"
)

func main() {
	var ok bool
	var line string
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "acl":
		ok, line, err = check(os.Args[2])
		if err == nil && !ok {
			fmt.Println(line)
			os.Exit(1)
		}
	case len(os.Args) == 3 && os.Args[1] == "dacl-kept":
		ok, line, err = daclKept(os.Args[2])
	case len(os.Args) == 2 && os.Args[1] == "tcp-owner":
		ok, line, err = tcpOwner()
	case len(os.Args) == 3 && os.Args[1] == "rename-open":
		ok, line, err = renameOpen(os.Args[2])
	default:
		fmt.Fprintln(os.Stderr, "usage: probe acl PATH | probe dacl-kept DIR | probe tcp-owner | probe rename-open DIR")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "probe: error: %v\n", err)
		os.Exit(2)
	}
	fmt.Println(line)
	if !ok {
		os.Exit(3)
	}
}
