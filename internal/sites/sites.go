// Package sites keeps which web site the bridge serves and the one-time
// tokens it has been given, each for one site (THREAT_MODEL.md T1, T6). A
// tab from another allowed site is admitted at the upgrade only when that
// site has a stored pairing or a token armed for it, and is served from
// then on. A token admits only the site it was armed for. It holds memory
// only; the pairing store decides whether a token is spent.
package sites

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/stitchslop/stitchslop-bridge/security/credential"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
)

// Bounds of the armed tokens: loopback sites on any port are allowed, so
// the set of sites is not small by itself.
const (
	MaxTokens = 5
	MaxSites  = 16
)

var ErrNotAllowed = errors.New("that site is not allowed")

var TokenPattern = regexp.MustCompile(`^tok_[0-9a-f]{6,64}$`)

// CleanToken trims white space and trailing '.', ',' and ';' (a token
// pasted from a sentence) and reports whether the rest is a token's form.
func CleanToken(s string) (string, bool) {
	t := strings.TrimRight(strings.TrimSpace(s), ".,;")
	return t, TokenPattern.MatchString(t)
}

type Sites struct {
	launch string

	mu     sync.Mutex
	served string
	chosen string              // the site an agent named (Choose), "" for none
	armed  map[string][]string // site -> its tokens, oldest first
	order  []string            // sites with tokens, oldest armed first
}

// New returns the sites of a bridge launched for launch (normalised), with
// token, when not empty, armed for it.
func New(launch, token string) *Sites {
	s := &Sites{launch: launch, served: launch, armed: map[string][]string{}}
	if token != "" {
		s.Arm(launch, token)
	}
	return s
}

// Allowed reports whether site may pair or be admitted (origin.AllowedSite).
func (s *Sites) Allowed(site string) bool { return origin.AllowedSite(site, s.launch) }

func (s *Sites) Served() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

// SwitchNotice, led by a space, tells the agent and the person that the
// bridge serves a site other than its launch origin, and that a loopback
// site may be any local program's page (THREAT_MODEL T17).
func (s *Sites) SwitchNotice() string {
	s.mu.Lock()
	served, chosen := s.served, s.chosen
	s.mu.Unlock()
	if served == s.launch || (served == chosen && !origin.Loopback(served)) {
		return ""
	}
	n := " This bridge was started for " + s.launch + " but now serves " + served +
		": a tab of that site attached with a pairing stored earlier or a token given for it."
	if served == chosen {
		n = " This bridge was started for " + s.launch + " but now serves " + served + ", the site the agent named."
	}
	if origin.Loopback(served) {
		n += " " + served + " is a page served from this machine, on a port any local program can serve; if the user did not open it, tell them, and `stitchslop-bridge unpair " +
			served + "` removes its pairing."
	}
	return n
}

// Choose serves site, one the agent named: no switch to warn of, unless it
// is a loopback site. The caller has checked it is Allowed.
func (s *Sites) Choose(site string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served, s.chosen = site, site
}

func (s *Sites) Serve(site string) (prev string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, s.served = s.served, site
	return prev
}

// Arm accepts token for site, and for no other. A site keeps its newest
// MaxTokens tokens; beyond MaxSites sites, the one armed longest ago loses
// its tokens.
func (s *Sites) Arm(site, token string) error {
	if !s.Allowed(site) {
		return ErrNotAllowed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	toks := s.armed[site]
	if credential.EqualAny(token, toks) {
		return nil
	}
	if toks == nil {
		if len(s.order) == MaxSites {
			delete(s.armed, s.order[0])
			s.order = s.order[1:]
		}
		s.order = append(s.order, site)
	}
	toks = append(toks, token)
	s.armed[site] = toks[max(0, len(toks)-MaxTokens):]
	return nil
}

func (s *Sites) ArmedSites() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.order))
}

func (s *Sites) HasTokens(site string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.armed[site]) > 0
}

// Armed compares token with every one armed for site (credential.EqualAny).
func (s *Sites) Armed(site, token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return credential.EqualAny(token, s.armed[site])
}

// Errors of Pair, with sentences for the person who gave the token. None
// of them carries the token.
var (
	ErrBadToken = errors.New("that is not a Stitch Slop token: a token is tok_ and 6 to 64 lower-case hex digits; copy it again from the Stitch Slop agent panel")
	ErrSpent    = errors.New("that token was already redeemed, and tokens work once; open the Stitch Slop agent panel for a fresh one")
)

type Store interface {
	Spent(token string) (bool, error)
	Paired(site string) (bool, error)
}

type Pairing struct {
	Site  string // normalised
	Token string // cleaned (CleanToken)
	// Armed: the token now admits a tab of Site. Not armed means it was
	// spent already but Site has a stored pairing, which is enough.
	Armed bool
}

// Pair checks a token given for a site (rawSite "" is the launch origin)
// and arms it for that site alone. A spent token is an error unless the
// site has a stored pairing, which a tab uses instead.
func (s *Sites) Pair(st Store, rawToken, rawSite string) (Pairing, error) {
	tok, ok := CleanToken(rawToken)
	if !ok {
		return Pairing{}, ErrBadToken
	}
	site := s.launch
	if rawSite != "" {
		p, err := origin.Parse(origin.Pasted(rawSite))
		if err != nil {
			return Pairing{}, fmt.Errorf("%w: %v", ErrNotAllowed, err)
		}
		site = p
	}
	if !s.Allowed(site) {
		return Pairing{Site: site}, fmt.Errorf("%w: %s is not %s; a token is accepted only for those sites, or for the site the bridge was started with (--origin)",
			ErrNotAllowed, site, strings.Join(s.AllowedSites(), ", "))
	}
	p := Pairing{Site: site, Token: tok}
	spent, err := st.Spent(tok)
	if err != nil {
		return p, fmt.Errorf("cannot check the token against the spent tokens, so it is not accepted: %w", err)
	}
	if spent {
		if paired, err := st.Paired(site); err != nil || !paired {
			return p, ErrSpent
		}
		return p, nil
	}
	p.Armed = true
	return p, s.Arm(site, tok)
}

// AllowedSites describes the allowed sites, for a sentence.
func (s *Sites) AllowedSites() []string {
	list := []string{s.launch}
	for _, p := range origin.Production {
		if p != s.launch {
			list = append(list, p)
		}
	}
	return append(list, "http(s)://localhost, 127.0.0.1 or [::1] on any port")
}
