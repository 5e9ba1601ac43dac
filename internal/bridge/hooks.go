package bridge

import (
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// testHooks is set to "on" only by the black-box tests' build
// (-ldflags -X .../internal/bridge.testHooks=on). Release builds leave it
// empty, so they ignore TestTimingsEnv entirely and have no user-visible
// knob for the heartbeat or idle clocks.
var testHooks string

// TestTimingsEnv shortens clocks in a testHooks build:
// "ping=50ms,dead=400ms,stale=300ms,idle=1s,call=500ms,auth=300ms,squat=100ms".
const TestTimingsEnv = "STITCHSLOP_TEST_TIMINGS"

func timings(log *slog.Logger, idle time.Duration) Timings {
	t := DefaultTimings
	t.Idle = idle
	if testHooks != "on" {
		return t
	}
	spec := os.Getenv(TestTimingsEnv)
	if spec == "" {
		return t
	}
	fields := map[string]*time.Duration{
		"ping": &t.Page.Ping, "dead": &t.Page.Dead, "stale": &t.Page.Stale,
		"auth": &t.Page.Auth, "idle": &t.Idle, "call": &t.Call, "squat": &t.Squat,
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		d, err := time.ParseDuration(v)
		p, ok := fields[k]
		if !ok || err != nil || d <= 0 {
			log.Warn("ignored a bad test timing", "entry", kv)
			continue
		}
		*p = d
	}
	return t
}

// TestPortsEnv, in a testHooks build, replaces DefaultPorts with the
// test's own list, "9401,9402,9403,9404": the tests of the port scan (no
// --port) then bind ports they chose, never the real 8787-8790, which a
// bridge on the machine may hold. Release builds ignore it.
const TestPortsEnv = "STITCHSLOP_TEST_PORTS"

// TestHook is the variable env of a testHooks build's environment, and ""
// in a release build, whatever the environment holds: the one door through
// which the black-box tests set what a user cannot (TestPortsEnv).
func TestHook(env string) string {
	if testHooks != "on" {
		return ""
	}
	return os.Getenv(env)
}

func init() {
	spec := TestHook(TestPortsEnv)
	if spec == "" {
		return
	}
	var ports []int
	for _, f := range strings.Split(spec, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p < 1 || p > 65535 {
			return // a broken spec keeps the real ports, and the test sees them
		}
		ports = append(ports, p)
	}
	DefaultPorts = ports
}
