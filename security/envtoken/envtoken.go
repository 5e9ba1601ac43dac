// Package envtoken is the only way a bootstrap token enters the bridge
// (THREAT_MODEL.md T-TOKEN-ARGV): from the environment variable Var, never
// from argv, where every process on the machine can read it through ps.
//
// Take removes the variable from the process environment once read, so
// nothing the bridge might start later inherits it. It cannot erase the
// variable from the environment block the OS recorded at exec time
// (/proc/<pid>/environ, readable by the same user only).
package envtoken

import (
	"errors"
	"os"
	"strings"
)

// Var is the environment variable that carries the token.
const Var = "STITCHSLOP_TOKEN"

// Take returns the token from the environment and unsets it.
func Take() string {
	tok := strings.TrimSpace(os.Getenv(Var))
	os.Unsetenv(Var)
	return tok
}

// ErrTokenFlag is returned by CheckArgs when a --token flag is present.
var ErrTokenFlag = errors.New("--token is not accepted: anything on the command line is visible to every process through ps; put the token in the " + Var + " environment variable instead")

// CheckArgs refuses a token given as a flag, in any spelling (--token,
// -token, --token=VALUE). The value is never echoed.
func CheckArgs(args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		name := strings.TrimLeft(a, "-")
		if len(name) == len(a) {
			continue
		}
		if i := strings.IndexByte(name, '='); i >= 0 {
			name = name[:i]
		}
		if name == "token" {
			return ErrTokenFlag
		}
	}
	return nil
}
