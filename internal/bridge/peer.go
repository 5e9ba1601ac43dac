package bridge

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/hub"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
)

// Other users' sockets (THREAT_MODEL T10). Who may connect is decided by
// peercred.Listen; here is where the bridge listens and what it says of
// squatters: another user's listeners on the ports the tab dials, which
// offers its secret to each in order.

// SquatCheckEvery is how often a serving bridge looks again for squatters;
// it bounds how long one that arrives goes unreported.
const SquatCheckEvery = 10 * time.Second

// findSquatters is peercred.Squatters; a test hook.
var findSquatters = peercred.Squatters

// squatError is a port held by another user's listener.
type squatError struct{ error }

func (e *squatError) Unwrap() error { return e.error }

func squatHint(port int) string {
	return "stop that process, or ask whoever runs it to; `lsof -nP -iTCP:" + strconv.Itoa(port) +
		" -sTCP:LISTEN` (as root) names it; `stitchslop doctor` reports it while it stays"
}

// listen binds 127.0.0.1 on the first port of ports that is free and
// that no other user shares. Another user's listener on 127.0.0.1 stops it
// with a squatError: the tab dials that port first and would send its
// secret there. A port another user shares on [::1] is skipped. ours names
// a busy port one of this user's bridges holds.
func listen(ports []int, ours map[int]session.File, log *slog.Logger) (ln net.Listener, port int, skipped []peercred.Squatter, err error) {
	if len(ports) == 0 {
		ports = DefaultPorts
	}
	var busy []string
	for _, p := range ports {
		ln, err := peercred.Listen(net.JoinHostPort("127.0.0.1", strconv.Itoa(p)), log)
		// After the bind, so our own listener is there to be left out; an
		// error (no way to tell) finds nothing, as where it is unsupported.
		sq, _ := findSquatters(p)
		if err != nil {
			for _, s := range sq {
				if s.Receives127() {
					return nil, 0, skipped, &squatError{fmt.Errorf("port %d on %s is held by a listener of another user (%s): the Stitch Slop tab dials %d first and would send its secret there",
						p, s.Addr, s.Owner, p)}
				}
			}
			why := bindReason(err).Error()
			if f, ok := ours[p]; ok {
				why = fmt.Sprintf("held by your bridge for %q, pid %d", f.Origin, f.PID)
			}
			if len(ports) == 1 {
				return nil, 0, skipped, fmt.Errorf("cannot listen on 127.0.0.1:%d: %s", p, why)
			}
			busy = append(busy, fmt.Sprintf("%d (%s)", p, why))
			continue
		}
		if len(sq) > 0 {
			ln.Close()
			skipped = append(skipped, sq...)
			if len(ports) == 1 {
				return nil, 0, skipped, &squatError{fmt.Errorf("port %d is shared: a listener of another user holds %s, where a client that dials localhost:%d may land instead of the bridge, so the bridge does not listen there",
					p, sq[0], p)}
			}
			busy = append(busy, fmt.Sprintf("%d (shared with another user's listener on %s)", p, sq[0]))
			continue
		}
		return ln, p, skipped, nil
	}
	err = fmt.Errorf("none of ports %s on 127.0.0.1 is free: %s", portList(ports, ", "), strings.Join(busy, ", "))
	if len(skipped) > 0 {
		err = &squatError{err}
	}
	return nil, 0, skipped, err
}

// portList writes ports as a range when they run up one by one
// (8787-8790), else each joined by sep; lsof -iTCP: takes both.
func portList(ports []int, sep string) string {
	run := len(ports) > 2
	for i := 1; run && i < len(ports); i++ {
		run = ports[i] == ports[i-1]+1
	}
	if run {
		return strconv.Itoa(ports[0]) + "-" + strconv.Itoa(ports[len(ports)-1])
	}
	words := make([]string, len(ports))
	for i, p := range ports {
		words[i] = strconv.Itoa(p)
	}
	return strings.Join(words, sep)
}

// ownBridges are this user's live bridges by port, from dir's session files.
func ownBridges(dir string) map[int]session.File {
	live, _, _ := session.List(dir)
	ours := make(map[int]session.File, len(live))
	for _, f := range live {
		ours[f.File.Port] = f.File
	}
	return ours
}

// busyHint is the fix for ports none of which the bridge could listen on:
// for the ones a bridge of this user holds (ours), that bridge; for the
// others, the lsof line that names their holder, for the ports asked for.
func busyHint(ports []int, ours map[int]session.File, squat bool) string {
	if len(ports) == 0 {
		ports = DefaultPorts
	}
	lsof := func(ports []int) string {
		them := "them"
		if len(ports) == 1 {
			them = "it"
		}
		return "`lsof -nP -iTCP:" + portList(ports, ",") + " -sTCP:LISTEN` names what holds " + them
	}
	if squat {
		return "stop that process, or ask whoever runs it to; " + lsof(ports) + " (as root). Then start the bridge again"
	}
	var mine []string
	var others []int
	for _, p := range ports {
		if f, ok := ours[p]; ok {
			mine = append(mine, fmt.Sprintf("port %d (pid %d)", p, f.PID))
		} else {
			others = append(others, p)
		}
	}
	if len(mine) == 0 {
		return lsof(ports) + "; or give other ports with --port"
	}
	hint := "your bridge on " + strings.Join(mine, " and ") + " is running: drive it with the shell verbs (--port picks one), or stop it first"
	if len(others) > 0 {
		hint += "; " + lsof(others)
	}
	return hint
}

// bindReason is the OS's reason without the "listen tcp …" preamble.
func bindReason(err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}

// squats is what the bridge knows of squatters: what it last found and
// told, and what it tells the agent.
type squats struct {
	mu     sync.Mutex
	known  []peercred.Squatter // as last reported
	failed bool                // a look failed, and that was said once
}

// scanList is the ports the tab dials: the bridge's list (nil: the
// default four), and the port it holds when that is not in it (a port
// taken over from a leader that went away).
func scanList(ports []int, bound int) []int {
	if len(ports) == 0 {
		ports = DefaultPorts
	}
	out := slices.Clone(ports)
	if !slices.Contains(out, bound) {
		out = append(out, bound)
	}
	return out
}

// lookForSquatters reports each new or gone squatter on stderr and
// publishes the list; false when the system cannot tell at all.
func (b *bridge) lookForSquatters(scan []int, bound int) bool {
	var found []peercred.Squatter
	for _, p := range scan {
		sq, err := findSquatters(p)
		if errors.Is(err, peercred.ErrUnsupported) {
			return false
		}
		if errors.Is(err, peercred.ErrNoOwners) {
			// It will not name one later either: say so once, and stop.
			b.log.Warn("cannot look for other users' listeners: " + err.Error() + "; a squatter goes unreported")
			return false
		}
		if err != nil {
			b.squats.mu.Lock()
			if !b.squats.failed {
				b.squats.failed = true
				b.log.Warn(fmt.Sprintf("cannot look for other users' listeners on port %d: %v; a squatter there goes unreported", p, err))
			}
			b.squats.mu.Unlock()
			continue
		}
		found = append(found, sq...)
	}
	b.squats.mu.Lock()
	arrived, gone := minus(found, b.squats.known), minus(b.squats.known, found)
	b.squats.known = found
	// Published before it is said, so whoever reads the line finds it in
	// GET /status too.
	b.publishLocked()
	b.squats.mu.Unlock()
	for _, s := range arrived {
		b.log.Warn(squatMessage(s, bound))
		ui.Hint(b.log, squatHint(s.Port))
	}
	for _, s := range gone {
		b.log.Info(fmt.Sprintf("the listener of another user on %s is gone", s))
	}
	return true
}

// seedSquatters records squatters already reported (the ports listen
// skipped), so that the first look does not report them again.
func (b *bridge) seedSquatters(skipped []peercred.Squatter, bound int) {
	b.squats.mu.Lock()
	fresh := minus(skipped, b.squats.known)
	b.squats.known = append(b.squats.known, fresh...)
	b.publishLocked()
	b.squats.mu.Unlock()
	for _, s := range fresh {
		b.log.Warn(fmt.Sprintf("port %d is shared with a listener of another user on %s, so the bridge listens on %d instead: a client that dials localhost:%d may land on it",
			s.Port, s, bound, s.Port))
		ui.Hint(b.log, squatHint(s.Port))
	}
}

func minus(a, b []peercred.Squatter) []peercred.Squatter {
	var out []peercred.Squatter
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// squatMessage says what a squatter found while the bridge holds bound
// can do.
func squatMessage(s peercred.Squatter, bound int) string {
	if s.Port == bound {
		return fmt.Sprintf("a listener of another user shares this bridge's port %d, on %s: a client that dials localhost:%d may land on it instead of the bridge", s.Port, s, s.Port)
	}
	return fmt.Sprintf("port %d on %s is held by a listener of another user (%s): a Stitch Slop tab that dials it (refused busy here, or before it finds this bridge) would offer it its secret",
		s.Port, s.Addr, s.Owner)
}

func (b *bridge) watchSquatters(scan []int, bound int, stop <-chan struct{}) {
	if b.t.Squat <= 0 {
		return
	}
	t := time.NewTicker(b.t.Squat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if !b.lookForSquatters(scan, bound) {
				return
			}
		}
	}
}

// publishLocked puts the squatters and the notice in the hub.
func (b *bridge) publishLocked() {
	list := make([]hub.Squatter, 0, len(b.squats.known))
	var where []string
	for _, s := range b.squats.known {
		h := hub.Squatter{Address: s.Addr.String(), Port: s.Port}
		if s.Owner.UID >= 0 {
			uid := s.Owner.UID
			h.UID = &uid
		}
		list = append(list, h)
		where = append(where, netip.AddrPortFrom(s.Addr, uint16(s.Port)).String())
	}
	notice := b.sites.SwitchNotice()
	if len(where) > 0 {
		notice += " Warning: a program of another user on this machine listens on " + strings.Join(where, ", ") +
			", where the Stitch Slop tab or a client of this bridge may connect, and could be offered the tab's secret. Tell the user; `stitchslop doctor` names it."
	}
	b.hub.SetPeers(list, notice)
}

// publish is publishLocked for a caller that does not hold b.squats.mu
// (the served site changed).
func (b *bridge) publish() {
	b.squats.mu.Lock()
	defer b.squats.mu.Unlock()
	b.publishLocked()
}
