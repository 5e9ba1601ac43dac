//go:build !unix

package doctor

import "io/fs"

// checksModes: on Windows the modes mean nothing and the owner-only ACLs
// are security/fileperm's to judge and repair; doctor does not examine
// them.
const checksModes = false

func ownerUID(fs.FileInfo) int { return -1 }
