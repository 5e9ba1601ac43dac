package origin

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://www.stitchslop.com", "https://www.stitchslop.com"},
		{"HTTPS://WWW.StitchSlop.COM/", "https://www.stitchslop.com"},
		{" https://x.test/ ", "https://x.test"},
		{"https://x.test//", "https://x.test"},
		{"https://x.test/ /", "https://x.test"},
		{"null", "null"},
		{"", ""},
		{"/", ""},
		{"https://\u212Aey.test", "https://\u212Aey.test"}, // Kelvin sign is not 'k'
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	const allowed = "https://www.stitchslop.com"
	tests := []struct {
		got, allowed string
		want         bool
	}{
		{"https://www.stitchslop.com", allowed, true},
		{"https://WWW.STITCHSLOP.COM", allowed, true},
		{"https://www.stitchslop.com/", allowed, true},
		{"https://www.stitchslop.com", allowed + "/", true},
		{"", allowed, false},     // missing Origin
		{"null", allowed, false}, // sandboxed frame
		{"NULL", allowed, false}, // any case
		{"null", "null", false},  // even if someone allows it
		{"", "", false},          // nothing allowed matches nothing
		{"http://www.stitchslop.com", allowed, false},
		{"https://www.stitchslop.com:8443", allowed, false},
		{"https://www.stitchslop.com.evil.test", allowed, false},
		{"https://evil.test", allowed, false},
		{"https://stitchslop.com", allowed, false}, // staging and prod do not share
		{"https://www.stitchslop.\u212Aom", "https://www.stitchslop.kom", false},
	}
	for _, tt := range tests {
		if got := Match(tt.got, tt.allowed); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.got, tt.allowed, got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"https://www.stitchslop.com", "https://www.stitchslop.com", true},
		{"https://www.stitchslop.com/", "https://www.stitchslop.com", true},
		{"HTTPS://Staging.StitchSlop.com", "https://staging.stitchslop.com", true},
		{"http://localhost:5173", "http://localhost:5173", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"http://[::1]:3000", "http://[::1]:3000", true},
		{"https://x.test:443", "https://x.test", true},
		{"http://x.test:80", "http://x.test", true},
		{"http://x.test:443", "http://x.test:443", true},
		{"", "", false},
		{"null", "", false},
		{"www.stitchslop.com", "", false},
		{"ftp://x.test", "", false},
		{"javascript:alert(1)", "", false},
		{"https:x.test", "", false},
		{"https://", "", false},
		{"https://x.test/path", "", false},
		{"https://x.test?q", "", false},
		{"https://x.test?", "", false},
		{"https://x.test#", "", false},
		{"https://x.test#f", "", false},
		{"https://user@x.test", "", false},
		{"https://user:pw@x.test", "", false},
		{"https://x.test:", "", false},
		{"https://x.test:0", "", false},
		{"https://x.test:65536", "", false},
		{"https://x.test:0443", "", false},
		{"https://x.test:abc", "", false},
		{"https://%78.test", "", false},
		{"https://x\\.test", "", false},
		{"https://x .test", "", false},
		{"https://.x.test", "", false},
		{"https://x..test", "", false},
		{"https://-x.test", "", false},
		{"https://[::1", "", false},
		{"https://[127.0.0.1]", "", false},
		{"https://ex\u00e4mple.test", "", false}, // browsers send punycode
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Parse(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseErrorNamesContext(t *testing.T) {
	_, err := Parse("ftp://x.test")
	if err == nil || !strings.HasPrefix(err.Error(), "origin") {
		t.Errorf("Parse(%q) error = %v, want one starting with \"origin\"", "ftp://x.test", err)
	}
}

func TestHostAllowed(t *testing.T) {
	tests := []struct {
		host string
		port int
		want bool
	}{
		{"127.0.0.1:8787", 8787, true},
		{"localhost:8787", 8787, true},
		{"LocalHost:8788", 8788, true},
		{"[::1]:8790", 8790, true},
		{"127.0.0.1:8788", 8787, false}, // another bridge's port
		{"127.0.0.1", 8787, false},      // no port
		{"localhost", 8787, false},
		{"127.0.0.1:08787", 8787, false},
		{"127.0.0.1:8787 ", 8787, false},
		{"evil.test:8787", 8787, false}, // DNS rebinding
		{"localhost.:8787", 8787, false},
		{"localhost.evil.test:8787", 8787, false},
		{"127.0.0.2:8787", 8787, false},
		{"127.1:8787", 8787, false},
		{"2130706433:8787", 8787, false},
		{"[127.0.0.1]:8787", 8787, false},
		{"::1:8787", 8787, false},
		{"[::1%25lo]:8787", 8787, false},
		{"[0:0:0:0:0:0:0:1]:8787", 8787, false},
		{"0.0.0.0:8787", 8787, false},
		{"localhoſt:8787", 8787, false}, // U+017F folds to 's' in Unicode
		{"", 8787, false},
		{":8787", 8787, false},
		{"127.0.0.1:0", 0, false},
		{"127.0.0.1:-1", -1, false},
		{"127.0.0.1:65536", 65536, false},
	}
	for _, tt := range tests {
		if got := HostAllowed(tt.host, tt.port); got != tt.want {
			t.Errorf("HostAllowed(%q, %d) = %v, want %v", tt.host, tt.port, got, tt.want)
		}
	}
}

func newRequest(t *testing.T, method, host string, hdr map[string][]string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, "http://127.0.0.1:8787/", nil)
	r.Host = host
	for k, vs := range hdr {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	return r
}

func TestCheckUpgrade(t *testing.T) {
	const allowed = "https://www.stitchslop.com"
	tests := []struct {
		name   string
		host   string
		hdr    map[string][]string
		status int
		reason string
	}{
		{"ok", "127.0.0.1:8787", map[string][]string{"Origin": {allowed}}, 0, ""},
		{"ok localhost", "localhost:8787", map[string][]string{"Origin": {allowed + "/"}}, 0, ""},
		{"wrong origin", "127.0.0.1:8787", map[string][]string{"Origin": {"https://evil.test"}}, 403, ReasonOrigin},
		{"no origin", "127.0.0.1:8787", nil, 403, ReasonOrigin},
		{"null origin", "127.0.0.1:8787", map[string][]string{"Origin": {"null"}}, 403, ReasonOrigin},
		{"two origins", "127.0.0.1:8787", map[string][]string{"Origin": {allowed, "https://evil.test"}}, 403, ReasonMultiOrigin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRequest(t, "GET", tt.host, tt.hdr)
			var asked []string
			admit := func(site string) bool { asked = append(asked, site); return site == allowed }
			site, status, reason := CheckUpgrade(r, admit)
			if status != tt.status || reason != tt.reason {
				t.Errorf("CheckUpgrade(Host %q, %v) = %d, %q; want %d, %q", tt.host, tt.hdr, status, reason, tt.status, tt.reason)
			}
			if (status == 0) != (site == allowed) {
				t.Errorf("CheckUpgrade gave site %q with status %d", site, status)
			}
			for _, a := range asked {
				if a == "" || a == "null" { // T3: never put to admit
					t.Errorf("admit was asked about %q", a)
				}
			}
		})
	}
}

func TestAllowedSite(t *testing.T) {
	const launch = "https://staging.example.com"
	tests := []struct {
		site string
		want bool
	}{
		{launch, true},
		{"https://www.stitchslop.com", true},
		{"https://stitchslop.com", true},
		{"http://localhost", true},
		{"http://localhost:5173", true},
		{"https://127.0.0.1:8443", true},
		{"http://[::1]:3000", true},
		{"http://www.stitchslop.com", false}, // not the production scheme
		{"https://evil.stitchslop.com", false},
		{"https://stitchslop.com.evil.test", false},
		{"http://localhost.evil.test", false},
		{"http://127.0.0.2", false},
		{"http://localhost:3000/path", false},
		{"ws://localhost:3000", false},
		{"null", false},
		{"", false},
		{"https://other.example.com", false},
	}
	for _, tt := range tests {
		if got := AllowedSite(tt.site, launch); got != tt.want {
			t.Errorf("AllowedSite(%q, %q) = %v, want %v", tt.site, launch, got, tt.want)
		}
	}
}

func TestCheckControl(t *testing.T) {
	tests := []struct {
		name   string
		host   string
		hdr    map[string][]string
		status int
		reason string
	}{
		{"shell", "127.0.0.1:8787", map[string][]string{"X-Stitchslop-Key": {"k"}}, 0, ""},
		{"ipv6", "[::1]:8787", nil, 0, ""},
		{"any origin", "127.0.0.1:8787", map[string][]string{"Origin": {"https://www.stitchslop.com"}}, 403, ReasonBrowser},
		{"empty origin", "127.0.0.1:8787", map[string][]string{"Origin": {""}}, 403, ReasonBrowser},
		{"null origin", "127.0.0.1:8787", map[string][]string{"Origin": {"null"}}, 403, ReasonBrowser},
		{"lower-case header", "127.0.0.1:8787", map[string][]string{"origin": {"x"}}, 403, ReasonBrowser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRequest(t, "POST", tt.host, tt.hdr)
			status, reason := CheckControl(r)
			if status != tt.status || reason != tt.reason {
				t.Errorf("CheckControl(Host %q, %v) = %d, %q; want %d, %q", tt.host, tt.hdr, status, reason, tt.status, tt.reason)
			}
		})
	}
}

// TestCheckControlFromWire sends real requests through net/http, so header
// canonicalisation is the server's own, not the test's.
func TestCheckControlFromWire(t *testing.T) {
	var status int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, _ = CheckControl(r)
	}))
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		origin string
		want   int
	}{{"", 0}, {"https://evil.test", 403}} {
		req, err := http.NewRequest("GET", srv.URL+"/status", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "localhost:8787"
		if tt.origin != "" {
			req.Header["origin"] = []string{tt.origin} // sent lower-case
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if status != tt.want {
			t.Errorf("CheckControl(origin %q) status = %d, want %d", tt.origin, status, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://x.test", "https://x.test"},
		{"a\nforged: line", "a\nforged: line"},
		{strings.Repeat("a", 200), strings.Repeat("a", 128) + "…"},
	}
	for _, tt := range tests {
		if got := Clip(tt.in); got != tt.want {
			t.Errorf("Clip(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPasted(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://localhost:9999/.", "http://localhost:9999"},
		{"  https://WWW.StitchSlop.com/ ,", "https://www.stitchslop.com"},
		{"http://127.0.0.1:3000;", "http://127.0.0.1:3000"},
		{"https://stitchslop.com/./", "https://stitchslop.com"},
		{"https://stitchslop.com", "https://stitchslop.com"},
		{" . ", ""},
	} {
		if got := Pasted(tt.in); got != tt.want {
			t.Errorf("Pasted(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
