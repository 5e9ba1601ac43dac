package pairing_test

// Interoperability of pairing.json with the Stitch Slop team's JavaScript
// bridge, as docs/protocol.md §7.1 (the shared config directory)
// describes it. Black-box: the schema, the limits (5
// secrets, 20 fingerprints) and the example are written here from the
// notes, never taken from this package's types or constants, so a drift in
// either direction fails.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/credential"
)

// From the notes.
const (
	notesSite   = "https://www.stitchslop.com"
	notesSecret = "q3Vb0mJ6bqkz1T9E6hRzYt8iW2c5xN0aLpUe4sDfGhA"
	notesOlder  = "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0HgFeDcBa9876543"
	notesTok    = "tok_0123456789ab"
	notesFp     = "fa57a35f9a62212f9ee3e1213b7cd69c"
	notesSecrN  = 5  // "secrets holds up to 5 newest secrets"
	notesUsedN  = 20 // "usedTokens holds the last 20 spent-token fingerprints"

	// notesExample is the notes' example pairing.json, verbatim.
	notesExample = `{ "https://www.stitchslop.com": {
      "secret": "q3Vb0mJ6bqkz1T9E6hRzYt8iW2c5xN0aLpUe4sDfGhA",
      "secrets": ["q3Vb0mJ6bqkz1T9E6hRzYt8iW2c5xN0aLpUe4sDfGhA", "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0HgFeDcBa9876543"],
      "createdAt": "2026-11-02T09:14:55.120Z",
      "protocol": 1,
      "usedTokens": ["5e884898da28047151d0e56f8dc62927", "6b86b273ff34fce19d6b804eff5a3f57"] } }
`
)

// notesStore writes content as pairing.json in a fresh config dir with the
// modes protocol.md asks for (dir 0700, file 0600), and opens a Store on it.
func notesStore(t *testing.T, content string) *pairing.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".stitchslop")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if content != "" {
		if err := os.WriteFile(filepath.Join(dir, "pairing.json"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return pairing.New(dir, ui.NewLogger(io.Discard))
}

// notesEntry is one origin's entry as the notes' schema has it, decoded
// strictly by decodeNotes.
type notesEntry struct {
	Secret     string
	Secrets    []string
	CreatedAt  time.Time
	UsedTokens []string
}

var (
	urlSafe   = regexp.MustCompile(`^[A-Za-z0-9_-]{43,}$`)
	fpForm    = regexp.MustCompile(`^[0-9a-f]{32}$`)
	isoMillis = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`) // Date.prototype.toISOString
)

// decodeNotes reads pairing.json as a reader holding only the notes would:
// a top-level object whose object fields are entries keyed by normalised
// origin, each with exactly {secret, secrets, createdAt, protocol,
// usedTokens} of exactly these JSON types and forms. It fails t on anything
// else; unknown fields are refused, since a file this bridge wrote from
// scratch has none.
func decodeNotes(t *testing.T, s *pairing.Store) map[string]notesEntry {
	t.Helper()
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) || json.Unmarshal(b, &top) != nil {
		t.Fatalf("pairing.json = %s, want a JSON object", b)
	}
	out := map[string]notesEntry{}
	for key, raw := range top {
		if key != strings.ToLower(key) || strings.HasSuffix(key, "/") {
			t.Errorf("key %q is not a normalised origin (lower-case, no trailing /)", key)
		}
		var e map[string]json.RawMessage
		if json.Unmarshal(raw, &e) != nil || e == nil {
			t.Fatalf("entry %q = %s, want an object", key, raw)
		}
		keys := slices.Sorted(maps.Keys(e))
		if want := []string{"createdAt", "protocol", "secret", "secrets", "usedTokens"}; !slices.Equal(keys, want) {
			t.Fatalf("entry %q has fields %q, want exactly %q", key, keys, want)
		}
		var n notesEntry
		n.Secret = jsString(t, key+".secret", e["secret"])
		n.Secrets = jsStrings(t, key+".secrets", e["secrets"])
		n.UsedTokens = jsStrings(t, key+".usedTokens", e["usedTokens"])
		created := jsString(t, key+".createdAt", e["createdAt"])
		if n.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil || !isoMillis.MatchString(created) {
			t.Errorf("%s.createdAt = %q, want an ISO-8601 UTC time with milliseconds like 2026-11-02T09:14:55.120Z", key, created)
		}
		var protocol any
		if json.Unmarshal(e["protocol"], &protocol); protocol != float64(1) {
			t.Errorf("%s.protocol = %s, want the number 1", key, e["protocol"])
		}
		if raw, err := base64.RawURLEncoding.DecodeString(n.Secret); !urlSafe.MatchString(n.Secret) || err != nil || len(raw) < 32 {
			t.Errorf("%s.secret = %q, want URL-safe base64 of at least 32 bytes", key, n.Secret)
		}
		if len(n.Secrets) < 1 || len(n.Secrets) > notesSecrN || n.Secrets[0] != n.Secret {
			t.Errorf("%s.secrets = %q, want 1..%d secrets with secrets[0] == secret %q", key, n.Secrets, notesSecrN, n.Secret)
		}
		if len(n.UsedTokens) > notesUsedN {
			t.Errorf("%s.usedTokens has %d entries, want at most %d", key, len(n.UsedTokens), notesUsedN)
		}
		for _, fp := range n.UsedTokens {
			if !fpForm.MatchString(fp) {
				t.Errorf("%s.usedTokens holds %q, want 32 lower-case hex characters", key, fp)
			}
		}
		out[key] = n
	}
	return out
}

// jsString decodes raw as a JSON string, refusing null and other types.
func jsString(t *testing.T, name string, raw json.RawMessage) string {
	t.Helper()
	var s string
	if !bytes.HasPrefix(raw, []byte(`"`)) || json.Unmarshal(raw, &s) != nil {
		t.Fatalf("%s = %s, want a string", name, raw)
	}
	return s
}

// jsStrings decodes raw as a JSON array of strings, refusing null.
func jsStrings(t *testing.T, name string, raw json.RawMessage) []string {
	t.Helper()
	var items []json.RawMessage
	if !bytes.HasPrefix(raw, []byte("[")) || json.Unmarshal(raw, &items) != nil {
		t.Fatalf("%s = %s, want an array", name, raw)
	}
	out := []string{}
	for i, it := range items {
		out = append(out, jsString(t, fmt.Sprintf("%s[%d]", name, i), it))
	}
	return out
}

// TestNotesSchema_TheirFileReadsHere proves that a pairing.json the
// reference bridge wrote works here: its secrets (all of them, under any
// spelling of the origin) verify, its usedTokens refuse their tokens, and a
// new redemption on it writes back what the notes require of it.
func TestNotesSchema_TheirFileReadsHere(t *testing.T) {
	// The fingerprint format is the notes', not ours: the constant pins it.
	if got := credential.Fingerprint(notesTok); got != notesFp {
		t.Fatalf("Fingerprint(%q) = %q, want %q (protocol.md §7.1)", notesTok, got, notesFp)
	}
	withTok := strings.Replace(notesExample, `"6b86b273ff34fce19d6b804eff5a3f57"]`, `"6b86b273ff34fce19d6b804eff5a3f57", "`+notesFp+`"]`, 1)
	if withTok == notesExample {
		t.Fatal("could not add the fingerprint to the example")
	}
	// The example's own fingerprints are those of "password" and "1"
	// (SHA-256 prefixes), so even the verbatim file has spent tokens.
	tests := []struct {
		name, file string
		spent      []string
	}{
		{"verbatim", notesExample, []string{"password", "1"}},
		{"with tok_0123456789ab spent", withTok, []string{"password", "1", notesTok}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := notesStore(t, tt.file)
			for _, o := range []string{notesSite, "HTTPS://WWW.stitchslop.com/"} {
				for _, sec := range []string{notesSecret, notesOlder} {
					if ok, err := s.VerifySecret(o, sec); !ok || err != nil {
						t.Errorf("VerifySecret(%q, %q) = %v, %v; want true, nil", o, sec, ok, err)
					}
				}
				if ok, _ := s.VerifySecret(o, notesSecret[:42]+"B"); ok {
					t.Errorf("VerifySecret(%q, wrong secret) = true, want false", o)
				}
			}
			if ok, _ := s.VerifySecret("https://stitchslop.com", notesSecret); ok {
				t.Error("a secret of www.stitchslop.com verified for stitchslop.com")
			}
			if ok, err := s.Paired(notesSite); !ok || err != nil {
				t.Errorf("Paired(%q) = %v, %v; want true, nil", notesSite, ok, err)
			}
			if got, err := s.PairedOrigins(); err != nil || !slices.Equal(got, []string{notesSite}) {
				t.Errorf("PairedOrigins() = %q, %v; want [%q]", got, err, notesSite)
			}
			for _, tok := range tt.spent {
				if ok, err := s.Spent(tok); !ok || err != nil {
					t.Errorf("Spent(%q) = %v, %v; want true (its fingerprint is in usedTokens)", tok, ok, err)
				}
				if _, err := s.Redeem(notesSite, tok); !errors.Is(err, pairing.ErrSpent) {
					t.Errorf("Redeem(%q) = %v, want ErrSpent (a token in usedTokens)", tok, err)
				}
			}
			if ok, _ := s.Spent("tok_fresh"); ok {
				t.Error(`Spent("tok_fresh") = true, want false`)
			}

			// Redeeming on their file: the new secret goes first in both
			// fields, the old ones stay valid, at most 5 are kept, and the
			// fingerprint is appended, newest last. (The example itself
			// passes the strict decoder: a check of the decoder.)
			before := decodeNotes(t, s)[notesSite].UsedTokens
			var minted []string
			for i := range 4 { // 2 stored + 4 new = 6, one over the cap
				tok := fmt.Sprintf("tok_new%d", i)
				sec, err := s.Redeem("HTTPS://WWW.STITCHSLOP.COM/", tok)
				if err != nil {
					t.Fatalf("Redeem(%q) = %v", tok, err)
				}
				minted = append([]string{sec}, minted...)
				e := decodeNotes(t, s)[notesSite]
				want := append(slices.Clone(minted), notesSecret, notesOlder)
				want = want[:min(len(want), notesSecrN)]
				if !slices.Equal(e.Secrets, want) || e.Secret != sec {
					t.Fatalf("after %d redemptions secret = %q, secrets = %q; want %q, %q", i+1, e.Secret, e.Secrets, sec, want)
				}
				for _, old := range want {
					if ok, _ := s.VerifySecret(notesSite, old); !ok {
						t.Errorf("after %d redemptions VerifySecret(%q) = false, want every listed secret valid", i+1, old)
					}
				}
				if wantUsed := append(slices.Clone(before), credential.Fingerprint(tok)); !slices.Equal(e.UsedTokens, wantUsed) {
					t.Errorf("after Redeem(%q) usedTokens = %q, want %q", tok, e.UsedTokens, wantUsed)
				}
				before = e.UsedTokens
			}
			if ok, _ := s.VerifySecret(notesSite, notesOlder); ok {
				t.Error("the oldest secret still verifies after falling off the list of 5")
			}
		})
	}
}

// TestNotesSchema_OurFileReadsThere proves that a pairing.json this bridge
// writes from nothing is what the reference bridge expects: the notes'
// schema, exact JSON types, toISOString's createdAt, and the caps of 5
// secrets and the last 20 fingerprints.
func TestNotesSchema_OurFileReadsThere(t *testing.T) {
	s := notesStore(t, "")
	start := time.Now().UTC().Truncate(time.Millisecond)
	sec, err := s.Redeem("HTTPS://WWW.StitchSlop.com/", notesTok)
	if err != nil {
		t.Fatal(err)
	}
	all := decodeNotes(t, s)
	e, ok := all[notesSite]
	if len(all) != 1 || !ok {
		t.Fatalf("pairing.json keys = %q, want only %q", slices.Collect(maps.Keys(all)), notesSite)
	}
	if e.Secret != sec || !slices.Equal(e.Secrets, []string{sec}) || !slices.Equal(e.UsedTokens, []string{notesFp}) {
		t.Errorf("entry = %+v, want secret and secrets [%q], usedTokens [%q]", e, sec, notesFp)
	}
	if e.CreatedAt.Before(start) || e.CreatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("createdAt = %v, want the time of the Redeem (from %v)", e.CreatedAt, start)
	}

	var toks []string
	for i := range 25 {
		tok := fmt.Sprintf("tok_%04x", i)
		toks = append(toks, tok)
		if sec, err = s.Redeem(notesSite, tok); err != nil {
			t.Fatalf("Redeem(%q) = %v", tok, err)
		}
	}
	e = decodeNotes(t, s)[notesSite]
	var want []string
	for _, tok := range toks[len(toks)-notesUsedN:] {
		want = append(want, credential.Fingerprint(tok))
	}
	if !slices.Equal(e.UsedTokens, want) {
		t.Errorf("after 26 redemptions usedTokens = %q, want the last %d fingerprints, oldest first: %q", e.UsedTokens, notesUsedN, want)
	}
	if len(e.Secrets) != notesSecrN || e.Secret != sec {
		t.Errorf("after 26 redemptions %d secrets, secret %q; want %d, the newest %q", len(e.Secrets), e.Secret, notesSecrN, sec)
	}
}

// TestNotesSchema_UnknownFieldsSurvive proves "fields a bridge does not
// know must survive its writes", at the top level and inside entries (ours
// and another origin's), through a Redeem and an Unpair.
func TestNotesSchema_UnknownFieldsSurvive(t *testing.T) {
	const in = `{"schema": 2, "writtenBy": ["reference", "0.2.0"],
  "https://www.stitchslop.com": {"secret": "` + notesSecret + `", "secrets": ["` + notesSecret + `"],
    "createdAt": "2026-11-02T09:14:55.120Z", "protocol": 1, "usedTokens": [], "label": {"browser": "Firefox"}},
  "http://localhost:5173": {"secret": "s2", "secrets": ["s2"], "protocol": 1, "usedTokens": [], "x": null}}`
	var want map[string]any
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	s := notesStore(t, in)
	for _, step := range []struct {
		name string
		do   func() error
	}{
		{"Redeem", func() error { _, err := s.Redeem(notesSite, notesTok); return err }},
		{"Unpair", func() error { _, err := s.Unpair(notesSite); return err }},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%s = %v", step.name, err)
		}
		b, _ := os.ReadFile(s.Path())
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("after %s pairing.json = %s: %v", step.name, b, err)
		}
		mine, _ := got[notesSite].(map[string]any)
		for name, pair := range map[string][2]any{
			"schema":        {got["schema"], want["schema"]},
			"writtenBy":     {got["writtenBy"], want["writtenBy"]},
			"entry label":   {mine["label"], want[notesSite].(map[string]any)["label"]},
			"other's entry": {got["http://localhost:5173"], want["http://localhost:5173"]},
		} {
			if !reflect.DeepEqual(pair[0], pair[1]) {
				t.Errorf("after %s, %s = %v, want %v", step.name, name, pair[0], pair[1])
			}
		}
	}
	if ok, _ := s.Paired(notesSite); ok {
		t.Errorf("Paired(%q) after Unpair = true, want false", notesSite)
	}
}
