//go:build lexcount

package gate

import "sync/atomic"

// lexes counts the gate's reads of JSON by the standard's reader, for the
// tests that hold each reply read once (go test -tags lexcount); never in
// a release build.
var lexes atomic.Int64

func lexed() { lexes.Add(1) }

func Lexes() int64 { return lexes.Load() }
