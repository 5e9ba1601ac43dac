//go:build unix

package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestSoak is the opt-in soak of issue 13, run by scripts/soak and never
// in CI: it is skipped unless STITCHSLOP_SOAK holds a duration. For that
// long one bridge takes mixed traffic: MCP tool calls on its stdio, shell
// verbs (status, call) through the control plane, and its tab
// reconnecting every 15 s. Every 10 s its goroutines, descriptors and RSS
// are written to STITCHSLOP_SOAK_OUT (default soak.csv, in the e2e
// directory). At the end goroutines and descriptors must be back within a
// few of the first sample, and RSS within rssGrowthKB of the highest of
// the first minute: flat, not growing.
func TestSoak(t *testing.T) {
	spec := os.Getenv("STITCHSLOP_SOAK")
	if spec == "" {
		t.Skip("opt-in: STITCHSLOP_SOAK=10m (scripts/soak)")
	}
	d, err := time.ParseDuration(spec)
	if err != nil || d <= 0 {
		t.Fatalf("STITCHSLOP_SOAK=%q: want a duration such as 10m", spec)
	}
	out := os.Getenv("STITCHSLOP_SOAK_OUT")
	if out == "" {
		out = "soak.csv"
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, "elapsed_s,goroutines,fds,rss_kb,mcp_calls,shell_calls,reconnects")

	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok, mcp: true})
	b.rpc.initialize()
	p, hello := connectPage(t, b, map[string]any{"token": tok})
	secret := hello.str("pairingSecret")
	b.awaitConnected(true)

	start := time.Now()
	var samples []figures
	var firstMinuteMaxRSS int
	mcpCalls, shellCalls, reconnects := 0, 0, 0
	nextSample, nextReconnect := start, start.Add(15*time.Second)
	for time.Since(start) < d {
		if time.Now().After(nextReconnect) {
			p.conn.Close()
			<-p.gone
			b.awaitConnected(false)
			p, _ = connectPage(t, b, map[string]any{"secret": secret})
			b.awaitConnected(true)
			reconnects++
			nextReconnect = time.Now().Add(15 * time.Second)
		}
		if r := b.rpc.toolCall("scene.describe", map[string]any{"n": mcpCalls}); r.IsError {
			t.Fatalf("MCP call %d: %s", mcpCalls, r.text())
		}
		mcpCalls++
		if r := b.cli("call", "scene.describe", "{}"); r.code != 0 {
			t.Fatalf("shell call %d: exit %d, %s %s", shellCalls, r.code, r.stdout, r.stderr)
		}
		if r := b.cli("status"); r.code != 0 {
			t.Fatalf("shell status: exit %d, %s", r.code, r.stderr)
		}
		shellCalls += 2
		if time.Now().After(nextSample) {
			fg := b.figures()
			samples = append(samples, fg)
			el := time.Since(start)
			if el < time.Minute {
				firstMinuteMaxRSS = max(firstMinuteMaxRSS, fg.rssKB)
			}
			fmt.Fprintf(f, "%.0f,%d,%d,%d,%d,%d,%d\n", el.Seconds(), fg.goroutines, fg.fds, fg.rssKB, mcpCalls, shellCalls, reconnects)
			nextSample = time.Now().Add(10 * time.Second)
		}
	}
	last := b.awaitBaseline(samples[0], 4)
	fmt.Fprintf(f, "%.0f,%d,%d,%d,%d,%d,%d\n", time.Since(start).Seconds(), last.goroutines, last.fds, last.rssKB, mcpCalls, shellCalls, reconnects)
	t.Logf("soak %v: %d MCP calls, %d shell verbs, %d reconnects; first sample %v, last %v; figures in %s", d, mcpCalls, shellCalls, reconnects, samples[0], last, out)
	if !raceEnabled && last.rssKB > firstMinuteMaxRSS+rssGrowthKB {
		t.Errorf("RSS at the end %d KB, highest in the first minute %d KB: want growth under %d KB", last.rssKB, firstMinuteMaxRSS, rssGrowthKB)
	}
}
