//go:build unix

package doctor

import (
	"io/fs"
	"syscall"
)

// checksModes: Unix modes and owners are examined here.
const checksModes = true

// ownerUID is the uid owning the file fi describes; -1 if the OS does not
// say.
func ownerUID(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
