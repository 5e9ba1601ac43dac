//go:build lexcount

package envelope

import (
	"sync/atomic"

	"github.com/stitchslop/stitchslop-bridge/security/gate"
)

// lexes counts the door's reads for the tests that hold each reply read
// once (go test -tags lexcount); never in a release build.
var lexes atomic.Int64

func lexed() { lexes.Add(1) }

// Lexes counts every read of JSON by the standard's reader in a process:
// the door's, and the gate's after it (gate.Lexes).
func Lexes() int64 { return lexes.Load() + gate.Lexes() }
