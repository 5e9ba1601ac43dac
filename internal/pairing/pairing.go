// Package pairing is the bridge's store of pairings: pairing.json in the
// config directory, shared with the Stitch Slop team's own bridge, and the
// spent-token file beside it (security/ledger), which is ours alone.
//
// Entries are pairing.json's object-valued fields, keyed by normalised
// origin; what this bridge does not know survives every write. The files
// are re-read on every use since several bridges may share them; every
// read-modify-write holds the lock; a pairing.json that does not parse is
// never overwritten.
//
// A demo's Store keeps its secrets in demoSecrets and reads only those;
// every other Store reads only secret and secrets. So no production
// bridge, ours or the reference one, admits a tab by a demo's pairing
// (THREAT_MODEL.md T17), even after a demo that did not exit cleanly.
//
// A token is spent (T6) when its fingerprint is in any entry's usedTokens,
// in the spent-token file, or in this process's memory, so deleting either
// file under a running bridge never lets it pair again. A spent-token file
// that cannot be read refuses every redemption.
package pairing

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"
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

// Store serves a whole process; its methods are safe for concurrent use.
type Store struct {
	path      string
	spentFile string
	log       *slog.Logger

	// Demo makes this a demo bridge's store: demoSecrets only (T17).
	Demo bool

	mu sync.Mutex
	// spent: fingerprints this process redeemed or found spent, never trimmed.
	spent []string
}

func New(dir string, log *slog.Logger) *Store {
	return &Store{path: paths.Pairing(dir), spentFile: filepath.Join(dir, ledger.FileName), log: log}
}

func (s *Store) Path() string { return s.path }

func (s *Store) LedgerPath() string { return s.spentFile }

func (s *Store) warn(msg string) { s.log.Warn(msg) }

func (s *Store) remembered(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ledger.Spent(s.spent, token)
}

func (s *Store) remember(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ledger.Spent(s.spent, token) {
		s.spent = append(s.spent, credential.Fingerprint(token))
	}
}

// file keeps every field as raw bytes, so what is not an entry, or not
// known in one, is written out as it was read.
type file struct {
	top     map[string]json.RawMessage
	entries map[string]entry
}

type entry = map[string]json.RawMessage

func (s *Store) read() (file, error) {
	f := file{top: map[string]json.RawMessage{}, entries: map[string]entry{}}
	b, err := fileperm.ReadFile(s.path, s.warn)
	if err != nil || len(b) == 0 {
		return f, err
	}
	// A document that is not an object (a list, a string, broken JSON)
	// fails here; "null" decodes to no fields.
	if err := json.Unmarshal(b, &f.top); err != nil {
		return f, fmt.Errorf("%w: %s: %v", ErrCorrupt, s.path, err)
	}
	if f.top == nil {
		f.top = map[string]json.RawMessage{}
	}
	for k, v := range f.top {
		// A field that is not an object (null too) stays in top as it is.
		var e entry
		if json.Unmarshal(v, &e) == nil && e != nil {
			f.entries[k] = e
		}
	}
	return f, nil
}

func (s *Store) write(f file) error {
	for k, e := range f.entries {
		set(f.top, k, e) // raw fields, each valid JSON as read or encoded
	}
	b, err := json.MarshalIndent(f.top, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", s.path, err)
	}
	return fileperm.WriteFile(s.path, append(b, '\n'))
}

func (s *Store) load() (file, *ledger.File, error) {
	f, err := s.read()
	if err != nil {
		return f, nil, err
	}
	l, err := ledger.ReadFile(s.spentFile, s.warn)
	return f, l, err
}

// Check runs at start-up: a pairing.json that does not parse is kept aside
// and the store starts empty. With no pairing.json no lock is taken, so a
// bridge that never pairs leaves no lock file behind.
func (s *Store) Check() error {
	if b, err := fileperm.ReadFile(s.path, nil); err == nil && len(b) == 0 {
		if _, err := ledger.ReadFile(s.spentFile, s.warn); err != nil {
			s.log.Warn(fmt.Sprintf("%v; no token can be redeemed until it is repaired; stored pairings still work", err))
		}
		return nil
	}
	unlock, err := fileperm.Lock(s.path)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := s.read()
	if errors.Is(err, ErrCorrupt) {
		aside, kerr := fileperm.KeepAside(s.path)
		if kerr != nil {
			return fmt.Errorf("%v; and keeping it aside failed: %w", err, kerr)
		}
		s.log.Warn(fmt.Sprintf("%v; kept it aside as %s and started with no pairings", err, aside))
		return nil
	}
	if err != nil {
		return err
	}
	l, err := ledger.ReadFile(s.spentFile, s.warn)
	if err != nil {
		s.log.Warn(fmt.Sprintf("%v; no token can be redeemed until it is repaired; stored pairings still work", err))
		return nil
	}
	if err := l.Write(allUsed(f)); err != nil {
		s.log.Warn(fmt.Sprintf("copying spent-token fingerprints from %s: %v", s.path, err))
	}
	return nil
}

// field is the zero T when key is missing or of another shape.
func field[T any](e entry, key string) T {
	var v T
	json.Unmarshal(e[key], &v)
	return v
}

const demoMember = "demoSecrets"

// secretsOf is e's secrets for this store: a demo's, or the others.
func (s *Store) secretsOf(e entry) []string {
	if s.Demo {
		return field[[]string](e, demoMember)
	}
	return productionSecrets(e)
}

func productionSecrets(e entry) []string {
	all := field[[]string](e, "secrets")
	if s := field[string](e, "secret"); s != "" {
		all = append(all, s)
	}
	return all
}

// allUsed is every fingerprint in every entry's usedTokens, in key order.
func allUsed(f file) []string {
	var all []string
	for _, k := range slices.Sorted(maps.Keys(f.entries)) {
		all = append(all, field[[]string](f.entries[k], "usedTokens")...)
	}
	return all
}

func (s *Store) Paired(o string) (bool, error) {
	secrets, err := s.secretsFor(o)
	return err == nil && len(secrets) > 0, err
}

func (s *Store) secretsFor(o string) ([]string, error) {
	f, err := s.read()
	return s.secretsOf(f.entries[origin.Normalize(o)]), err
}

// DemoPaired reports whether a demo stored a pairing for o: a production
// bridge refusing a tab of o says so.
func (s *Store) DemoPaired(o string) bool {
	f, err := s.read()
	return err == nil && len(field[[]string](f.entries[origin.Normalize(o)], demoMember)) > 0
}

// DemoSecret reports whether secret is one a demo stored for o.
func (s *Store) DemoSecret(o, secret string) bool {
	f, err := s.read()
	return err == nil && secret != "" && credential.EqualAny(secret, field[[]string](f.entries[origin.Normalize(o)], demoMember))
}

func (s *Store) PairedOrigins() ([]string, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	out := []string{}
	for k, e := range f.entries {
		if len(s.secretsOf(e)) > 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (s *Store) VerifySecret(o, secret string) (bool, error) {
	if secret == "" {
		return false, nil
	}
	secrets, err := s.secretsFor(o)
	return err == nil && credential.EqualAny(secret, secrets), err
}

// Spent reports whether token was redeemed, for any origin, by any bridge
// sharing these files or by this process. On an error the caller must
// refuse the token.
func (s *Store) Spent(token string) (bool, error) {
	if s.remembered(token) {
		return true, nil
	}
	f, l, err := s.load()
	if err != nil {
		return false, err
	}
	return s.spentIn(f, l, token)
}

// spentIn refuses a usedTokens that is not a list of strings: read as empty
// it would let its tokens pair again.
func (s *Store) spentIn(f file, l *ledger.File, token string) (bool, error) {
	for k, e := range f.entries {
		if raw, ok := e["usedTokens"]; ok && json.Unmarshal(raw, new([]string)) != nil {
			return false, fmt.Errorf("%s: usedTokens of the entry for %q is not a list of strings; refusing to redeem tokens until it is repaired", s.path, k)
		}
	}
	hit := ledger.Spent(allUsed(f), token) // every fingerprint compared
	if hit = l.Spent(token) || hit; hit {
		s.remember(token)
	}
	return hit, nil
}

// Redeem spends token and mints a new pairing secret for origin, under the
// lock, so of two bridges redeeming one token exactly one succeeds. The
// token is recorded as spent before pairing.json is written: a failure
// between leaves it spent without a pairing, never paired and unspent.
func (s *Store) Redeem(o, token string) (string, error) {
	if s.remembered(token) {
		return "", ErrSpent
	}
	unlock, err := fileperm.Lock(s.path)
	if err != nil {
		return "", err
	}
	defer unlock()
	f, l, err := s.load()
	if err != nil {
		return "", err
	}
	if spent, err := s.spentIn(f, l, token); err != nil || spent {
		return "", cmp.Or(err, ErrSpent)
	}
	secret, err := credential.New()
	if err != nil {
		return "", err
	}
	l.Add(allUsed(f)...) // fingerprints the reference bridge may have added
	key := origin.Normalize(o)
	e := f.entries[key]
	if e == nil {
		if _, ok := f.top[key]; ok {
			s.log.Warn(fmt.Sprintf("%s: the entry for %s was not an object; the new pairing replaces it", s.path, key))
		}
		e = entry{}
		f.entries[key] = e
	}
	if s.Demo {
		secrets := append([]string{secret}, field[[]string](e, demoMember)...)
		set(e, demoMember, secrets[:min(len(secrets), MaxSecrets)])
	} else {
		secrets := append([]string{secret}, field[[]string](e, "secrets")...)
		if old := field[string](e, "secret"); old != "" && !slices.Contains(secrets, old) {
			secrets = append(secrets, old)
		}
		set(e, "secret", secret)
		set(e, "secrets", secrets[:min(len(secrets), MaxSecrets)])
	}
	set(e, "createdAt", time.Now().UTC().Format("2006-01-02T15:04:05.000Z"))
	set(e, "protocol", version.Protocol)
	// spentIn read every entry's usedTokens without error.
	set(e, "usedTokens", ledger.Record(field[[]string](e, "usedTokens"), token))

	l.Record(token) // newest last
	if err := l.Write(allUsed(f)); err != nil {
		return "", err
	}
	s.remember(token)
	if err := s.write(f); err != nil {
		return "", err
	}
	return secret, nil
}

// Unpaired is what Unpair and UnpairAll did.
type Unpaired struct {
	// Removed lists the keys of pairing.json whose secrets were removed,
	// sorted; empty when there was nothing to remove.
	Removed []string
	// Spent is the number of fingerprints in the spent-token file
	// afterwards, or -1 when it could not be read or written.
	Spent int
}

// Unpair removes origin o's stored secrets, keeping usedTokens so spent
// tokens stay spent; an attached tab's next handshake is refused. A
// pairing.json that does not parse is an error, never kept aside: revoking
// must not look as if it worked.
func (s *Store) Unpair(o string) (Unpaired, error) {
	// A key that parses is compared as Parse has it, without a default
	// port; another as it is, normalised.
	canon := func(s string) string {
		if p, err := origin.Parse(s); err == nil {
			return p
		}
		return origin.Normalize(s)
	}
	target := canon(o)
	return s.unpair(func(key string) bool { return canon(key) == target })
}

func (s *Store) UnpairAll() (Unpaired, error) {
	return s.unpair(func(string) bool { return true })
}

func (s *Store) unpair(match func(key string) bool) (Unpaired, error) {
	res := Unpaired{Removed: []string{}, Spent: -1}
	unlock, err := fileperm.Lock(s.path)
	if err != nil {
		return res, err
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return res, err
	}
	l, err := ledger.ReadFile(s.spentFile, s.warn)
	if err == nil {
		err = l.Write(allUsed(f))
	}
	if err != nil {
		s.log.Warn(fmt.Sprintf("%v; the pairings are removed all the same, and pairing.json keeps its spent-token fingerprints", err))
	} else {
		res.Spent = l.Len()
	}
	for key, e := range f.entries {
		if !match(key) || !holdsSecrets(e) {
			continue
		}
		delete(e, "secret")
		delete(e, demoMember)
		// An empty list rather than none: a reader that takes secrets for
		// granted still finds a list, and nothing in it.
		set(e, "secrets", []string{})
		res.Removed = append(res.Removed, key)
	}
	if len(res.Removed) == 0 {
		return res, nil
	}
	slices.Sort(res.Removed)
	if err := s.write(f); err != nil {
		return Unpaired{Removed: []string{}, Spent: res.Spent}, err
	}
	return res, nil
}

// holdsSecrets counts an unreadable secrets as holding some, so Unpair
// clears it too.
func holdsSecrets(e entry) bool {
	if _, ok := e["secret"]; ok {
		return true
	}
	if _, ok := e[demoMember]; ok {
		return true
	}
	raw, ok := e["secrets"]
	var list []json.RawMessage
	return ok && (json.Unmarshal(raw, &list) != nil || len(list) > 0)
}

func set(e entry, key string, v any) {
	b, _ := json.Marshal(v)
	e[key] = b
}
