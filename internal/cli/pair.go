package cli

import (
	"bufio"
	"io"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/sites"
	"github.com/stitchslop/stitchslop-bridge/security/envtoken"
)

// maxTokenLine bounds what pair reads from stdin: a token is under 70
// bytes.
const maxTokenLine = 1 << 10

// pairRequest builds `pair [-] [--origin O]`: POST /pair with the token
// from STITCHSLOP_TOKEN or the first line of stdin, never argv, which
// every process can read through ps (THREAT_MODEL.md T7). No message
// repeats a malformed token.
func pairRequest(a args, stdin io.Reader) (client.Request, error) {
	rest := a.pos[1:]
	switch {
	case len(rest) > 1 || (len(rest) == 1 && rest[0] != "-"):
		const why = "pair takes the token from %s or stdin, never from the command line, which every process can read through ps; nothing was sent. "
		if line, ok := pairCommand(a); ok {
			return client.Request{}, usageErr(why+"Run this instead, with the token from the agent panel in place of <token>: `%s=<token> %s`", envtoken.Var, envtoken.Var, line)
		}
		return client.Request{}, usageErr(why+"Run the same command without the token, with %s=<token> before it, the token from the agent panel in place of <token>", envtoken.Var, envtoken.Var)
	}
	raw := ""
	if len(rest) == 0 {
		raw = envtoken.Take()
	}
	if raw == "" {
		line, err := bufio.NewReader(io.LimitReader(stdin, maxTokenLine)).ReadString('\n')
		if err != nil && err != io.EOF {
			return client.Request{}, usageErr("pair: reading the token from stdin: %v", err)
		}
		raw = strings.TrimSpace(line)
	}
	if raw == "" {
		return client.Request{}, usageErr("pair needs a token from the Stitch Slop agent panel, in %s or on stdin", envtoken.Var)
	}
	tok, ok := sites.CleanToken(raw)
	if !ok {
		return client.Request{}, usageErr("pair: %v", sites.ErrBadToken)
	}
	body := map[string]string{"token": tok}
	if o, ok := a.flags["origin"]; ok {
		body["origin"] = o
	}
	return client.Request{Method: "POST", Path: "/pair", Body: body, Timeout: timeouts.quick}, nil
}

// pairCommand is the pair verb as it was given, less the positional
// token, as shellLine writes a command line; false when shellLine gives
// none.
func pairCommand(a args) (string, bool) {
	words := []string{"stitchslop-bridge", "pair"}
	for _, name := range a.order {
		words = append(words, "--"+name)
		if Bridge.flagSpec[name] {
			words = append(words, a.flags[name])
		}
	}
	return shellLine(words)
}
