// Package ledger enforces that a bootstrap token works once (THREAT_MODEL.md
// T6, token-replay): a token leaked from an agent's config file, shell
// history or a process listing after it was redeemed is refused, by this
// bridge after a restart and by the reference bridge sharing the config dir.
//
// Spent tokens are kept only as fingerprints (credential.Fingerprint: the
// first 32 hex characters of SHA-256), in two places:
//
//   - the usedTokens list of the origin's entry in pairing.json, newest
//     last, at most Keep of them (Spent, Record): the format the reference
//     bridge reads and writes, so each bridge refuses the other's spent
//     tokens;
//   - the spent-token file, FileName in the config directory (File): one
//     fingerprint per line, newest last, the newest FileKeep kept. It is
//     ours alone, so deleting pairing.json, or an origin's entry in it,
//     does not bring a spent token back to life.
//
// A redemption checks both and records to both. The caller holds the
// pairing file's lock (fileperm.Lock, T14) from the reads through minting to
// the writes, so two bridges redeeming one token at once cannot both
// succeed, and it checks before minting anything. A spent-token file that
// cannot be read or parsed is an error (ErrCorrupt, naming the path), and
// the caller refuses to redeem: failing open would revive every token it
// held. The file is read and written with security/fileperm's checks (no
// symbolic links, owner and mode, a size cap, atomic fsynced writes; T13).
//
// It does not stop a token being used before it is spent: whoever presents
// it first pairs. It does not stop a process running as the user (T11)
// deleting both files; a running bridge still remembers the tokens it spent
// (internal/pairing), a restarted one does not. Fingerprints older than the
// newest FileKeep are forgotten; the page mints a fresh token per pairing,
// so an old one reappearing needs the old token to have leaked and the user
// to have paired FileKeep more times since. A 128-bit fingerprint of a
// high-entropy token cannot be reversed; a guessable token could be, which
// is why tokens are minted by the page, not chosen by people.
package ledger

import (
	"crypto/subtle"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/security/credential"
)

// Keep is how many fingerprints are kept per origin, as in the reference
// bridge.
const Keep = 20

// Spent reports whether token's fingerprint is in used. Every entry is
// compared in constant time (crypto/subtle: the entries are fixed-width, so
// no hashing is needed to compare them safely), and the loop never stops
// early. Entries are matched case-insensitively and without surrounding
// space, so a hand-edited file still refuses.
func Spent(used []string, token string) bool {
	fp := []byte(credential.Fingerprint(token))
	hit := 0
	for _, u := range used {
		hit |= subtle.ConstantTimeCompare([]byte(normal(u)), fp)
	}
	return hit == 1
}

// Record returns used with token's fingerprint appended, newest last,
// trimmed to the newest Keep entries. A fingerprint already in used is moved
// to the end rather than repeated. It does not modify used.
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
