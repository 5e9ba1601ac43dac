package sites

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const launch = "https://www.stitchslop.com"

func TestTokenArmedForOneSiteOnly(t *testing.T) {
	s := New(launch, "tok_aaaaaa")
	if !s.Armed(launch, "tok_aaaaaa") {
		t.Fatal("the launch token is not armed for the launch origin")
	}
	if s.Armed("http://localhost:5173", "tok_aaaaaa") || s.HasTokens("http://localhost:5173") {
		t.Fatal("the launch token admits another site")
	}
	if err := s.Arm("http://localhost:5173", "tok_bbbbbb"); err != nil {
		t.Fatal(err)
	}
	if s.Armed(launch, "tok_bbbbbb") {
		t.Fatal("a token armed for localhost admits the launch origin")
	}
	if !s.Armed("http://localhost:5173", "tok_bbbbbb") {
		t.Fatal("an armed token is not armed")
	}
	if s.Armed(launch, "") || New(launch, "").HasTokens(launch) {
		t.Fatal("an empty token counts as armed")
	}
	if err := s.Arm("https://evil.test", "tok_cccccc"); err != ErrNotAllowed {
		t.Fatalf("Arm for a site not allowed: %v, want ErrNotAllowed", err)
	}
}

func TestArmBounded(t *testing.T) {
	s := New(launch, "")
	for i := range MaxTokens + 2 {
		s.Arm(launch, fmt.Sprintf("tok_%06x", i))
	}
	if s.Armed(launch, "tok_000000") || s.Armed(launch, "tok_000001") {
		t.Error("the oldest tokens beyond MaxTokens are still armed")
	}
	if !s.Armed(launch, fmt.Sprintf("tok_%06x", MaxTokens+1)) || !s.Armed(launch, "tok_000002") {
		t.Error("one of the newest MaxTokens tokens is not armed")
	}
	for i := range MaxSites + 1 {
		s.Arm(fmt.Sprintf("http://localhost:%d", 3000+i), "tok_abcdef")
	}
	if s.HasTokens(launch) || s.HasTokens("http://localhost:3000") {
		t.Error("more than MaxSites sites keep tokens")
	}
	if !s.HasTokens(fmt.Sprintf("http://localhost:%d", 3000+MaxSites)) {
		t.Error("the newest site lost its token")
	}
}

func TestServe(t *testing.T) {
	s := New(launch, "")
	if s.Served() != launch {
		t.Fatalf("served %q at start", s.Served())
	}
	if prev := s.Serve("http://localhost:5173"); prev != launch || s.Served() != "http://localhost:5173" || s.launch != launch {
		t.Fatalf("after Serve: prev %q, served %q, launch %q", prev, s.Served(), s.launch)
	}
}

func TestCleanToken(t *testing.T) {
	for in, want := range map[string]bool{
		"tok_0123456789ab":               true,
		" tok_0123456789ab.":             true,
		"tok_abcdef,;":                   true,
		"tok_ABCDEF":                     false,
		"tok_abcde":                      false,
		"tok_" + fmt.Sprintf("%065d", 0): false,
		"token_abcdef":                   false,
		"tok_abcdef!":                    false,
	} {
		got, ok := CleanToken(in)
		if ok != want {
			t.Errorf("CleanToken(%q) = %q, %v; want ok %v", in, got, ok, want)
		}
	}
}

type fakeStore struct {
	spent  map[string]bool
	paired map[string]bool
}

func (f fakeStore) Spent(tok string) (bool, error)   { return f.spent[tok], nil }
func (f fakeStore) Paired(site string) (bool, error) { return f.paired[site], nil }

func TestPair(t *testing.T) {
	st := fakeStore{spent: map[string]bool{"tok_5e5e5e": true}, paired: map[string]bool{"http://localhost:5173": true}}
	tests := []struct {
		name, tok, site string
		err             error
		armed           bool
		wantSite        string
	}{
		{"launch by default, pasted with a full stop", "tok_abcdef.", "", nil, true, launch},
		{"loopback", "tok_abcdef", "HTTP://LOCALHOST:3000/", nil, true, "http://localhost:3000"},
		{"bad form", "tok_xyz", "", ErrBadToken, false, ""},
		{"not allowed", "tok_abcdef", "https://evil.test", ErrNotAllowed, false, "https://evil.test"},
		{"not an origin", "tok_abcdef", "https://evil.test/path", ErrNotAllowed, false, ""},
		{"spent, unpaired", "tok_5e5e5e", "", ErrSpent, false, launch},
		{"spent, but the site is paired", "tok_5e5e5e", "http://localhost:5173", nil, false, "http://localhost:5173"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(launch, "")
			p, err := s.Pair(st, tt.tok, tt.site)
			if !errors.Is(err, tt.err) || p.Armed != tt.armed || p.Site != tt.wantSite {
				t.Fatalf("Pair = %+v, %v; want site %q, armed %v, error %v", p, err, tt.wantSite, tt.armed, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), tt.tok) {
				t.Errorf("the error %q carries the token", err)
			}
			if got := s.Armed(tt.wantSite, p.Token); got != tt.armed {
				t.Errorf("after Pair, token armed for %q = %v, want %v", tt.wantSite, got, tt.armed)
			}
		})
	}
}

// SwitchNotice says nothing while the launch origin is served, names both
// sites once another is, and for a loopback site says that any local
// program can serve its port.
func TestSwitchNotice(t *testing.T) {
	s := New("https://www.stitchslop.com", "")
	if n := s.SwitchNotice(); n != "" {
		t.Errorf("SwitchNotice() serving the launch origin = %q, want \"\"", n)
	}
	s.Serve("https://stitchslop.com")
	n := s.SwitchNotice()
	if !strings.Contains(n, "started for https://www.stitchslop.com but now serves https://stitchslop.com") || strings.Contains(n, "local program") {
		t.Errorf("SwitchNotice() serving another production site = %q", n)
	}
	s.Serve("http://127.0.0.1:8780")
	if n := s.SwitchNotice(); !strings.Contains(n, "now serves http://127.0.0.1:8780") || !strings.Contains(n, "any local program") || !strings.Contains(n, "unpair http://127.0.0.1:8780") {
		t.Errorf("SwitchNotice() serving a loopback site = %q, want the loopback warning and the unpair command", n)
	}
	s.Serve("https://www.stitchslop.com")
	if n := s.SwitchNotice(); n != "" {
		t.Errorf("SwitchNotice() back on the launch origin = %q, want \"\"", n)
	}
}

// A site the agent chose is served without the switch notice, unless it
// is a loopback site, whose port any local program can serve.
func TestChooseNotice(t *testing.T) {
	s := New("https://www.stitchslop.com", "")
	s.Choose("https://stitchslop.com")
	if n := s.SwitchNotice(); n != "" || s.Served() != "https://stitchslop.com" {
		t.Errorf("after Choose of a production site: served %q, notice %q; want it served, no notice", s.Served(), n)
	}
	s.Choose("http://localhost:9999")
	if n := s.SwitchNotice(); !strings.Contains(n, "any local program") {
		t.Errorf("after Choose of a loopback site: notice %q, want the loopback warning", n)
	}
}
