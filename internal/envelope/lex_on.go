//go:build lexcount

package envelope

import "sync/atomic"

// lexes counts the door's reads for the tests that hold each reply read
// once (go test -tags lexcount); never in a release build.
var lexes atomic.Int64

func lexed() { lexes.Add(1) }

func Lexes() int64 { return lexes.Load() }
