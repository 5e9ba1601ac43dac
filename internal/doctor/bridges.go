package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/attempts"
	"github.com/stitchslop/stitchslop-bridge/internal/client"
	"github.com/stitchslop/stitchslop-bridge/internal/envelope"
	"github.com/stitchslop/stitchslop-bridge/internal/pairing"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/setup"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
)

// sessionInfo is a session file that parsed.
type sessionInfo struct {
	path string
	file session.File
}

// readSessions reads the session files of the config dir, by port, through
// their one reader (session.Read), those only that readable says it may
// read without changing them (checkFiles reported the others; on Windows,
// where it judges no ACL, the read tightens a loose one, as a verb's does).
// A file that cannot be used is reported and left out.
func (d *doctor) readSessions(readable func(path string) bool) map[int]*sessionInfo {
	out := map[int]*sessionInfo{}
	found, _ := filepath.Glob(filepath.Join(d.o.ConfigDir, "session-*.json"))
	for _, p := range found {
		port, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "session-"), ".json"))
		if err != nil || !readable(p) {
			continue // not a session file's name, or a file_mode finding
		}
		f, err := session.Read(p)
		var why string
		var ie *session.InvalidError
		switch {
		case errors.As(err, &ie):
			why = ie.Why
		case err != nil:
			why = err.Error()
		case f.Port != port:
			why = fmt.Sprintf("it names port %d, not %d", f.Port, port)
		}
		if why != "" {
			d.add(Finding{Check: "session_file", Severity: Warning, Subject: p,
				Message: "is not a usable session file (" + why + "); stitchslop-bridge verbs ignore it",
				Fix:     "remove it: rm " + setup.QuotePosix(p) + " (a bridge writes a new one when it starts)"})
			continue
		}
		out[port] = &sessionInfo{path: p, file: f}
	}
	return out
}

// checkPort says what holds port: first the bridge its session file names,
// if that is live; otherwise whatever listens there.
func (d *doctor) checkPort(ctx context.Context, port int, s *sessionInfo) {
	if s != nil && d.checkBridge(ctx, port, s) {
		d.checkShared(port)
		return
	}
	d.classify(ctx, port)
}

// checkShared reports another user's listener beside a bridge of ours on
// port: on [::1] (or ::) while the bridge holds 127.0.0.1, where a client
// that dials localhost may land. A lookup that cannot answer adds nothing:
// the bridge itself said so when it started.
func (d *doctor) checkShared(port int) {
	sq, err := squatters(port)
	if err != nil {
		return
	}
	for _, s := range sq {
		uid := &s.Owner.UID
		if s.Owner.UID < 0 {
			uid = nil
		}
		d.squatter(s.Addr.String(), port, uid, s.Owner.String())
	}
}

// squatter reports a listener of another user on a port the tab dials,
// once per address and port, whether doctor found it or a bridge's
// GET /status did (a port of its --port list that doctor was not asked
// about).
func (d *doctor) squatter(address string, port int, uid *int, owner string) {
	where := net.JoinHostPort(address, strconv.Itoa(port))
	if d.squatters[where] {
		return
	}
	if d.squatters == nil {
		d.squatters = map[string]bool{}
	}
	d.squatters[where] = true
	if owner == "" {
		owner = "owner unknown"
		if uid != nil {
			owner = "uid " + strconv.Itoa(*uid)
		}
	}
	d.add(Finding{Check: "squatter", Severity: Problem, Subject: where,
		Message: fmt.Sprintf("a listener of another user (%s) on a port the Stitch Slop tab or a client of the bridge dials: it could be offered the tab's pairing secret (THREAT_MODEL T10)", owner),
		Fix:     "stop it, or have its owner or an administrator stop it; as root, " + whoHolds(port)})
}

// checkBridge examines the bridge a session file names. It reports
// whether that bridge accounts for the port.
func (d *doctor) checkBridge(ctx context.Context, port int, s *sessionInfo) bool {
	f := s.file
	site := untrusted(f.Origin)
	if !alive(f.PID) {
		d.add(Finding{Check: "session_file", Severity: Warning, Subject: s.path,
			Message: fmt.Sprintf("stale: its bridge (pid %d, site %s) is gone", f.PID, site),
			Fix:     "nothing needed: the next stitchslop-bridge status, call or wait removes it; or remove it now: rm " + setup.QuotePosix(s.path)})
		return false
	}
	held, err := holdsPort(f.PID, port)
	unsupported := errors.Is(err, peercred.ErrUnsupported)
	if !unsupported && (err != nil || !held) {
		d.add(Finding{Check: "session_file", Severity: Warning, Subject: s.path,
			Message: fmt.Sprintf("stale: pid %d is running but does not hold port %d (its bridge is gone and the pid was reused, or another process took the port); stitchslop-bridge verbs refuse it and send it no key", f.PID, port),
			Fix:     "remove it: rm " + setup.QuotePosix(s.path)})
		return false
	}
	st, err := d.status(ctx, f)
	if err != nil {
		msg, fix := err.Error(), "check the bridge's stderr; if it stays like this, stop pid "+strconv.Itoa(f.PID)+" and start the bridge again"
		var ce *client.Error
		if errors.As(err, &ce) && ce.Hint != "" {
			fix = ce.Hint
		}
		if unsupported {
			// Nothing proved pid holds the port: the file may be stale.
			d.add(Finding{Check: "session_file", Severity: Warning, Subject: s.path,
				Message: fmt.Sprintf("pid %d is running, but the bridge its session file names (site %s) cannot be reached: %s", f.PID, site, msg),
				Fix:     fix + "; if that bridge is gone, remove the file: rm " + setup.QuotePosix(s.path)})
			return false
		}
		d.add(Finding{Check: "bridge", Severity: Warning, Subject: addr(port),
			Message: fmt.Sprintf("held by the bridge for %s (pid %d), which did not answer GET /status: %s", site, f.PID, msg), Fix: fix})
		return true
	}
	d.reportBridge(port, f, st)
	return true
}

// bridgeStatus is the part of GET /status (protocol.md §4.2, and
// internal/control's Status) doctor reads.
type bridgeStatus struct {
	Connected bool   `json:"connected"`
	Origin    string `json:"origin"`
	PID       int    `json:"pid"`
	// Squatters are the other users' listeners the bridge found on the
	// ports its tab dials.
	Squatters []struct {
		Address string `json:"address"`
		Port    int    `json:"port"`
		UID     *int   `json:"uid"`
	} `json:"squatters"`
	attempts.Snapshot
	// Bridge is which binary it runs (docs/protocol.md §7.18).
	Bridge struct {
		Version string `json:"version"`
		SHA256  string `json:"sha256"`
	} `json:"bridge"`
}

// status asks the bridge f names for its status, with f's key, through
// internal/client, which sends the key only to the process f names.
func (d *doctor) status(ctx context.Context, f session.File) (bridgeStatus, error) {
	var st bridgeStatus
	b, err := client.New(f).Do(ctx, client.Request{Method: http.MethodGet, Path: "/status", Timeout: d.o.Timeout})
	if err != nil {
		return st, err
	}
	if err := envelope.Into(b, &st); err != nil { // the bridge's door
		return st, errors.New("its answer is " + err.Error())
	}
	return st, nil
}

// reportBridge reports a live bridge: what it serves, what it refused, and
// whether anything ever dialled it.
func (d *doctor) reportBridge(port int, f session.File, st bridgeStatus) {
	site := f.Origin
	if st.Origin != "" {
		site = st.Origin
	}
	site = untrusted(site)
	tab := "no tab attached"
	if st.Connected {
		tab = "a tab is attached"
	} else if st.Attempts > 0 {
		tab += fmt.Sprintf(" (%s, the last at %s)", plural(st.Attempts, "dial"), untrusted(st.LastAttemptAt))
	}
	d.add(Finding{Check: "port", Severity: OK, Subject: addr(port),
		Message: fmt.Sprintf("a bridge of this config dir, for %s, pid %d, started %s; %s", site, f.PID, untrusted(f.StartedAt), tab)})
	if me := d.bridgeID(time.Minute); st.Bridge.SHA256 != "" && me.SHA256 != "" && st.Bridge.SHA256 != me.SHA256 && !goRun() {
		// Worth knowing after an upgrade: that bridge still runs the
		// binary it was started from. Its words are the bridge's own.
		d.add(Finding{Check: "binary", Severity: Info, Subject: addr(port),
			Message: fmt.Sprintf("this bridge runs another binary than this doctor: version %s, sha256 %s (this one: %s, sha256 %s)",
				untrusted(st.Bridge.Version), untrusted(st.Bridge.SHA256), me.Version, me.SHA256),
			Fix: "if you upgraded stitchslop-bridge, restart the agent session (or the bridge) so the new binary serves the tab"})
	}
	for _, sq := range st.Squatters {
		if a, err := netip.ParseAddr(sq.Address); err == nil && sq.Port > 0 && sq.Port <= 65535 {
			d.squatter(a.String(), sq.Port, sq.UID, "")
		}
	}
	for _, r := range st.Refusals {
		d.add(Finding{Check: "refusals", Severity: Warning, Subject: addr(port),
			Message: fmt.Sprintf("refused a tab from %s %s (%s), the last at %s", untrusted(r.Origin), times(r.Count), untrusted(r.Reason), untrusted(r.LastAt)),
			Fix:     untrustedText(r.Message)})
	}
	if n := st.RefusedElsewhere; n > 0 {
		d.add(Finding{Check: "refusals", Severity: Warning, Subject: addr(port),
			Message: fmt.Sprintf("refused %s from sites that are not allowed; the bridge keeps no record of which, since any web page can cause these", plural(n, "tab")),
			Fix:     "nothing, if your Stitch Slop tab is on the site this bridge serves; if it is on another site, start the bridge with --origin set to that site"})
	}
	if st.Connected || st.Attempts > 0 {
		return
	}
	started, err := time.Parse("2006-01-02T15:04:05.000Z", f.StartedAt)
	up := now().Sub(started)
	if err != nil || up >= NeverTriedAfter {
		d.add(Finding{Check: "never_tried", Severity: Warning, Subject: addr(port),
			Message: "nothing has dialled this bridge since it started: the browser never tried, so there was nothing to refuse (protocol.md §5: an empty log means the browser never tried)",
			Fix:     "in the Stitch Slop tab for " + site + ", turn on Allow agent connections; if it is on, open the browser's console: a Content-Security-Policy violation naming connect-src ws://127.0.0.1 means the site blocks the bridge, which only the site can fix"})
		return
	}
	d.add(Finding{Check: "never_tried", Severity: Info, Subject: addr(port),
		Message: fmt.Sprintf("nothing has dialled this bridge yet; it started %s ago, and a tab with Allow agent connections on dials within seconds", up.Round(time.Second))})
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

// classify says what holds a port that no live session file accounts for.
func (d *doctor) classify(ctx context.Context, port int) {
	owner, found, err := listenerOwner(port)
	switch {
	case err == nil && found && !owner.Mine:
		d.add(Finding{Check: "port", Severity: Problem, Subject: addr(port),
			Message: fmt.Sprintf("held by another user's process (%s): the Stitch Slop tab dials this port in its scan and would offer that process its pairing secret, and a bridge refuses to start behind it (THREAT_MODEL T10)", owner),
			Fix:     "stop it, or have its owner or an administrator stop it; as root, " + whoHolds(port)})
		return
	case err == nil && !found:
		d.add(Finding{Check: "port", Severity: OK, Subject: addr(port), Message: "free"})
		return
	}
	var unknown string
	if err != nil && !errors.Is(err, peercred.ErrUnsupported) {
		unknown = " (its owner could not be told: " + err.Error() + ")"
	}
	switch d.probe(ctx, port) {
	case probeFree:
		d.add(Finding{Check: "port", Severity: OK, Subject: addr(port), Message: "free"})
	case probeBridge:
		d.add(Finding{Check: "port", Severity: Warning, Subject: addr(port),
			Message: "held by a Stitch Slop bridge that no session file in " + d.o.ConfigDir + " describes (one started with another --config-dir, or another bridge program)" + unknown + "; the tab may attach to it instead of yours",
			Fix:     "if no agent of yours uses it, stop it: " + whoHolds(port)})
	default:
		d.add(Finding{Check: "port", Severity: Warning, Subject: addr(port),
			Message: "held by a program that is not a Stitch Slop bridge" + unknown + "; the tab skips it, but no bridge can use this port",
			Fix:     whoHolds(port) + "; stop it if it is yours and not needed, else the tab and the bridge use the other ports"})
	}
}

type probeResult int

const (
	probeFree probeResult = iota
	probeBridge
	probeOther
)

// maxProbeBody bounds what is read of a probe's answer: only its status
// is used, and reading a little lets the listener finish writing it.
const maxProbeBody = 4 << 10

// probe asks whatever listens on port for GET / with no key. A Stitch Slop
// bridge answers anything that is not one of its routes with 426 (protocol.md
// §4.2), its own control plane and the reference bridge alike. Nothing
// secret is sent.
func (d *doctor) probe(ctx context.Context, port int) probeResult {
	ctx, cancel := context.WithTimeout(ctx, d.o.Timeout)
	defer cancel()
	hc := &http.Client{
		Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr(port)+"/", nil)
	if err != nil {
		return probeOther
	}
	resp, err := hc.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" && !op.Timeout() {
			return probeFree // refused: nothing listens
		}
		return probeOther // it took the connection but does not speak HTTP like a bridge
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxProbeBody))
	if resp.StatusCode == http.StatusUpgradeRequired {
		return probeBridge
	}
	return probeOther
}

// checkPairing lists the paired sites, by origin only, through
// internal/pairing (which never hands out a secret through PairedOrigins).
// A pairing.json whose mode is loose is not read: the read would repair it.
func (d *doctor) checkPairing(readable bool) {
	store := pairing.New(d.o.ConfigDir, slog.New(slog.DiscardHandler))
	if !readable {
		d.add(Finding{Check: "pairing", Severity: Info, Subject: store.Path(),
			Message: "paired sites not listed: fix the file's mode first (reading it would change it)"})
		return
	}
	sites, err := store.PairedOrigins()
	switch {
	case errors.Is(err, pairing.ErrCorrupt):
		d.add(Finding{Check: "pairing", Severity: Warning, Subject: store.Path(),
			Message: "does not parse; the next bridge sets it aside under a new name and starts with no pairing",
			Fix:     "start the bridge with a fresh token from the Stitch Slop agent panel (STITCHSLOP_TOKEN) to pair again"})
		return
	case err != nil:
		d.add(Finding{Check: "pairing", Severity: Warning, Subject: store.Path(),
			Message: "cannot be read: " + err.Error(), Fix: "check the file's owner and mode (above)"})
		return
	case len(sites) == 0:
		d.add(Finding{Check: "pairing", Severity: Info, Subject: store.Path(),
			Message: "no site is paired yet: the first connection needs a token from the Stitch Slop agent panel (STITCHSLOP_TOKEN)"})
		return
	}
	for _, s := range sites {
		d.add(Finding{Check: "pairing", Severity: OK, Subject: untrusted(s), Message: "paired"})
	}
}
