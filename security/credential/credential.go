// Package credential mints and compares the bridge's secrets: pairing
// secrets, the control-plane session key, and one-time tokens.
//
// It mitigates THREAT_MODEL.md T5 (cred-guess): guessing a credential,
// either outright or byte by byte from response timing.
//
//   - Equal and EqualAny hash both sides with SHA-256 and compare the two
//     fixed-width digests with crypto/subtle, so the time taken does not
//     depend on where the inputs differ, and unequal lengths can never make
//     the comparison fail early. Hashing takes time in proportion to each
//     input's length, so the time can tell a secret's length (New's are
//     all one length), never its bytes.
//   - New draws SecretBytes (32) bytes from crypto/rand and encodes them
//     base64url without padding (URL-safe, protocol.md §2.4 and §4.1).
//   - Fingerprint is the one-way form in which a spent token is remembered
//     (T6, see security/ledger), in the reference bridge's format.
//
// It does not cover where credentials are stored (security/fileperm, T10),
// the one-time property of tokens (security/ledger, T6), nor keeping them
// out of logs and argv (security/envtoken, T7). A credential that has
// leaked verifies like the real one: nothing here can tell them apart.
package credential

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// SecretBytes is the entropy of every secret and key this bridge mints.
// protocol.md §2.4 asks for at least 32 bytes; §4.1 asks for 32.
const SecretBytes = 32

// FingerprintLen is the length in hex characters of a Fingerprint: the
// first 32 hex characters (128 bits) of SHA-256, as the reference bridge
// writes them.
const FingerprintLen = 32

// randRead is the source of randomness; a test hook, swapped in t.Cleanup
// to prove that a failing source is an error and never a weak secret.
var randRead = rand.Read

// Equal reports whether got and want are the same credential, in constant
// time. An empty want never matches: an unset credential is not a wildcard.
func Equal(got, want string) bool { return EqualAny(got, []string{want}) }

// EqualAny reports whether got equals any of wants. It compares against
// every candidate, without stopping at a match, so the time taken does not
// tell which one matched or how many there are before it. An empty want
// matches nothing; its emptiness is a property of our own state, not of
// the guess, so testing it leaks nothing.
func EqualAny(got string, wants []string) bool {
	g := sha256.Sum256([]byte(got))
	match := 0
	for _, want := range wants {
		w := sha256.Sum256([]byte(want))
		eq := subtle.ConstantTimeCompare(g[:], w[:])
		nonEmpty := subtle.ConstantTimeEq(int32(min(len(want), 1)), 1)
		match |= eq & nonEmpty
	}
	return match == 1
}

// New returns SecretBytes random bytes from crypto/rand, base64url encoded
// without padding (URL-safe, as §2.4 asks): 43 characters.
func New() (string, error) {
	b := make([]byte, SecretBytes)
	if _, err := randRead(b); err != nil {
		return "", fmt.Errorf("credential: reading random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Fingerprint is how a spent token is remembered: the first 32 hex
// characters of SHA-256(token), the format the reference bridge writes to
// pairing.json, so both bridges refuse each other's spent tokens.
func Fingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])[:FingerprintLen]
}
