// Command aclcheck prints the owner and DACL of a file or directory as one
// JSON line and says whether the DACL is owner-only: what the bridge gives
// its config directory (security/fileperm). scripts/wine/smoke.sh runs its
// Windows build under Wine on the directory a fresh bridge created.
//
//	aclcheck.exe PATH
//	aclcheck.exe -probe DIR
//
// Exit 0: every entry allows the current user and no one else (at least
// one entry), and the DACL is protected. Exit 1: another principal has an
// entry, there is none, or it is not protected.
//
// -probe asks whether this system keeps a DACL at all: it creates a
// directory in DIR, gives it a protected owner-only DACL with
// SetNamedSecurityInfo and reads it back. Exit 0 when both the entries and
// the protection were kept (Windows), 3 when not (Wine 8 answers with a
// DACL made from the Unix mode whatever was set: docs/windows-wine.md), so
// the smoke test judges the bridge's ACL only where it can be seen.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-probe" {
		kept, line, err := probe(os.Args[2])
		if err != nil {
			fmt.Fprintf(os.Stderr, "aclcheck: error: %v\n", err)
			os.Exit(2)
		}
		fmt.Println(line)
		if !kept {
			os.Exit(3)
		}
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: aclcheck PATH | aclcheck -probe DIR")
		os.Exit(2)
	}
	ok, line, err := check(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "aclcheck: error: %v\n", err)
		os.Exit(2)
	}
	fmt.Println(line)
	if !ok {
		os.Exit(1)
	}
}
