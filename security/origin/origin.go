// Package origin holds the header rules between any web page and the
// bridge's port (THREAT_MODEL.md): an upgrade's Origin must be a site the
// caller admits, never missing or "null" (T1, T3: CheckUpgrade, protocol.md
// §2.2); the Host must name the loopback address and port served, which a
// DNS-rebinding page's requests do not (T2: Guard, before any handler); a
// control-plane request with an Origin is a browser's (T4: CheckControl,
// §4.3). They stop browsers, not local programs, which send any headers
// (T10, T11), and authenticate no one: a page on an allowed site passes (T8).
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
// trimmed, ASCII lower-cased (Unicode folding would let U+212A stand for
// "k"), no trailing slashes.
func Normalize(s string) string { return trimFold(s, "") }

// Pasted is Normalize that also drops trailing '.', ',' and ';', for an
// origin copied out of a sentence (the reference bridge's rule). It only
// cleans: Parse still decides whether the rest is an origin.
func Pasted(s string) string { return trimFold(s, ".,;") }

func trimFold(s, punct string) string {
	for {
		t := strings.TrimRight(strings.TrimRight(strings.TrimSpace(s), punct), "/")
		if t == s {
			return asciiLower(s)
		}
		s = t
	}
}

// Parse checks that s is a bare http(s)://host[:port] origin and returns
// it normalised, without a default port, since browsers never send one.
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

// validHost accepts a bracketed IPv6 literal or an ASCII host name; a
// trailing dot is not a form browsers send.
func validHost(h string, bracketed bool) bool {
	if bracketed {
		return net.ParseIP(h) != nil && strings.Contains(h, ":")
	}
	const hostChars = "abcdefghijklmnopqrstuvwxyz0123456789.-_"
	return h != "" && len(h) <= 253 && strings.Trim(h, hostChars) == "" &&
		!strings.ContainsAny(h[:1], ".-") && !strings.ContainsAny(h[len(h)-1:], ".-") && !strings.Contains(h, "..")
}

var ipv4Loopback = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// loopbackHost reports whether a Host header is localhost, 127.0.0.1 or
// [::1] with port (T2); literal says it named 127.0.0.1. An address must
// be written as netip writes it, so 127.1, [::0001] or a port with leading
// zeros are not another way in.
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

// Refusal reasons: fixed text, safe to log and to answer with.
const (
	ReasonHost        = "host not allowed"
	ReasonOrigin      = "origin not allowed"
	ReasonBrowser     = "requests from a browser are not accepted here"
	ReasonMultiOrigin = "more than one origin header"
)

// CheckUpgrade applies the Origin rule (T1, T3) to an upgrade Guard let
// through. admit is never asked about a missing or "null" Origin. It
// returns the site, or 403 and a fixed reason.
func CheckUpgrade(r *http.Request, admit func(site string) bool) (site string, status int, reason string) {
	if len(r.Header.Values("Origin")) > 1 {
		return "", http.StatusForbidden, ReasonMultiOrigin
	}
	site = Normalize(r.Header.Get("Origin"))
	if site == "" || site == "null" || !admit(site) {
		return "", http.StatusForbidden, ReasonOrigin
	}
	return site, 0, ""
}

var Production = []string{"https://www.stitchslop.com", "https://stitchslop.com"}

// AllowedSite reports whether a tab on site may pair with a bridge
// launched for launch (the reference bridge's rule): launch itself, a
// Production site, or a Loopback one.
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

// CheckControl refuses a control-plane request with an Origin header (T4),
// which browsers send, even empty, on every cross-site or non-GET request
// and shells never do; call it before the key is read.
func CheckControl(r *http.Request) (status int, reason string) {
	if _, fromBrowser := r.Header["Origin"]; fromBrowser {
		return http.StatusForbidden, ReasonBrowser
	}
	return 0, ""
}

// Clip bounds an untrusted header value for a log line.
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
