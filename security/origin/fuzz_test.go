package origin

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, and what it accepts is a fixed point: a
// normalised bare origin that parses to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"https://www.stitchslop.com", "http://[::1]:3000", "https://x.test:443/", "null", "javascript:alert(1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Parse(s)
		if err != nil {
			if out != "" {
				t.Errorf("Parse(%q) = %q, %v; want \"\" with an error", s, out, err)
			}
			return
		}
		if !strings.HasPrefix(out, "https://") && !strings.HasPrefix(out, "http://") {
			t.Errorf("Parse(%q) = %q, want an http(s) origin", s, out)
		}
		if Normalize(out) != out {
			t.Errorf("Parse(%q) = %q, not normalised (%q)", s, out, Normalize(out))
		}
		again, err := Parse(out)
		if err != nil || again != out {
			t.Errorf("Parse(Parse(%q)) = %q, %v; want %q, nil", s, again, err, out)
		}
		if strings.ContainsAny(out[strings.Index(out, "//")+2:], "/?#@\\ ") {
			t.Errorf("Parse(%q) = %q has more than scheme, host and port", s, out)
		}
		if !Match(out, s) && !strings.HasSuffix(Normalize(s), ":443") && !strings.HasSuffix(Normalize(s), ":80") {
			t.Errorf("Match(Parse(%q), %q) = false, want true", s, s)
		}
	})
}

// FuzzMatch: Match never panics, is symmetric, is unchanged by Normalize on
// either side, and never admits a missing or "null" origin.
func FuzzMatch(f *testing.F) {
	f.Add("https://www.stitchslop.com", "https://WWW.stitchslop.com/")
	f.Add("null", "null")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		m := Match(a, b)
		if m != Match(b, a) {
			t.Errorf("Match(%q, %q) = %v, Match(%q, %q) = %v; want symmetric", a, b, m, b, a, !m)
		}
		if got := Match(Normalize(a), b); got != m {
			t.Errorf("Match(Normalize(%q), %q) = %v, want %v", a, b, got, m)
		}
		if got := Match(a, Normalize(b)); got != m {
			t.Errorf("Match(%q, Normalize(%q)) = %v, want %v", a, b, got, m)
		}
		if n := Normalize(a); Normalize(n) != n {
			t.Errorf("Normalize(Normalize(%q)) = %q, want %q", a, Normalize(n), n)
		}
		if m && (Normalize(a) == "" || Normalize(a) == "null") {
			t.Errorf("Match(%q, %q) = true for a missing or null origin", a, b)
		}
	})
}

// FuzzHostAllowed: HostAllowed never panics and is true exactly for the
// three loopback names (ASCII case aside) with the exact port.
func FuzzHostAllowed(f *testing.F) {
	f.Add("127.0.0.1:8787", 8787)
	f.Add("LOCALHOST:8788", 8788)
	f.Add("[::1]:8790", 8790)
	f.Add("evil.test:8787", 8787)
	f.Fuzz(func(t *testing.T, host string, port int) {
		got := HostAllowed(host, port)
		// Written from the spec, independently of loopbackNames.
		want := false
		if port >= 1 && port <= 65535 {
			for _, n := range []string{"127.0.0.1", "localhost", "[::1]"} {
				if strings.ToLower(host) == n+":"+strconv.Itoa(port) && isASCII(host) {
					want = true
				}
			}
		}
		if got != want {
			t.Errorf("HostAllowed(%q, %d) = %v, want %v", host, port, got, want)
		}
		if got {
			h, p, err := net.SplitHostPort(host)
			if err != nil || p != strconv.Itoa(port) || !net.ParseIP(strings.Replace(strings.ToLower(h), "localhost", "127.0.0.1", 1)).IsLoopback() {
				t.Errorf("HostAllowed(%q, %d) = true for a host that is not loopback with that port", host, port)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzPasted: Pasted never panics, is idempotent, and leaves no trailing
// punctuation, slash or white space; an origin it yields that parses is
// already in Parse's form but for a default port.
func FuzzPasted(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		out := Pasted(s)
		if Pasted(out) != out {
			t.Errorf("Pasted(Pasted(%q)) = %q, want %q", s, Pasted(out), out)
		}
		if out != "" && strings.ContainsAny(out[len(out)-1:], ".,;/ \t\r\n") {
			t.Errorf("Pasted(%q) = %q ends in punctuation, a slash or white space", s, out)
		}
		if p, err := Parse(out); err == nil && p != out && !strings.HasSuffix(out, ":443") && !strings.HasSuffix(out, ":80") {
			t.Errorf("Parse(Pasted(%q)) = %q, want %q", s, p, out)
		}
	})
}
