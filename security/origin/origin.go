// Package origin holds the header rules that stand between any web page and
// the bridge's port. It mitigates THREAT_MODEL.md:
//
//   - T1 (web-page): the Origin of a WebSocket upgrade, compared
//     case-insensitively without a trailing slash (protocol.md §2.2), must be
//     a site the caller admits (CheckUpgrade); anything else is refused with
//     403 before a frame is read. The bridge admits the site it serves, and
//     an AllowedSite that has a stored pairing or an armed token
//     (internal/sites).
//   - T2 (dns-rebind): the Host header must name the loopback address the
//     server listens on, with its port (loopbackHost). A rebinding page
//     reaches 127.0.0.1 under its own host name, and that name is what its
//     requests carry, so it is refused with 403 by Guard, the one front of
//     every HTTP server the binary runs, before any handler (the upgrade,
//     the control plane, the demo's page) sees the request.
//   - T3 (null-origin): a missing Origin and the literal "null" that
//     sandboxed frames and some redirects send never match, whatever the
//     allowed origin is.
//   - T4 (page-control): a control-plane request carrying an Origin header
//     comes from a browser and is refused with 403 before the key is looked
//     at (CheckControl, protocol.md §4.3).
//
// Parse validates the --origin a user gives, so the allowed origin is a
// bare scheme://host[:port] in the form browsers send.
//
// It does not authenticate anyone: the handshake credential (T5) and the
// control-plane key do that. A page served from the allowed origin itself
// (including an XSS on it, T8) passes these checks by design. A non-browser
// process on the machine can send any headers it likes; these rules stop
// browsers, not local programs (T10, T11).
package origin

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Normalize is the form origins are compared and pairing.json is keyed by:
// surrounding white space removed, ASCII letters lower-cased, trailing
// slashes dropped. Only ASCII is folded: Unicode case folding would let
// "K" (U+212A, Kelvin sign) stand for "k". Normalize is idempotent.
func Normalize(s string) string { return trimFold(s, "") }

// Pasted is an origin as a model or a person copied it out of a sentence
// (the agent panel's line, say): surrounding white space and trailing '.',
// ',' and ';' are dropped, then trailing slashes, then ASCII case is
// folded, so "http://localhost:9999/." is "http://localhost:9999". It is
// the reference bridge's rule for the pair tool, wait_for_connection and
// POST /pair. It only cleans: Parse still decides whether the rest is an
// origin, and the caller whether it is allowed. Pasted is idempotent.
func Pasted(s string) string { return trimFold(s, ".,;") }

// trimFold drops surrounding white space, trailing punct and trailing
// slashes until none is left, then folds ASCII case.
func trimFold(s, punct string) string {
	for {
		t := strings.TrimRight(strings.TrimRight(strings.TrimSpace(s), punct), "/")
		if t == s {
			return asciiLower(s)
		}
		s = t
	}
}

// Parse checks that s is a web origin (http or https, a host, an optional
// port, no path, query, fragment or user info) and returns it normalised,
// without a default port (:443 for https, :80 for http), since browsers
// never send one.
func Parse(s string) (string, error) {
	n := Normalize(s)
	if n == "" {
		return "", fmt.Errorf("origin: empty; want the form https://host[:port]")
	}
	if strings.ContainsAny(n, "?#%\\ \t\r\n") {
		return "", fmt.Errorf("origin %q must be a site only, such as https://host[:port], without a path, query or fragment", s)
	}
	u, err := url.Parse(n)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("origin %q is not of the form https://host[:port]", s)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("origin %q: scheme must be http or https", s)
	}
	if u.User != nil || u.Path != "" || u.RawPath != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("origin %q must be a site only, such as https://host[:port], without a path, query or user", s)
	}
	host, port := u.Hostname(), u.Port()
	if !validHost(host, strings.HasPrefix(u.Host, "[")) {
		return "", fmt.Errorf("origin %q: invalid host name", s)
	}
	if strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("origin %q: empty port", s)
	}
	if port != "" {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 || strconv.Itoa(p) != port {
			return "", fmt.Errorf("origin %q: port must be a number from 1 to 65535", s)
		}
	}
	site := u.Scheme + "://" + u.Host
	if u.Scheme == "https" && port == "443" || u.Scheme == "http" && port == "80" {
		site = strings.TrimSuffix(site, ":"+port)
	}
	return site, nil
}

// validHost accepts an IPv6 literal (when bracketed) or a name of ASCII
// letters, digits, '.', '-' and '_' that neither starts nor ends with '.'
// or '-' (a trailing dot is not a form browsers send).
func validHost(h string, bracketed bool) bool {
	if bracketed {
		return net.ParseIP(h) != nil && strings.Contains(h, ":")
	}
	const hostChars = "abcdefghijklmnopqrstuvwxyz0123456789.-_"
	return h != "" && len(h) <= 253 && strings.Trim(h, hostChars) == "" &&
		!strings.ContainsAny(h[:1], ".-") && !strings.ContainsAny(h[len(h)-1:], ".-") && !strings.Contains(h, "..")
}

// ipv4Loopback is the address every server of the binary binds.
var ipv4Loopback = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// loopbackHost reports whether a request's Host header names this server
// on port: localhost (ASCII case-insensitive), 127.0.0.1 or [::1], a
// colon, and port in decimal. Anything else, including a missing port,
// another spelling of a loopback address, or a name that resolves to
// 127.0.0.1, is refused (T2); Guard applies it to every request. literal
// says host named the server by its address, 127.0.0.1. An address is read by
// net/netip and must be written as netip writes it, so 127.1, 0x7f.0.0.1,
// [::0001], a zone or a port with leading zeros are not another way in.
func loopbackHost(host string, port int) (literal, ok bool) {
	if port < 1 || port > 65535 {
		return false, false
	}
	if name, found := strings.CutSuffix(host, ":"+strconv.Itoa(port)); found && asciiLower(name) == "localhost" {
		return false, true
	}
	ap, err := netip.ParseAddrPort(host)
	if err != nil || ap.String() != host || int(ap.Port()) != port {
		return false, false
	}
	return ap.Addr() == ipv4Loopback, ap.Addr() == ipv4Loopback || ap.Addr() == netip.IPv6Loopback()
}

// Refusal reasons, fixed text with no request bytes in them, safe to log and
// to answer with.
const (
	ReasonHost        = "host not allowed"
	ReasonOrigin      = "origin not allowed"
	ReasonBrowser     = "requests from a browser are not accepted here"
	ReasonMultiOrigin = "more than one origin header"
)

// CheckUpgrade applies the Origin rule (T1, T3) to a WebSocket upgrade
// request that Guard let through (the Host rule, T2, is Guard's). admit
// decides whether a site may dial; it is given the Origin header normalised,
// and never a missing, empty or "null" one, which are refused first. It
// returns the site and 0, "" when both rules pass, otherwise the HTTP status
// to refuse with (403) and a fixed reason.
func CheckUpgrade(r *http.Request, admit func(site string) bool) (site string, status int, reason string) {
	if len(r.Header.Values("Origin")) > 1 {
		return "", http.StatusForbidden, ReasonMultiOrigin
	}
	site = Normalize(r.Header.Get("Origin")) // "" when there is none
	if site == "" || site == "null" || !admit(site) {
		return "", http.StatusForbidden, ReasonOrigin
	}
	return site, 0, ""
}

// Production are the Stitch Slop app's own sites.
var Production = []string{"https://www.stitchslop.com", "https://stitchslop.com"}

// AllowedSite reports whether site (normalised) is one a tab may pair from
// or be admitted from on a bridge launched for launch (the reference
// bridge's rule): launch itself, a Production site, or http or https on
// localhost, 127.0.0.1 or [::1] with any port. Any other site is allowed
// only when the user names it as the launch origin (--origin or
// STITCHSLOP_ORIGIN).
func AllowedSite(site, launch string) bool {
	return site != "" && site != "null" && (site == Normalize(launch) || slices.Contains(Production, site) || Loopback(site))
}

// Loopback reports whether site is http or https on localhost, 127.0.0.1
// or [::1], with or without a port: a page served from this machine.
func Loopback(site string) bool {
	p, err := Parse(site)
	if err != nil || p != site {
		return false
	}
	u, _ := url.Parse(p) // Parse's output always parses
	return slices.Contains([]string{"localhost", "127.0.0.1", "::1"}, u.Hostname())
}

// CheckControl refuses any request with an Origin header (T4) on the
// control plane, behind Guard (which applies the Host rule, T2). Call it
// before the key is read. It returns 0 and "" when the request passes,
// otherwise 403 and a fixed reason.
func CheckControl(r *http.Request) (status int, reason string) {
	// An Origin header, with any value, even empty, is a browser's: browsers
	// send one on every cross-site or non-GET request, while shells and
	// agents send none (protocol.md §4.3).
	if _, fromBrowser := r.Header["Origin"]; fromBrowser {
		return http.StatusForbidden, ReasonBrowser
	}
	return 0, ""
}

// Clip bounds an untrusted header value for a log line to its first 128
// bytes, marked with "…" when cut, so it cannot flood the log. The logger
// (internal/ui) quotes it and escapes its control characters.
func Clip(s string) string {
	const max = 128
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
