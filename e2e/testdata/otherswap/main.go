// Command otherswap is run by the e2e tests as another local user (uid
// 65534) to race the bridge's file checks, as THREAT_MODEL T16 describes:
//
//	otherswap file DIR NAME TARGET   make DIR/NAME a decoy file, then flip
//	                                 it with a symlink to TARGET
//	otherswap dir DIR NAME TARGET    the same with a decoy folder
//
// DIR is created, the other user's own. It prints "ready" once the decoy
// and the link are in place and flips them (renameat2 RENAME_EXCHANGE, one
// step) until it is killed.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: otherswap file|dir DIR NAME TARGET")
		os.Exit(2)
	}
	kind, dir, name, target := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	entry, link := filepath.Join(dir, name), filepath.Join(dir, ".link")
	var err error
	switch kind {
	case "file":
		err = os.WriteFile(entry, []byte(`{"decoy":true}`), 0o644)
	case "dir":
		err = os.Mkdir(entry, 0o777)
	default:
		err = fmt.Errorf("unknown kind %q", kind)
	}
	if err != nil {
		fail(err)
	}
	if err := os.Symlink(target, link); err != nil {
		fail(err)
	}
	fmt.Println("ready")
	for {
		if err := unix.Renameat2(unix.AT_FDCWD, link, unix.AT_FDCWD, entry, unix.RENAME_EXCHANGE); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Println("error:", err)
	os.Exit(1)
}
