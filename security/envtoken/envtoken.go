// Package envtoken reads the bootstrap token a starting bridge is given. It
// mitigates THREAT_MODEL.md T7 (secret-leak) for the token:
//
//   - A starting bridge takes the token from the environment variable Var,
//     never from argv, where every process on the machine, of every user,
//     can read it through ps (protocol.md §1). CheckArgs refuses a --token
//     flag in any spelling, without echoing its value. A running bridge
//     takes one through the control plane's /pair instead (the `pair` verb
//     reads it from Var or stdin, an agent passes it to the MCP `pair` tool).
//   - Take removes the variable from the process environment once read, so
//     nothing the bridge or the Go runtime starts later inherits it.
//
// It does not erase the variable from the environment block the kernel
// recorded at exec time (/proc/<pid>/environ on Linux): that stays readable
// by the same user and root, which T11 accepts. It does not keep the token
// out of logs by itself: callers never print it, and the e2e test that
// scans everything the bridge prints holds them to that. The token's
// one-time property is security/ledger's (T6).
package envtoken

import (
	"errors"
	"os"
	"strings"
)

// Var is the environment variable that carries the token.
const Var = "STITCHSLOP_TOKEN"

// Take returns the token from the environment, without surrounding white
// space, and unsets the variable whether or not it was set. An empty result
// means no token.
func Take() string {
	tok := strings.TrimSpace(os.Getenv(Var))
	os.Unsetenv(Var)
	return tok
}

// ErrTokenFlag is returned by CheckArgs when a --token flag is present.
var ErrTokenFlag = errors.New("--token is not accepted: anything on the command line is visible to every process through ps; put the token in the " + Var + " environment variable instead")

// CheckArgs refuses a --token flag in any spelling (-token, --TOKEN,
// --token=VALUE), without echoing its value. rest is args without every
// such flag and its value: the command to give again with the token in
// Var, which the caller may print, since it holds no token. A value is the
// word after a bare --token unless that word is itself a flag.
func CheckArgs(args []string) (rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if len(name) == len(a) {
			rest = append(rest, a)
			continue
		}
		value := false
		if j := strings.IndexByte(name, '='); j >= 0 {
			name, value = name[:j], true
		}
		if !strings.EqualFold(strings.TrimSpace(name), "token") {
			rest = append(rest, a)
			continue
		}
		err = ErrTokenFlag
		if !value && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++ // its value
		}
	}
	return rest, err
}
