package origin

import (
	"cmp"
	"net/http"
	"net/netip"
)

// DefaultCSP forbids a browser everything with an answer: no script, no
// frame, no fetch of anything it names.
const DefaultCSP = "default-src 'none'; frame-ancestors 'none'"

// Guard is the front of every HTTP server: before any handler, it sets the
// headers that keep a browser from using an answer (T1, T4) and refuses a
// request whose Host does not name this server (T2).
type Guard struct {
	Port int
	// CSP is the answers' Content-Security-Policy; "" is DefaultCSP.
	CSP string
	// Literal redirects localhost and [::1] to 127.0.0.1, so what it
	// serves has one origin.
	Literal bool
	// Refuse answers a request refused for its Host, after the headers
	// are set; nil answers 403 with ReasonHost as text.
	Refuse func(w http.ResponseWriter, r *http.Request)
	Next   http.Handler
}

func (g Guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", cmp.Or(g.CSP, DefaultCSP))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	switch literal, ok := loopbackHost(r.Host, g.Port); {
	case !ok && g.Refuse != nil:
		g.Refuse(w, r)
	case !ok:
		http.Error(w, ReasonHost, http.StatusForbidden)
	case g.Literal && !literal:
		http.Redirect(w, r, "http://"+netip.AddrPortFrom(ipv4Loopback, uint16(g.Port)).String()+r.URL.Path, http.StatusTemporaryRedirect)
	default:
		g.Next.ServeHTTP(w, r)
	}
}
