// Package envtoken reads the bootstrap token a starting bridge is given,
// from the environment variable Var, never from argv, which every user can
// read through ps (THREAT_MODEL.md T7, protocol.md §1). A running bridge is
// given one by the MCP pair tool or /pair instead. Take unsets the variable
// so nothing started later inherits it; the environment the kernel
// recorded at exec stays readable by the same user and root (T11).
package envtoken

import (
	"errors"
	"os"
	"strings"
)

// Var is the environment variable that carries the token.
const Var = "STITCHSLOP_TOKEN"

// Take returns the token from the environment, trimmed, and unsets the
// variable; "" means no token.
func Take() string {
	tok := strings.TrimSpace(os.Getenv(Var))
	os.Unsetenv(Var)
	return tok
}

// ErrTokenFlag is returned by CheckArgs when a --token flag is present.
var ErrTokenFlag = errors.New("--token is not accepted: anything on the command line is visible to every process through ps; put the token in the " + Var + " environment variable instead")

// CheckArgs refuses a --token flag in any spelling, without echoing its
// value; rest, args without it, is safe to print as the command to give
// again.
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
