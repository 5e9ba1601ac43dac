package e2e

// A newcomer's first ten minutes: the mistakes a first run makes get a
// clear answer.

import (
	"strings"
	"testing"
)

// The README's placeholder, or anything else that cannot be a token, is
// refused as a usage error and never armed, and never repeated back.
func TestNewcomer_PlaceholderTokenRefused(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{"<token from the Stitch Slop agent panel>", "tok_ABC DEF", "hunter2"} {
		b := startBridge(t, bridgeOpts{token: tok, expectExit: true})
		if code := b.awaitExit(); code != 64 {
			t.Errorf("STITCHSLOP_TOKEN=%q: exit %d, want 64", tok, code)
		}
		out := b.stderr.String()
		if !strings.Contains(out, "STITCHSLOP_TOKEN") || !strings.Contains(out, "nothing was armed") || strings.Contains(out, tok) {
			t.Errorf("STITCHSLOP_TOKEN=%q: stderr %q, want a clear refusal that does not repeat the value", tok, out)
		}
	}
	// A token pasted with a full stop is cleaned, not refused.
	b := startBridge(t, bridgeOpts{token: newToken() + "."})
	b.mustRun()
}
