//go:build lexcount

package envelope

import "sync/atomic"

// lexes counts the door's reads, in a build for the tests that hold each
// reply read once per process (go test -tags lexcount); never in a
// release build.
var lexes atomic.Int64

func lexed() { lexes.Add(1) }

// Lexes is how many answers the door has read so far.
func Lexes() int64 { return lexes.Load() }
