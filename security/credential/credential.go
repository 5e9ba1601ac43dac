// Package credential mints and compares the bridge's secrets: pairing
// secrets, the session key and one-time tokens (THREAT_MODEL.md T5:
// guessing one outright or byte by byte from timing). Equal compares
// SHA-256 digests in constant time; hashing time follows the inputs'
// lengths, so timing can tell a secret's length (New's are all one length),
// never its bytes.
package credential

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// SecretBytes is the entropy of every secret and key this bridge mints
// (protocol.md §2.4, §4.1).
const SecretBytes = 32

const FingerprintLen = 32

// randRead is swapped by a test: a failing source is an error, never a
// weak secret.
var randRead = rand.Read

// Equal reports whether got and want are the same credential, in constant
// time. An empty want never matches: an unset credential is not a wildcard.
func Equal(got, want string) bool { return EqualAny(got, []string{want}) }

// EqualAny compares every one of wants, so the time does not tell which
// matched.
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

// New returns SecretBytes random bytes, base64url without padding (§2.4).
func New() (string, error) {
	b := make([]byte, SecretBytes)
	if _, err := randRead(b); err != nil {
		return "", fmt.Errorf("credential: reading random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Fingerprint is how a spent token is remembered (T6): the first 32 hex
// characters of SHA-256(token), the reference bridge's format.
func Fingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])[:FingerprintLen]
}
