package pairing

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/ui"
)

const site = "https://www.stitchslop.com"

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	return New(dir, ui.NewLogger(io.Discard)), dir
}

func readJSON(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestRedeemMintsSpendsAndVerifies(t *testing.T) {
	s, _ := newStore(t)
	secret, err := s.Redeem(site+"/", "tok_0123456789ab")
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) < 43 { // 32 bytes, base64url
		t.Fatalf("secret %q is shorter than 32 bytes of entropy", secret)
	}
	if ok, _ := s.VerifySecret("HTTPS://WWW.STITCHSLOP.COM", secret); !ok {
		t.Fatal("VerifySecret(minted secret) = false")
	}
	if ok, _ := s.VerifySecret(site, secret+"x"); ok {
		t.Fatal("VerifySecret(wrong secret) = true")
	}
	if ok, _ := s.VerifySecret("https://staging.stitchslop.com", secret); ok {
		t.Fatal("a secret for one origin verified for another")
	}
	if _, err := s.Redeem(site, "tok_0123456789ab"); !errors.Is(err, ErrSpent) {
		t.Fatalf("second Redeem of the same token = %v, want ErrSpent", err)
	}
	m := readJSON(t, s.Path())
	used, _ := m[site]["usedTokens"].([]any)
	// The reference bridge's fingerprint of this token (protocol.md §7.1).
	if len(used) != 1 || used[0] != "fa57a35f9a62212f9ee3e1213b7cd69c" {
		t.Fatalf("usedTokens = %v, want [fa57a35f9a62212f9ee3e1213b7cd69c]", used)
	}
	if fi, _ := os.Stat(s.Path()); fi.Mode().Perm() != 0o600 {
		t.Fatalf("pairing.json mode = %v, want 0600", fi.Mode().Perm())
	}
}

func TestUnknownFieldsSurvive(t *testing.T) {
	s, _ := newStore(t)
	in := `{"https://other.example":{"secret":"a","future":{"x":1}},` +
		`"https://www.stitchslop.com":{"secret":"old","secrets":["old"],"usedTokens":[],"note":"keep me"},"topLevelExtra":{}}`
	if err := os.WriteFile(s.Path(), []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Redeem(site, "tok_1"); err != nil {
		t.Fatal(err)
	}
	m := readJSON(t, s.Path())
	if m[site]["note"] != "keep me" || m["https://other.example"]["future"] == nil || m["topLevelExtra"] == nil {
		t.Fatalf("unknown fields were lost: %v", m)
	}
	secrets, _ := m[site]["secrets"].([]any)
	if len(secrets) != 2 || secrets[1] != "old" || m[site]["secret"] != secrets[0] {
		t.Fatalf("secrets = %v, secret = %v; want the new one first and the old one kept", secrets, m[site]["secret"])
	}
}

func TestSecretsCapped(t *testing.T) {
	s, _ := newStore(t)
	var first string
	for i := range MaxSecrets + 2 {
		sec, err := s.Redeem(site, "tok_"+string(rune('a'+i)))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = sec
		}
	}
	secrets, _ := readJSON(t, s.Path())[site]["secrets"].([]any)
	if len(secrets) != MaxSecrets {
		t.Fatalf("len(secrets) = %d, want %d", len(secrets), MaxSecrets)
	}
	if ok, _ := s.VerifySecret(site, first); ok {
		t.Fatal("the oldest secret still verifies after it fell off the list")
	}
}

func TestCorruptFileKeptAside(t *testing.T) {
	s, dir := newStore(t)
	junk := []byte(`{"https://www.stitchslop.com": {"secret": "trunc`)
	if err := os.WriteFile(s.Path(), junk, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Paired(site); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Paired on a corrupt file = %v, want ErrCorrupt", err)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check = %v, want the file kept aside and nil", err)
	}
	aside, _ := filepath.Glob(filepath.Join(dir, "pairing.json.corrupt-*"))
	if len(aside) != 1 {
		t.Fatalf("kept-aside files = %v, want one", aside)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != string(junk) {
		t.Fatalf("kept-aside content = %q, want the original bytes", b)
	}
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Fatalf("pairing.json still exists after Check: %v", err)
	}
}

func TestConcurrentRedeemOnce(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Separate stores, as two bridges on one config dir would be.
			if _, err := New(dir, ui.NewLogger(io.Discard)).Redeem(site, "tok_race"); err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d of 8 concurrent redemptions of one token succeeded, want exactly 1", wins)
	}
}

// A demo's pairing is the demo's (THREAT_MODEL.md T17): its secret goes to
// demoSecrets, which only a demo's Store reads; the production fields stay
// as they were, and Unpair removes both.
func TestDemoPairingIsApart(t *testing.T) {
	const demoSite = "http://127.0.0.1:8780"
	prod, dir := newStore(t)
	demo := New(dir, ui.NewLogger(io.Discard))
	demo.Demo = true
	prodSecret, err := prod.Redeem(demoSite, "tok_aaaaaaaaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	secret, err := demo.Redeem(demoSite, "tok_0123456789ab")
	if err != nil {
		t.Fatal(err)
	}
	e := readJSON(t, prod.Path())[demoSite]
	if e["secret"] != prodSecret || len(e["secrets"].([]any)) != 1 || len(e["demoSecrets"].([]any)) != 1 || e["demoSecrets"].([]any)[0] != secret {
		t.Errorf("entry after a production and a demo pairing = %v; want the demo's secret in demoSecrets alone", e)
	}
	for _, tc := range []struct {
		store  *Store
		secret string
		want   bool
	}{{prod, secret, false}, {prod, prodSecret, true}, {demo, secret, true}, {demo, prodSecret, false}} {
		if ok, err := tc.store.VerifySecret(demoSite, tc.secret); ok != tc.want || err != nil {
			t.Errorf("VerifySecret (demo store %v, demo secret %v) = %v, %v; want %v", tc.store.Demo, tc.secret == secret, ok, err, tc.want)
		}
	}
	if !prod.DemoPaired(demoSite) || !prod.DemoSecret(demoSite, secret) || prod.DemoSecret(demoSite, prodSecret) {
		t.Error("DemoPaired or DemoSecret does not see the demo's pairing alone")
	}
	if _, err := prod.Unpair(demoSite); err != nil {
		t.Fatal(err)
	}
	if prod.DemoPaired(demoSite) {
		t.Error("Unpair left the demo's secret")
	}
}
