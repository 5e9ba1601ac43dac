// Package ledger makes a bootstrap token work once (THREAT_MODEL.md T6),
// across restarts and with the reference bridge sharing the config dir.
// Fingerprints are kept in pairing.json's usedTokens (the reference
// bridge's format, so each refuses the other's) and in our own File, so
// deleting pairing.json revives none; an unreadable File refuses every
// redemption. The caller holds the pairing file's lock (T14) from check to
// write.
//
// Not covered: whoever presents a token first pairs; a process of the user
// (T11) can delete both files; fingerprints older than the newest FileKeep
// are forgotten.
package ledger

import (
	"crypto/subtle"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/security/credential"
)

// Keep is how many fingerprints usedTokens keeps per origin, as the
// reference bridge does.
const Keep = 20

// Spent reports whether token's fingerprint is in used, comparing every
// entry in constant time, trimmed and case-insensitively, so a hand-edited
// file still refuses.
func Spent(used []string, token string) bool {
	fp := []byte(credential.Fingerprint(token))
	hit := 0
	for _, u := range used {
		hit |= subtle.ConstantTimeCompare([]byte(normal(u)), fp)
	}
	return hit == 1
}

// Record returns a copy of used with token's fingerprint moved or appended
// last, trimmed to the newest Keep.
func Record(used []string, token string) []string {
	fp := credential.Fingerprint(token)
	out := make([]string, 0, len(used)+1)
	for _, u := range used {
		if !credential.Equal(normal(u), fp) {
			out = append(out, u)
		}
	}
	out = append(out, fp)
	if len(out) > Keep {
		out = out[len(out)-Keep:]
	}
	return out
}

func normal(fp string) string { return strings.ToLower(strings.TrimSpace(fp)) }
