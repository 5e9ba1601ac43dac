// Package pairing is the bridge's store of pairings: pairing.json in the
// config directory, shared with the Stitch Slop team's own bridge.
//
// The file is an object keyed by normalised origin. Each entry holds
// secret (the newest), secrets (up to MaxSecrets, all valid), createdAt,
// protocol and usedTokens (spent-token fingerprints, see security/ledger).
// Fields this bridge does not know, at either level, survive its writes.
//
// The file is re-read on every use, because several bridges may share it.
// Every read-modify-write holds the file's inter-process lock, and writes
// are atomic (security/fileperm). A file that does not parse is never
// overwritten: Check keeps it aside under a new name and reports it.
package pairing

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/paths"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/credential"
	"github.com/stitchslop/stitchslop-bridge/security/fileperm"
	"github.com/stitchslop/stitchslop-bridge/security/ledger"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

// MaxSecrets is how many secrets an origin keeps, newest first, so that
// pairing a second browser does not strand the first.
const MaxSecrets = 5

// ErrSpent is returned by Redeem for a token already redeemed.
var ErrSpent = errors.New("the token was already redeemed")

// ErrCorrupt is wrapped by reads of a pairing.json that does not parse.
var ErrCorrupt = errors.New("pairing.json is not valid")

// Store reads and writes one pairing.json.
type Store struct {
	path string
	log  *slog.Logger
}

// New returns the store for the config directory dir.
func New(dir string, log *slog.Logger) *Store {
	return &Store{path: paths.Pairing(dir), log: log}
}

// Path is the file's path.
func (s *Store) Path() string { return s.path }

func (s *Store) warn(msg string) { s.log.Warn(msg) }

// file is pairing.json: origin -> entry, each entry kept as raw fields.
type file map[string]map[string]json.RawMessage

func (s *Store) read() (file, error) {
	b, err := fileperm.ReadFile(s.path, s.warn)
	if err != nil {
		return nil, err
	}
	f := file{}
	if len(b) == 0 {
		return f, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, s.path, err)
	}
	for k, v := range top {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(v, &e); err != nil || e == nil {
			return nil, fmt.Errorf("%w: %s: the entry for %q is not an object", ErrCorrupt, s.path, k)
		}
		f[k] = e
	}
	return f, nil
}

// Check reads the file once at start-up under the lock. A file that does not
// parse is kept aside under a new name, reported, and the store starts
// empty; nothing is lost.
func (s *Store) Check() error {
	unlock, err := fileperm.Lock(s.path)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = s.read()
	if errors.Is(err, ErrCorrupt) {
		aside, kerr := fileperm.KeepAside(s.path)
		if kerr != nil {
			return fmt.Errorf("%v; and keeping it aside failed: %w", err, kerr)
		}
		s.log.Warn(fmt.Sprintf("%v; kept it aside as %s and started with no pairings", err, aside))
		return nil
	}
	return err
}

func listOf(e map[string]json.RawMessage, key string) []string {
	var v []string
	json.Unmarshal(e[key], &v)
	return v
}

func str(e map[string]json.RawMessage, key string) string {
	var v string
	json.Unmarshal(e[key], &v)
	return v
}

func secretsOf(e map[string]json.RawMessage) []string {
	all := listOf(e, "secrets")
	if s := str(e, "secret"); s != "" {
		all = append(all, s)
	}
	return all
}

// Paired reports whether origin has a stored secret.
func (s *Store) Paired(o string) (bool, error) {
	f, err := s.read()
	if err != nil {
		return false, err
	}
	return len(secretsOf(f[origin.Normalize(o)])) > 0, nil
}

// VerifySecret reports whether secret is one of origin's stored secrets.
func (s *Store) VerifySecret(o, secret string) (bool, error) {
	if secret == "" {
		return false, nil
	}
	f, err := s.read()
	if err != nil {
		return false, err
	}
	return credential.EqualAny(secret, secretsOf(f[origin.Normalize(o)])), nil
}

// Spent reports whether token was redeemed, for any origin, by any bridge
// sharing this file.
func (s *Store) Spent(token string) (bool, error) {
	f, err := s.read()
	if err != nil {
		return false, err
	}
	return spent(f, token), nil
}

func spent(f file, token string) bool {
	hit := false
	for _, e := range f {
		if ledger.Spent(listOf(e, "usedTokens"), token) {
			hit = true
		}
	}
	return hit
}

// Redeem spends token and mints a new pairing secret for origin, under the
// file's lock: the ledger is checked first, so of two bridges redeeming the
// same token at once exactly one succeeds.
func (s *Store) Redeem(o, token string) (string, error) {
	unlock, err := fileperm.Lock(s.path)
	if err != nil {
		return "", err
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return "", err
	}
	if spent(f, token) {
		return "", ErrSpent
	}
	secret, err := credential.New()
	if err != nil {
		return "", err
	}
	key := origin.Normalize(o)
	e := f[key]
	if e == nil {
		e = map[string]json.RawMessage{}
		f[key] = e
	}
	secrets := append([]string{secret}, listOf(e, "secrets")...)
	if old := str(e, "secret"); old != "" && !contains(secrets, old) {
		secrets = append(secrets, old)
	}
	if len(secrets) > MaxSecrets {
		secrets = secrets[:MaxSecrets]
	}
	set(e, "secret", secret)
	set(e, "secrets", secrets)
	set(e, "createdAt", time.Now().UTC().Format("2006-01-02T15:04:05.000Z"))
	set(e, "protocol", version.Protocol)
	set(e, "usedTokens", ledger.Record(listOf(e, "usedTokens"), token))
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encoding %s: %w", s.path, err)
	}
	if err := fileperm.WriteFile(s.path, append(b, '\n')); err != nil {
		return "", err
	}
	return secret, nil
}

func set(e map[string]json.RawMessage, key string, v any) {
	b, _ := json.Marshal(v)
	e[key] = b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
