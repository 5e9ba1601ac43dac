//go:build stitchslop_testhooks

package bridge

// The black-box tests' seams, compiled only into a build with the
// stitchslop_testhooks tag (the e2e harness sets it; a release build never
// does, and hooks_release.go stands in): there the tests set through the
// environment what a user cannot. A release build has none of this code.

import (
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// testTimingsEnv shortens clocks:
// "ping=50ms,dead=400ms,stale=300ms,idle=1s,call=500ms,auth=300ms,squat=100ms".
const testTimingsEnv = "STITCHSLOP_TEST_TIMINGS"

// testPortsEnv replaces DefaultPorts with the test's own list,
// "9401,9402,9403,9404": the tests of the port scan (no --port) then bind
// ports they chose, never the real 8787-8790, which a bridge on the machine
// may hold.
const testPortsEnv = "STITCHSLOP_TEST_PORTS"

func testTimings(log *slog.Logger, t *Timings) {
	spec := os.Getenv(testTimingsEnv)
	if spec == "" {
		return
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
}

func init() {
	spec := os.Getenv(testPortsEnv)
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
