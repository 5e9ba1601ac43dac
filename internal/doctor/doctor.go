// Package doctor is the library behind `stitchslop doctor`: it walks
// protocol.md §5 ("When the tab does not attach") on this machine and says,
// for each thing it finds wrong, what fixes it: the config directory's and
// secret files' modes (THREAT_MODEL.md T10), stale session files (§4.1),
// what holds each port the tab tries (§2.1), including another user's
// squatter, each live bridge's /status, and the paired sites.
//
// Doctor only reads: it repairs no mode (on Windows, reading a session file
// tightens a loose ACL, as a verb's read does: readSessions), prunes no
// session file, and sends a session key only to the process its session
// file names. No secret
// reaches a Finding, and text from a file or a bridge is cut and quoted
// when it is not plain printable text (untrusted).
package doctor

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/bridge"
	"github.com/stitchslop/stitchslop-bridge/internal/paths"
	"github.com/stitchslop/stitchslop-bridge/internal/session"
	"github.com/stitchslop/stitchslop-bridge/internal/setup"
	"github.com/stitchslop/stitchslop-bridge/internal/ui"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/origin"
	"github.com/stitchslop/stitchslop-bridge/security/peercred"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

// DefaultTimeout bounds one probe (a connect, a GET /status) when
// Options.Timeout is 0. It is internal/client's ConnectTimeout: a bridge
// answers /status from memory, so one that takes longer is frozen, and a
// person waiting on doctor should hear about it within seconds.
const DefaultTimeout = 2 * time.Second

// NeverTriedAfter is how long a bridge may run with nothing dialling it
// before doctor warns: a tab with the switch on dials a new bridge within
// seconds, so a minute of silence means no tab is trying (§5).
const NeverTriedAfter = time.Minute

// Severities, from least to most serious. Report.Healthy is false as soon
// as one finding is a Warning or a Problem.
const (
	OK      = "ok"      // checked, and as it should be
	Info    = "info"    // worth knowing, nothing to fix
	Warning = "warning" // likely why the tab does not attach; has a Fix
	Problem = "problem" // unsafe or broken; has a Fix
)

// Options says what to examine.
type Options struct {
	ConfigDir string        // the config dir the CLI resolved (--config-dir or the default); "": the default
	Ports     []int         // the ports the tab tries; nil: bridge.DefaultPorts (8787-8790)
	Timeout   time.Duration // per probe; 0: DefaultTimeout
	// Bridge says which stitchslop-bridge binary doctor speaks for: the
	// one beside stitchslop, which setup registers (nil: this binary).
	Bridge func(wait time.Duration) version.Identity
	// Tool, when set, is the identity of the program doctor runs in
	// (stitchslop), reported beside the bridge's.
	Tool *version.Identity
}

// Finding is one thing doctor found.
type Finding struct {
	Check    string `json:"check"`             // stable id: config_dir, file_mode, session_file, port, squatter, bridge, refusals, never_tried, pairing, binary (this binary, or a bridge running another)
	Severity string `json:"severity"`          // OK, Info, Warning or Problem
	Subject  string `json:"subject,omitempty"` // what it is about: "127.0.0.1:8788", a path, a site
	Message  string `json:"message"`
	Fix      string `json:"fix,omitempty"` // what to do about it, for a Warning or a Problem
}

// Report is what Run found, in the order it looked.
type Report struct {
	Healthy  bool      `json:"healthy"`
	Findings []Finding `json:"findings"`
	// Bridge is which binary doctor is (docs/protocol.md §7.18): the one a
	// client configured with this path would run.
	Bridge version.Identity `json:"bridge"`
}

// Test hooks, swapped in t.Cleanup: the OS lookups and the clock.
var (
	listenerOwner = peercred.ListenerOwner
	squatters     = peercred.Squatters
	holdsPort     = peercred.HoldsPort
	alive         = session.Alive
	now           = time.Now
	self          = version.Self // which binary doctor is
	goRun         = goRunBinary  // doctor is a binary go run built
)

// goRunBinary reports whether this doctor is a go run build, which no
// bridge was started from, so another binary running a bridge is no news.
func goRunBinary() bool {
	exe, err := os.Executable()
	return err == nil && setup.GoRunBinary(exe)
}

// Run examines this machine and returns what it found. It never fails:
// whatever it cannot examine becomes a finding saying so.
func Run(ctx context.Context, o Options) Report {
	if o.ConfigDir == "" {
		dir, err := paths.DefaultConfigDir()
		if err != nil {
			return Report{Findings: []Finding{{Check: "config_dir", Severity: Problem, Message: err.Error(),
				Fix: "set HOME to your home directory, or pass --config-dir DIR"}}}
		}
		o.ConfigDir = dir
	}
	if o.Ports == nil {
		o.Ports = bridge.DefaultPorts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	version.StartHash() // while the checks run
	d := &doctor{o: o}
	dirOK := d.checkDir()
	readable := func(string) bool { return false }
	if dirOK {
		readable = d.checkFiles()
	}
	sessions := d.readSessions(readable)
	for _, p := range d.ports(sessions) {
		d.checkPort(ctx, p, sessions[p])
	}
	if dirOK {
		d.checkPairing(readable(paths.Pairing(o.ConfigDir)))
	}
	id := d.bridgeID(time.Minute)
	d.add(identityFinding(id))
	if o.Tool != nil {
		d.add(identityFinding(*o.Tool))
	}
	return Report{Healthy: healthy(d.found), Findings: d.found, Bridge: id}
}

// identityFinding says which binary this is, for the text report.
func identityFinding(id version.Identity) Finding {
	if id.Version == "" { // it could not be asked
		return Finding{Check: "binary", Severity: Info, Message: id.Name + ": " + id.SHA256Error}
	}
	msg := fmt.Sprintf("%s %s %s/%s", id.Name, id.Version, id.OS, id.Arch)
	if id.Commit != "" {
		msg += " commit " + id.Commit
	}
	if id.SHA256 != "" {
		msg += ", sha256 " + id.SHA256 + " (stitchslop-verify --installed says which release that is)"
	} else {
		msg += ", sha256 unknown: " + id.SHA256Error
	}
	return Finding{Check: "binary", Severity: Info, Message: msg}
}

// doctor collects findings for one Run.
type doctor struct {
	o         Options
	found     []Finding
	squatters map[string]bool // "[::1]:8788": reported
}

func (d *doctor) add(f Finding) { d.found = append(d.found, f) }

// bridgeID is the identity of the bridge binary doctor speaks for.
func (d *doctor) bridgeID(wait time.Duration) version.Identity {
	if d.o.Bridge != nil {
		return d.o.Bridge(wait)
	}
	return self(wait)
}

func healthy(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Warning || f.Severity == Problem {
			return false
		}
	}
	return true
}

// ports is the ports to examine: Options.Ports, then any other port a
// session file names (a bridge started with --port), in order.
func (d *doctor) ports(sessions map[int]*sessionInfo) []int {
	out := slices.Clone(d.o.Ports)
	var extra []int
	for p := range sessions {
		if !slices.Contains(out, p) {
			extra = append(extra, p)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// WriteText writes the report for a person, one line per finding and one
// hint line per fix, in the house format (internal/ui), ending with a
// summary line.
func (r Report) WriteText(w io.Writer) error {
	h := ui.NewLogger(w).Handler()
	line := func(level slog.Level, msg string) error {
		return h.Handle(context.Background(), slog.NewRecord(time.Time{}, level, msg, 0))
	}
	counts := map[string]int{}
	for _, f := range r.Findings {
		counts[f.Severity]++
		level := slog.LevelInfo
		switch f.Severity {
		case Warning:
			level = slog.LevelWarn
		case Problem:
			level = slog.LevelError
		}
		msg := f.Message
		if f.Subject != "" {
			msg = f.Subject + ": " + msg
		}
		if err := line(level, msg); err != nil {
			return err
		}
		if f.Fix != "" {
			if err := line(ui.LevelHint, f.Fix); err != nil {
				return err
			}
		}
	}
	summary := "doctor: nothing wrong found"
	if !r.Healthy {
		var parts []string
		if n := counts[Problem]; n > 0 {
			parts = append(parts, plural(n, "problem"))
		}
		if n := counts[Warning]; n > 0 {
			parts = append(parts, plural(n, "warning"))
		}
		summary = "doctor: " + strings.Join(parts, " and ") + "; each is followed by its fix"
	}
	return line(slog.LevelInfo, summary)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// maxMessage bounds a message a bridge sent (a refusal's fix) as it is
// shown: the bridge's own are one or two sentences.
const maxMessage = 300

// untrusted renders text from a file or a bridge: clipped, and quoted
// unless plain, as internal/ui quotes an attribute.
func untrusted(s string) string {
	return quoteUnlessPlain(origin.Clip(s), false)
}

// untrustedText is untrusted for a sentence a bridge sent: a longer bound,
// and spaces and quotes allowed unquoted (its own messages quote the
// origins in them); only text that is not printable gets quoted.
func untrustedText(s string) string {
	if len(s) > maxMessage {
		s = strings.ToValidUTF8(s[:maxMessage], "") + "…"
	}
	return quoteUnlessPlain(s, true)
}

func quoteUnlessPlain(s string, sentence bool) string {
	if s != "" && !unprintable.Any(s) && (sentence || !strings.ContainsAny(s, " \"\\")) {
		return s
	}
	return unprintable.Quote(s)
}

// addr is how a port is named in a finding.
func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// whoHolds is the command that names what listens on port, for a fix.
func whoHolds(port int) string {
	if isWindows {
		return fmt.Sprintf("`netstat -ano | findstr :%d` names its pid", port)
	}
	return fmt.Sprintf("`lsof -nP -iTCP:%d -sTCP:LISTEN` names its pid", port)
}

var isWindows = os.PathSeparator == '\\'
