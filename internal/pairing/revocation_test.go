package pairing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/ledger"
)

// Written from the spec (protocol.md §7.1), not computed.
const (
	tokRef = "tok_0123456789ab"
	fpRef  = "fa57a35f9a62212f9ee3e1213b7cd69c"
	other  = "https://staging.stitchslop.com"
)

// ledgerFile is the spent-token file's path, written from SECURITY.md.
func ledgerFile(dir string) string { return filepath.Join(dir, "spent-tokens") }

func fresh(dir string) *Store { return New(dir, ui.NewLogger(io.Discard)) }

func readTop(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustSpent(t *testing.T, s *Store, token string, want bool) {
	t.Helper()
	got, err := s.Spent(token)
	if err != nil || got != want {
		t.Fatalf("Spent(%q) = %v, %v; want %v, nil", token, got, err, want)
	}
}

func TestRedeemWritesSpentTokenFile(t *testing.T) {
	s, dir := newStore(t)
	if _, err := s.Redeem(site, tokRef); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ledgerFile(dir))
	if err != nil {
		t.Fatalf("spent-token file after Redeem: %v", err)
	}
	if string(b) != fpRef+"\n" {
		t.Errorf("spent-token file = %q, want %q", b, fpRef+"\n")
	}
	if fi, _ := os.Stat(ledgerFile(dir)); fi.Mode().Perm() != 0o600 {
		t.Errorf("spent-token file mode = %04o, want 0600", fi.Mode().Perm())
	}
	if s.LedgerPath() != ledgerFile(dir) {
		t.Errorf("LedgerPath() = %q, want %q", s.LedgerPath(), ledgerFile(dir))
	}
}

func TestTokenSpentAfterPairingDeleted(t *testing.T) {
	s, dir := newStore(t)
	if _, err := s.Redeem(site, tokRef); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.Path()); err != nil {
		t.Fatal(err)
	}
	// A new process: only the spent-token file remembers.
	n := fresh(dir)
	mustSpent(t, n, tokRef, true)
	if _, err := n.Redeem(site, tokRef); !errors.Is(err, ErrSpent) {
		t.Fatalf("Redeem after pairing.json was deleted = %v, want ErrSpent", err)
	}
	if err := n.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Redeem(other, tokRef); !errors.Is(err, ErrSpent) {
		t.Fatalf("Redeem for another origin = %v, want ErrSpent", err)
	}
}

func TestTokenSpentAfterSpentTokenFileDeleted(t *testing.T) {
	s, dir := newStore(t)
	if _, err := s.Redeem(site, tokRef); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(ledgerFile(dir)); err != nil {
		t.Fatal(err)
	}
	n := fresh(dir) // usedTokens in pairing.json, as the reference bridge reads it
	mustSpent(t, n, tokRef, true)
	if _, err := n.Redeem(site, tokRef); !errors.Is(err, ErrSpent) {
		t.Fatalf("Redeem = %v, want ErrSpent", err)
	}
}

func TestStoreRemembersTokensItSpent(t *testing.T) {
	s, dir := newStore(t)
	if _, err := s.Redeem(site, tokRef); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.Path(), ledgerFile(dir)} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	mustSpent(t, s, tokRef, true)
	if _, err := s.Redeem(site, tokRef); !errors.Is(err, ErrSpent) {
		t.Fatalf("Redeem by the same store after both files were deleted = %v, want ErrSpent", err)
	}
	// The memory is the store's own: a new process has nothing to go on,
	// which is what proves the refusal above came from memory.
	mustSpent(t, fresh(dir), tokRef, false)
}

func TestStoreRemembersTokensFoundSpent(t *testing.T) {
	s, dir := newStore(t)
	if _, err := fresh(dir).Redeem(site, tokRef); err != nil {
		t.Fatal(err)
	}
	mustSpent(t, s, tokRef, true)
	os.Remove(s.Path())
	os.Remove(ledgerFile(dir))
	mustSpent(t, s, tokRef, true)
}

func TestCorruptSpentTokenFileRefuses(t *testing.T) {
	for name, content := range map[string]string{
		"junk line":         fpRef + "\nnot a fingerprint\n",
		"token in clear":    "tok_feedface\n",
		"torn fingerprint":  fpRef[:20],
		"binary":            "\x00\xff",
		"fingerprint + tab": fpRef + "\tx\n",
	} {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			dir := t.TempDir()
			s := New(dir, ui.NewLogger(&log))
			writeFile(t, ledgerFile(dir), content)
			if spent, err := s.Spent("tok_new"); err == nil || spent {
				t.Errorf("Spent with a corrupt spent-token file = %v, %v; want false and an error", spent, err)
			} else if !strings.Contains(err.Error(), ledgerFile(dir)) {
				t.Errorf("Spent error %q, want it to name %s", err, ledgerFile(dir))
			}
			_, err := s.Redeem(site, "tok_new")
			if err == nil || errors.Is(err, ErrSpent) || !errors.Is(err, ledger.ErrCorrupt) {
				t.Fatalf("Redeem with a corrupt spent-token file = %v, want ledger.ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), ledgerFile(dir)) {
				t.Errorf("Redeem error %q, want it to name %s", err, ledgerFile(dir))
			}
			if strings.Contains(err.Error(), "feedface") {
				t.Errorf("Redeem error %q echoes the file's content", err)
			}
			if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
				t.Errorf("pairing.json exists after a refused redemption: %v", err)
			}
			if err := s.Check(); err != nil {
				t.Errorf("Check = %v, want a warning and nil (stored pairings still work)", err)
			}
			if !strings.Contains(log.String(), ledgerFile(dir)) {
				t.Errorf("Check log %q, want a warning naming %s", log.String(), ledgerFile(dir))
			}
			if b, _ := os.ReadFile(ledgerFile(dir)); string(b) != content {
				t.Errorf("spent-token file = %q after Check and Redeem, want it untouched %q", b, content)
			}
		})
	}
}

func TestUnreadableSpentTokenFileRefuses(t *testing.T) {
	s, dir := newStore(t)
	target := filepath.Join(t.TempDir(), "elsewhere")
	writeFile(t, target, "")
	if err := os.Symlink(target, ledgerFile(dir)); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if _, err := s.Redeem(site, "tok_new"); err == nil || !strings.Contains(err.Error(), ledgerFile(dir)) {
		t.Fatalf("Redeem with a symlinked spent-token file = %v, want an error naming %s", err, ledgerFile(dir))
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Errorf("the symlink's target was written: %q", b)
	}
}

func TestUsedTokensOfAnotherShapeRefuses(t *testing.T) {
	s, _ := newStore(t)
	writeFile(t, s.Path(), `{"`+other+`":{"secret":"x","usedTokens":"`+fpRef+`"}}`)
	if _, err := s.Spent(tokRef); err == nil {
		t.Error("Spent with usedTokens a string = nil error, want one (never read as empty)")
	}
	if _, err := s.Redeem(site, tokRef); err == nil || errors.Is(err, ErrCorrupt) {
		t.Errorf("Redeem with usedTokens a string = %v, want an error that is not ErrCorrupt", err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path()); err != nil {
		t.Errorf("pairing.json was set aside for one odd field: %v", err)
	}
}

// futureFile is pairing.json as a later reference bridge might leave it:
// top-level fields that are not entries, an origin entry with fields we do
// not know, and one we do.
const futureFile = `{
  "schema": 2,
  "comment": "written by stitchslop 0.2",
  "migrations": [1, "two", {"three": 3}],
  "nothing": null,
  "flag": true,
  "` + other + `": {"secret": "s-other", "secrets": ["s-other"], "usedTokens": [], "device": {"name": "laptop"}},
  "` + site + `": {"secret": "s-old", "secrets": ["s-old"], "usedTokens": ["5e884898da28047151d0e56f8dc62927"], "future": [1, 2]}
}`

func TestFutureSchemaSurvives(t *testing.T) {
	s, dir := newStore(t)
	writeFile(t, s.Path(), futureFile)
	var want map[string]any
	json.Unmarshal([]byte(futureFile), &want)

	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if aside, _ := filepath.Glob(filepath.Join(dir, "pairing.json.corrupt-*")); len(aside) != 0 {
		t.Fatalf("Check set pairing.json aside as corrupt: %v", aside)
	}
	if ok, err := s.VerifySecret(site, "s-old"); !ok || err != nil {
		t.Fatalf("VerifySecret(stored secret) = %v, %v; want true", ok, err)
	}
	secret, err := s.Redeem(site, tokRef)
	if err != nil {
		t.Fatal(err)
	}
	got := readTop(t, s.Path())
	for _, k := range []string{"schema", "comment", "migrations", "nothing", "flag", other} {
		if v, ok := got[k]; !ok || !reflect.DeepEqual(v, want[k]) {
			t.Errorf("after Redeem, %q = %v, want %v", k, v, want[k])
		}
	}
	mine, _ := got[site].(map[string]any)
	if !reflect.DeepEqual(mine["future"], []any{float64(1), float64(2)}) || mine["secret"] != secret {
		t.Errorf("after Redeem, entry = %v, want the unknown field kept and the new secret", mine)
	}
	if used, _ := mine["usedTokens"].([]any); len(used) != 2 || used[1] != fpRef {
		t.Errorf("usedTokens = %v, want the old one and %s", used, fpRef)
	}

	if _, err := s.Unpair(site); err != nil {
		t.Fatal(err)
	}
	got = readTop(t, s.Path())
	for _, k := range []string{"schema", "comment", "migrations", "nothing", "flag", other} {
		if v, ok := got[k]; !ok || !reflect.DeepEqual(v, want[k]) {
			t.Errorf("after Unpair, %q = %v, want %v", k, v, want[k])
		}
	}
	if mine, _ := got[site].(map[string]any); mine["future"] == nil {
		t.Errorf("after Unpair, entry = %v, want the unknown field kept", mine)
	}
	if raw, _ := os.ReadFile(s.Path()); !bytes.Contains(raw, []byte(`"schema": 2`)) {
		t.Errorf("pairing.json = %s, want \"schema\": 2 as it was", raw)
	}
}

func TestPairingFileShapes(t *testing.T) {
	tests := []struct {
		name, content string
		corrupt       bool
	}{
		{"a list", `[1, 2]`, true},
		{"a string", `"x"`, true},
		{"a number", `2`, true},
		{"broken", `{"a":`, true},
		{"null", `null`, false},
		{"empty object", `{}`, false},
		{"only a schema", `{"schema": 2}`, false},
		{"origin key holding a string", `{"` + site + `": "x"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(t)
			writeFile(t, s.Path(), tt.content)
			_, err := s.Paired(site)
			if got := errors.Is(err, ErrCorrupt); got != tt.corrupt {
				t.Fatalf("Paired on %s = %v, want corrupt %v", tt.content, err, tt.corrupt)
			}
			if tt.corrupt {
				return
			}
			if _, err := s.Redeem(site, tokRef); err != nil {
				t.Fatalf("Redeem on %s = %v", tt.content, err)
			}
			if ok, _ := s.Paired(site); !ok {
				t.Errorf("Paired after Redeem on %s = false", tt.content)
			}
		})
	}
}

func TestUnpairKeepsFingerprints(t *testing.T) {
	s, dir := newStore(t)
	mine, err := s.Redeem(site, tokRef)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := s.Redeem(other, "tok_other")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Unpair("HTTPS://WWW.StitchSlop.com:443/")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Removed, []string{site}) || res.Spent != 2 {
		t.Errorf("Unpair = %+v, want Removed [%s] and Spent 2", res, site)
	}
	if ok, _ := s.VerifySecret(site, mine); ok {
		t.Error("the removed secret still verifies")
	}
	if ok, _ := s.Paired(site); ok {
		t.Error("Paired after Unpair = true")
	}
	if ok, _ := s.VerifySecret(other, theirs); !ok {
		t.Error("Unpair of one origin removed another's secret")
	}
	entry := readTop(t, s.Path())[site].(map[string]any)
	if used, _ := entry["usedTokens"].([]any); len(used) != 1 || used[0] != fpRef {
		t.Errorf("usedTokens after Unpair = %v, want [%s]", used, fpRef)
	}
	if _, ok := entry["secret"]; ok {
		t.Errorf("entry after Unpair = %v, want no secret", entry)
	}
	if secrets, ok := entry["secrets"].([]any); !ok || len(secrets) != 0 {
		t.Errorf("secrets after Unpair = %v, want []", entry["secrets"])
	}
	// Spent in both places, for a new process, and after pairing.json goes.
	mustSpent(t, fresh(dir), tokRef, true)
	os.Remove(s.Path())
	mustSpent(t, fresh(dir), tokRef, true)
	mustSpent(t, fresh(dir), "tok_other", true)

	again, err := s.Unpair(site)
	if err != nil || len(again.Removed) != 0 {
		t.Errorf("second Unpair = %+v, %v; want nothing removed", again, err)
	}
}

func TestUnpairAll(t *testing.T) {
	s, _ := newStore(t)
	writeFile(t, s.Path(), futureFile)
	res, err := s.UnpairAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{other, site}; !slices.Equal(res.Removed, want) {
		t.Errorf("UnpairAll removed %q, want %q", res.Removed, want)
	}
	for _, o := range []string{site, other} {
		if ok, _ := s.Paired(o); ok {
			t.Errorf("Paired(%s) after UnpairAll = true", o)
		}
	}
	top := readTop(t, s.Path())
	if top["schema"] != float64(2) || top[other].(map[string]any)["device"] == nil {
		t.Errorf("UnpairAll lost unknown fields: %v", top)
	}
	// The fingerprint only pairing.json held (spent by the reference
	// bridge) was copied into the spent-token file first.
	if res.Spent != 1 {
		t.Errorf("Spent = %d, want 1 (the reference bridge's fingerprint)", res.Spent)
	}
}

func TestUnpairCorruptPairingIsAnError(t *testing.T) {
	s, dir := newStore(t)
	junk := `{"` + site + `": {"secret": "abc"`
	writeFile(t, s.Path(), junk)
	if _, err := s.Unpair(site); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Unpair on a corrupt pairing.json = %v, want ErrCorrupt", err)
	}
	if b, _ := os.ReadFile(s.Path()); string(b) != junk {
		t.Errorf("pairing.json = %q, want it untouched", b)
	}
	if aside, _ := filepath.Glob(filepath.Join(dir, "pairing.json.corrupt-*")); len(aside) != 0 {
		t.Errorf("Unpair set the file aside (%v): a revocation must not look as if it worked", aside)
	}
}

func TestUnpairWithCorruptSpentTokenFileStillRemoves(t *testing.T) {
	var log bytes.Buffer
	dir := t.TempDir()
	s := New(dir, ui.NewLogger(&log))
	secret, err := s.Redeem(site, tokRef)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, ledgerFile(dir), "junk\n")
	res, err := s.Unpair(site)
	if err != nil || !slices.Equal(res.Removed, []string{site}) || res.Spent != -1 {
		t.Fatalf("Unpair = %+v, %v; want %s removed and Spent -1", res, err, site)
	}
	if ok, _ := s.VerifySecret(site, secret); ok {
		t.Error("the secret still verifies")
	}
	if !strings.Contains(log.String(), ledgerFile(dir)) {
		t.Errorf("log %q, want a warning naming %s", log.String(), ledgerFile(dir))
	}
	if used := readJSON(t, s.Path())[site]["usedTokens"].([]any); len(used) != 1 {
		t.Errorf("usedTokens = %v, want it kept", used)
	}
}

func TestReferenceFingerprintsCopied(t *testing.T) {
	for name, op := range map[string]func(*Store) error{
		"Check":  func(s *Store) error { return s.Check() },
		"Redeem": func(s *Store) error { _, err := s.Redeem(site, "tok_new"); return err },
		"Unpair": func(s *Store) error { _, err := s.Unpair(other); return err },
	} {
		t.Run(name, func(t *testing.T) {
			s, dir := newStore(t)
			// The reference bridge redeemed tokRef; it knows no spent-token file.
			writeFile(t, s.Path(), `{"`+other+`":{"secret":"s","usedTokens":["`+strings.ToUpper(fpRef)+`"]}}`)
			if err := op(s); err != nil {
				t.Fatal(err)
			}
			os.Remove(s.Path())
			mustSpent(t, fresh(dir), tokRef, true)
		})
	}
}

// Concurrent stores (several bridges on one config dir) redeeming distinct
// tokens while another unpairs: the lock loses no record anywhere.
func TestConcurrentRedeemsAndUnpairLoseNothing(t *testing.T) {
	dir := t.TempDir()
	if _, err := fresh(dir).Redeem(other, "tok_first"); err != nil {
		t.Fatal(err)
	}
	const n = ledger.Keep - 1 // all still in usedTokens afterwards
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := fresh(dir).Redeem(site, fmt.Sprintf("tok_%02d", i))
			errs <- err
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := fresh(dir).Unpair(other)
		errs <- err
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	m := readJSON(t, filepath.Join(dir, "pairing.json"))
	used, _ := m[site]["usedTokens"].([]any)
	if len(used) != n {
		t.Errorf("usedTokens holds %d fingerprints, want %d: a record was lost", len(used), n)
	}
	if ok, _ := fresh(dir).Paired(other); ok {
		t.Error("the concurrent Unpair was lost")
	}
	b, _ := os.ReadFile(ledgerFile(dir))
	if lines := strings.Count(string(b), "\n"); lines != n+1 {
		t.Errorf("spent-token file holds %d lines, want %d: a record was lost", lines, n+1)
	}
	os.Remove(filepath.Join(dir, "pairing.json"))
	for i := range n {
		mustSpent(t, fresh(dir), fmt.Sprintf("tok_%02d", i), true)
	}
	mustSpent(t, fresh(dir), "tok_first", true)
}

func TestConcurrentUseOfOneStore(t *testing.T) {
	s, _ := newStore(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			s.Redeem(site, fmt.Sprintf("tok_%d", i))
		}()
		go func() {
			defer wg.Done()
			s.Spent(fmt.Sprintf("tok_%d", i))
		}()
	}
	wg.Wait()
	for i := range 8 {
		mustSpent(t, s, fmt.Sprintf("tok_%d", i), true)
	}
}
