// Command bench measures the stitchslop-bridge binary as a whole process,
// the way its users meet it: an MCP client on its stdio, a page on its
// loopback WebSocket, a shell running its `call` verb. It builds the binary
// (no -race), runs it under a temp HOME and --config-dir seeded with a
// pairing for https://www.stitchslop.com, on a free loopback port, and plays
// both the MCP client and the page. It prints a Markdown table on stdout.
//
// Run it from the module root:
//
//	go run ./scripts/bench                  # full run, about 15 s
//	go run ./scripts/bench -short           # tiny counts, 1 MiB image only (CI)
//	go run ./scripts/bench -rounds 5 -json bench.json
//	go run ./scripts/bench -bin ./stitchslop-bridge   # measure a given binary
//	go run ./scripts/bench -ref "node stitchslop-bridge.mjs"  # and another bridge beside it
//	go run ./scripts/bench -rounds 3 -bin NEW -pre OLD -ref "node stitchslop-bridge.mjs"  # issue 34's run
//
// The figures:
//   - relay round trip p50 / p99: one tools/call at a time, from just before
//     the request line is written to the bridge's stdin to the moment its
//     response line has been read whole from stdout. In between, the bridge
//     sends the page a command frame and the page answers
//     {"id":N,"ok":true,"echo":<args>}. The arguments carry a 200-byte pad.
//   - minimal relay: the same figures for scripts/bench/internal/minrelay,
//     built into the temp dir: the cheapest Go program that makes the
//     bridge's moves. It takes the page's socket with no handshake (the
//     page sends it no secret and no tool list), and for a tools/call its
//     stdin reader writes the command frame itself and its socket reader
//     writes the response line to a buffered stdout; it checks nothing. The
//     same MCP client and page drive it in the same round, after the
//     bridge. Beside it is bridge ÷ minimal relay: on a machine with few
//     CPUs this is the steadier measure of the bridge's own cost, since the
//     floor's legs swing with where the scheduler puts their processes.
//   - floor: the same bytes moved the same way with no bridge in between.
//     WebSocket: an in-process gorilla server (the bridge's place) sends the
//     bridge's command frame to a gorilla client (the page's place, same
//     dialer as the page), which answers with a frame the size of the
//     page's reply. Pipe: the request line goes to a child process's stdin
//     and a line the size of the bridge's response comes back on its stdout.
//     The child is a tiny Go program (scripts/bench/internal/echo) built into
//     the temp dir. The floor is the sum of the two: the cheapest relay
//     possible on this machine. Beside it are the bridge's excess over the
//     floor (its own cost) and bridge ÷ floor.
//   - sequential calls/s: the timed sequential calls divided by their wall
//     time; its floor is the same count over the time the floor's timed
//     round trips took, both legs one after the other. Concurrent calls/s:
//     64 callers each with one call in flight (so 64 in flight, ids
//     distinct, responses matched by id), calls divided by wall time; its
//     floor runs each leg on its own with 64 round trips outstanding and
//     divides the calls by the sum of the two wall times.
//   - CPU per call and context switches per call: the process's utime +
//     stime (/proc/PID/stat, in clock ticks of `getconf CLK_TCK`, else 100
//     a second) and its voluntary + nonvoluntary context switches, read just
//     before and just after the timed sequential calls, divided by their
//     count, and the same over the concurrent calls. The switches are
//     summed over /proc/PID/task/*/status, since /proc/PID/status counts
//     only the main thread's. With 100 ticks a second and 2000 calls, CPU
//     per call moves in steps of 5 µs (1.25 µs over 8000 concurrent ones).
//   - image reply N MiB: the page answers with a data URL holding N MiB of
//     random bytes in base64 (4/3 as many characters). The time runs from
//     just before the request is written to the response line read whole.
//     Each response is checked to hold an image block whose data has the
//     sent base64's length and SHA-256. The floor is the same shapes as
//     above: the bridge's small command frame out and a reply frame of the
//     page's size back, and the request line in and a line of the
//     response's size out. Each size runs in a fresh bridge process, so
//     peak RSS (VmHWM of /proc/PID/status, a high-water mark) is that
//     size's. Then, against the bridge alone, the shell's `call image '{}'
//     --out FILE --overwrite` for the same reply: its wall time and its own
//     peak RSS (ru_maxrss, read by scripts/bench/internal/maxrss), each the median of the same count of runs, FILE
//     checked to hold the image.
//   - start to listening line: from just before exec to the bridge's
//     "listening on 127.0.0.1:PORT" line on stderr. Start to first TCP
//     connect: from the same moment to the first successful connect of a
//     loop that dials every 100 µs.
//   - idle RSS: VmRSS after start, the page attached, ten calls and 1 s idle.
//   - shell call: wall time of `stitchslop-bridge --config-dir DIR --port P
//     call echo '{}'` as a child process against the running bridge with the
//     page attached, median of several runs; exit code 0 is required.
//   - with -ref COMMAND: every figure above but the floors, for another
//     bridge started as COMMAND --origin O --port P --config-dir DIR in the
//     same rounds (the Stitch Slop team's bridge, stitchslop-bridge.mjs
//     from their Claude Code plugin, run with node, is the one issue 27's
//     targets are ratios to), in a second table with the bridge's ratio to
//     it and the minimal relay's. The ratios are taken in each round, then
//     their median reported.
//   - with -pre PATH: every figure but the floors for another build of this
//     bridge (issue 34 compares with 7b0eac2, the commit before the door,
//     built the same way), in the same rounds, and the bridge's ratio to it
//     in each round.
//   - issue 34's targets: a last table sets the figures issue 34 states
//     targets for side by side (bridge, -pre build, -ref bridge, minimal
//     relay, floor), then each target as the median of its per-round ratio,
//     whether it holds, and the earlier build's own figure for it; n/a where
//     a run lacks what a target compares with (-short has no 8 MiB image).
//
// Durations are medians over the timed iterations unless marked p99; with
// -rounds R the whole suite runs R times and every figure is the median of
// its R values. Nothing is asserted about timings: a figure is a
// measurement, not a test. -json FILE writes every round's figures too.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// plan is how much of everything one round does.
type plan struct {
	short      bool
	n          int // timed sequential calls; also timed floor round trips
	warm       int // untimed calls before them
	concurrent int // calls in the concurrent run
	inFlight   int // callers in the concurrent run
	idleCalls  int // calls before the idle RSS is read
	shellRuns  int
	imageReps  int // image round trips per size
	imageMiB   []int
	padBytes   int
}

func newPlan(short bool, n int) plan {
	p := plan{n: 2000, inFlight: 64, idleCalls: 10, shellRuns: 20, imageReps: 5, imageMiB: []int{1, 8, 32}, padBytes: 200}
	if short {
		p.short, p.n, p.shellRuns, p.imageReps, p.imageMiB = true, 50, 3, 1, []int{1}
	}
	if n > 0 {
		p.n = n
	}
	p.warm = max(p.n/10, 10)
	p.concurrent = max(4*p.n/p.inFlight, 1) * p.inFlight
	return p
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	short := fs.Bool("short", false, "tiny iteration counts and the 1 MiB image only, so CI can run it in seconds")
	n := fs.Int("n", 0, "timed sequential calls and floor round trips (default 2000, 50 with -short); the concurrent run makes 4n calls")
	rounds := fs.Int("rounds", 1, "run the whole suite this many times and report the median of each figure")
	bin := fs.String("bin", "", "measure this binary instead of building ./cmd/stitchslop-bridge")
	jsonPath := fs.String("json", "", "also write every round's figures to this file as JSON")
	ref := fs.String("ref", "", "also measure this bridge command in every round, words split at spaces (e.g. \"node /path/to/stitchslop-bridge.mjs\"), and compare")
	pre := fs.String("pre", "", "also measure this earlier build of the bridge in every round (issue 34: the commit before the door), and compare")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *n < 0 || *rounds < 1 {
		return errors.New("usage: bench [-short] [-n N] [-rounds R] [-bin PATH] [-pre PATH] [-ref COMMAND] [-json FILE]")
	}
	p := newPlan(*short, *n)

	tmp, err := os.MkdirTemp("", "stitchslop-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	e := &env{tmp: tmp, home: filepath.Join(tmp, "home"), secret: newSecret(), ref: strings.Fields(*ref)}
	if err := os.Mkdir(e.home, 0o700); err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	e.echoBin = filepath.Join(tmp, "echo")
	if err := goBuild(root, e.echoBin, "./scripts/bench/internal/echo"); err != nil {
		return err
	}
	e.maxRSSBin = filepath.Join(tmp, "maxrss")
	if err := goBuild(root, e.maxRSSBin, "./scripts/bench/internal/maxrss"); err != nil {
		return err
	}
	e.minRelayBin = filepath.Join(tmp, "minrelay")
	if err := goBuild(root, e.minRelayBin, "./scripts/bench/internal/minrelay"); err != nil {
		return err
	}
	if *pre != "" {
		if e.pre, err = filepath.Abs(*pre); err != nil {
			return err
		}
	}
	e.bin = *bin
	if e.bin == "" {
		e.bin = filepath.Join(tmp, "stitchslop-bridge")
		fmt.Fprintln(stderr, "bench: building ./cmd/stitchslop-bridge")
		if err := goBuild(root, e.bin, "./cmd/stitchslop-bridge"); err != nil {
			return err
		}
	} else if e.bin, err = filepath.Abs(e.bin); err != nil {
		return err
	}

	var all []figures
	for r := range *rounds {
		fmt.Fprintf(stderr, "bench: round %d of %d\n", r+1, *rounds)
		f, err := runRound(e, p, stderr)
		if err != nil {
			return fmt.Errorf("round %d: %w", r+1, err)
		}
		all = append(all, f)
	}
	med := medianOfRounds(all)
	binLabel := *bin
	if binLabel == "" {
		binLabel = "built from ./cmd/stitchslop-bridge"
	}
	writeTable(stdout, p, *rounds, binLabel, med)
	if len(e.ref) > 0 {
		writeRefTable(stdout, p, *ref, med)
	}
	writeMustHold(stdout, *pre, *ref, med)
	if *jsonPath != "" {
		return writeJSON(*jsonPath, p, binLabel, *pre, *ref, all, med)
	}
	return nil
}

// moduleRoot is the directory of the go.mod that `go` sees from here.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the stitchslop-bridge module: run from its root")
	}
	return filepath.Dir(gomod), nil
}

func goBuild(root, out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build -o %s %s: %v\n%s", out, pkg, err, msg)
	}
	return nil
}

// runRound runs the whole suite once.
func runRound(e *env, p plan, log io.Writer) (figures, error) {
	f := figures{}
	fmt.Fprintln(log, "bench: relay, start, idle RSS, shell call")
	if err := relayRound(e, p, f); err != nil {
		return nil, err
	}
	for _, s := range e.subjects()[1:] {
		fmt.Fprintf(log, "bench: the %s's relay, start, idle RSS, shell call\n", s.name)
		if _, _, err := subjectRound(e, s, p, f); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	for _, mib := range p.imageMiB {
		fmt.Fprintf(log, "bench: image reply %d MiB\n", mib)
		if err := imageRound(e, p, mib, f); err != nil {
			return nil, fmt.Errorf("image %d MiB: %w", mib, err)
		}
	}
	// The bridge's ratio to the reference bridge, and to the earlier build,
	// in this round, of every figure both have; the minimal relay's and the
	// earlier build's to the reference too.
	ratios := figures{}
	for k, r := range f {
		if r == 0 {
			continue
		}
		if k, ok := strings.CutPrefix(k, "ref_"); ok {
			for _, of := range []string{k, "min_" + k, "pre_" + k} {
				if v, ok := f[of]; ok {
					ratios[of+"_vs_ref_x"] = v / r
				}
			}
		}
		if k, ok := strings.CutPrefix(k, "pre_"); ok {
			if v, ok := f[k]; ok {
				ratios[k+"_vs_pre_x"] = v / r
			}
		}
	}
	for k, key := range relayKeys {
		if v, ok := f["pre_"+key]; ok && f["min_"+key] > 0 {
			ratios["pre_"+k+"_vs_min_x"] = v / f["min_"+key]
		}
	}
	maps.Copy(f, ratios)
	return f, nil
}

// attached is a running bridge s with an initialized MCP client and an
// answering page.
func attached(e *env, s subject, image []byte) (*bridge, *page, startTimes, error) {
	b, st, err := startBridge(e, s)
	if err != nil {
		return nil, nil, st, err
	}
	if err := b.mcpHandshake(); err != nil {
		b.kill()
		return nil, nil, st, err
	}
	pg, err := attachPage(b.port, e.secret, image)
	if err != nil {
		b.kill()
		return nil, nil, st, err
	}
	if err := b.awaitTool("echo"); err != nil {
		pg.close()
		b.kill()
		return nil, nil, st, err
	}
	return b, pg, st, nil
}

// relayRound measures start-up, idle RSS, the relay, throughput, CPU and
// the shell call on one bridge, then the same relay figures on the minimal
// relay, then the floors of the relay.
func relayRound(e *env, p plan, f figures) error {
	lastReply, reqFrame, err := subjectRound(e, e.subjects()[0], p, f)
	if err != nil {
		return err
	}
	params := echoParams(p)
	if err := minRelayRound(e, p, f); err != nil {
		return fmt.Errorf("minimal relay: %w", err)
	}
	for _, k := range []string{"relay_p50", "relay_p99", "seq_calls", "conc_calls", "cpu", "switches", "conc_cpu"} {
		key := relayKeys[k]
		if v, ok := f[key]; ok && f["min_"+key] > 0 {
			f[k+"_vs_min_x"] = v / f["min_"+key]
		}
	}

	// The floors of the relay: the frame the bridge sent, answered with one
	// of the page's reply size; the request line, answered with one of the
	// response line's size.
	var sent struct {
		ID   json.RawMessage `json:"id"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(reqFrame, &sent); err != nil {
		return fmt.Errorf("the page saw no command frame: %v", err)
	}
	reply := echoReply(sent.ID, sent.Args)
	line := requestLine(int64(p.n), "tools/call", params)
	ws, err := wsFloor(reqFrame, reply, p.warm, p.n, time.Minute)
	if err != nil {
		return fmt.Errorf("WebSocket floor: %w", err)
	}
	pipe, err := pipeFloor(e.echoBin, line, len(lastReply.line), p.warm, p.n, time.Minute)
	if err != nil {
		return fmt.Errorf("pipe floor: %w", err)
	}
	for _, q := range []struct {
		name string
		pct  float64
	}{{"p50", 50}, {"p99", 99}} {
		w, pi := percentile(ws, q.pct), percentile(pipe, q.pct)
		floor := w + pi
		f["ws_floor_"+q.name+"_us"] = w
		f["pipe_floor_"+q.name+"_us"] = pi
		f["relay_floor_"+q.name+"_us"] = floor
		f["relay_over_"+q.name+"_us"] = f["relay_"+q.name+"_us"] - floor
		f["relay_ratio_"+q.name+"_x"] = f["relay_"+q.name+"_us"] / floor
	}
	// Throughput floors: the calls over the time the two legs took one
	// after the other.
	var legs time.Duration
	for _, d := range append(ws, pipe...) {
		legs += d
	}
	f["seq_floor_calls_per_s"] = float64(p.n) / legs.Seconds()
	f["seq_ratio_x"] = f["seq_calls_per_s"] / f["seq_floor_calls_per_s"]
	wsWall, err := wsFloorConc(reqFrame, reply, p.warm, p.inFlight, p.concurrent, time.Minute)
	if err != nil {
		return fmt.Errorf("concurrent WebSocket floor: %w", err)
	}
	pipeWall, err := pipeFloorConc(e.echoBin, line, len(lastReply.line), p.warm, p.inFlight, p.concurrent, time.Minute)
	if err != nil {
		return fmt.Errorf("concurrent pipe floor: %w", err)
	}
	f["conc_floor_calls_per_s"] = float64(p.concurrent) / (wsWall + pipeWall).Seconds()
	f["conc_ratio_x"] = f["conc_calls_per_s"] / f["conc_floor_calls_per_s"]
	return nil
}

// subjectRound measures start-up, idle RSS, the relay, throughput, CPU and
// the shell call of s, and sets them under s.prefix. It returns the last
// response of the relay and the last command frame the page saw.
func subjectRound(e *env, s subject, p plan, f figures) (rpcReply, []byte, error) {
	b, pg, st, err := attached(e, s, nil)
	if err != nil {
		return rpcReply{}, nil, err
	}
	defer b.kill()
	defer pg.close()
	f[s.prefix+"start_listening_line_us"] = us(st.listeningLine)
	f[s.prefix+"start_tcp_connect_us"] = us(st.tcpConnect)

	params := echoParams(p)
	for range p.idleCalls {
		if _, _, err := echoCall(b, params); err != nil {
			return rpcReply{}, nil, err
		}
	}
	time.Sleep(time.Second)
	if rss, err := procStatusMiB(b.pid(), "VmRSS"); err == nil {
		f[s.prefix+"idle_rss_MiB"] = rss
	}

	lastReply, err := relayFigures(b, p, s.prefix, f)
	if err != nil {
		return rpcReply{}, nil, err
	}
	reqFrame := pg.lastRequest()

	var shell []time.Duration
	for range p.shellRuns {
		d, _, err := b.shellCall(false, "echo", "{}")
		if err != nil {
			return rpcReply{}, nil, err
		}
		shell = append(shell, d)
	}
	f[s.prefix+"shell_call_us"] = median(shell)

	pg.close()
	return lastReply, reqFrame, b.stop()
}

// relayKeys names the figures relayFigures sets, by short name; the
// minimal relay's carry the prefix "min_".
var relayKeys = map[string]string{
	"relay_p50": "relay_p50_us", "relay_p99": "relay_p99_us",
	"seq_calls": "seq_calls_per_s", "conc_calls": "conc_calls_per_s",
	"cpu": "cpu_per_call_us", "switches": "switches_per_call",
	"conc_cpu": "conc_cpu_per_call_us",
}

// minRelayRound runs the minimal relay with the same MCP client and page as
// the bridge, and sets its relay figures under the prefix "min_".
func minRelayRound(e *env, p plan, f figures) error {
	b, err := startMinRelay(e)
	if err != nil {
		return err
	}
	defer b.kill()
	if err := b.mcpHandshake(); err != nil {
		return err
	}
	pg, err := attachBarePage(b.port)
	if err != nil {
		return err
	}
	defer pg.close()
	if _, err := relayFigures(b, p, "min_", f); err != nil {
		return err
	}
	pg.close()
	return b.stop()
}

// echoParams are the params of the relay's tools/call: echo, with a pad of
// p.padBytes.
func echoParams(p plan) map[string]any {
	pad := strings.Repeat("0123456789", p.padBytes/10+1)[:p.padBytes]
	return map[string]any{"name": "echo", "arguments": map[string]any{"pad": pad}}
}

// echoCall makes one tools/call with params and checks that its response is
// a result with content and isError false.
func echoCall(b *bridge, params map[string]any) (rpcReply, time.Duration, error) {
	r, d, err := b.rpc.roundTrip("tools/call", params, guard)
	if err == nil {
		_, err = parseToolResult(r.line)
	}
	return r, d, err
}

// relayFigures makes the warm-up calls, the timed sequential calls (reading
// the process's CPU time and context switches just before and just after
// them) and the concurrent calls, and sets the relay figures of relayKeys
// with prefix. It returns the last sequential response.
func relayFigures(b *bridge, p plan, prefix string, f figures) (rpcReply, error) {
	params := echoParams(p)
	call := func() (rpcReply, time.Duration, error) { return echoCall(b, params) }
	for range p.warm {
		if _, _, err := call(); err != nil {
			return rpcReply{}, err
		}
	}
	times := make([]time.Duration, 0, p.n)
	var lastReply rpcReply
	before, usageErr := procUsage(b.pid())
	start := time.Now()
	for range p.n {
		r, d, err := call()
		if err != nil {
			return rpcReply{}, err
		}
		times = append(times, d)
		lastReply = r
	}
	elapsed := time.Since(start)
	after, err := procUsage(b.pid())
	if usageErr == nil && err == nil {
		f[prefix+"cpu_per_call_us"] = (after.ticks - before.ticks) / clockTicks() * 1e6 / float64(p.n)
		f[prefix+"switches_per_call"] = (after.switches - before.switches) / float64(p.n)
	}
	f[prefix+"seq_calls_per_s"] = float64(p.n) / elapsed.Seconds()
	f[prefix+"relay_p50_us"] = percentile(times, 50)
	f[prefix+"relay_p99_us"] = percentile(times, 99)

	before, usageErr = procUsage(b.pid())
	rate, err := concurrentCalls(p, call)
	if err != nil {
		return rpcReply{}, err
	}
	after, err = procUsage(b.pid())
	if usageErr == nil && err == nil {
		f[prefix+"conc_cpu_per_call_us"] = (after.ticks - before.ticks) / clockTicks() * 1e6 / float64(p.concurrent)
	}
	f[prefix+"conc_calls_per_s"] = rate
	return lastReply, nil
}

// concurrentCalls runs p.concurrent calls from p.inFlight callers at once
// and returns calls per second.
func concurrentCalls(p plan, call func() (rpcReply, time.Duration, error)) (float64, error) {
	per := p.concurrent / p.inFlight
	errs := make(chan error, p.inFlight)
	var wg sync.WaitGroup
	start := time.Now()
	for range p.inFlight {
		wg.Go(func() {
			for range per {
				if _, _, err := call(); err != nil {
					errs <- fmt.Errorf("concurrent calls: %w", err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(per*p.inFlight) / elapsed.Seconds(), nil
}

// imageRound measures image replies of mib MiB in a fresh bridge, then
// their floors.
func imageRound(e *env, p plan, mib int, f figures) error {
	raw := make([]byte, mib<<20)
	rand.NewChaCha8([32]byte{byte(mib)}).Read(raw)
	copy(raw, "\x89PNG\r\n\x1a\n") // a PNG's signature: the bridge makes an image block only of what is one
	b64 := []byte(base64.StdEncoding.EncodeToString(raw))
	want := sha256.Sum256(b64)

	params := map[string]any{"name": "image", "arguments": map[string]any{}}
	key := fmt.Sprintf("image_%dMiB", mib)
	var lineLen int
	var reqFrame []byte
	for i, s := range e.subjects() {
		b, pg, _, err := attached(e, s, b64)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		var times []time.Duration
		for range p.imageReps {
			r, d, err := b.rpc.roundTrip("tools/call", params, imageGuard)
			if err == nil {
				err = checkImage(r.line, len(b64), want)
			}
			if err != nil {
				pg.close()
				b.kill()
				return fmt.Errorf("%s: %w", s.name, err)
			}
			times = append(times, d)
			if i == 0 {
				lineLen = len(r.line)
			}
		}
		f[s.prefix+key+"_us"] = median(times)
		if hwm, err := procStatusMiB(b.pid(), "VmHWM"); err == nil {
			f[s.prefix+key+"_peak_rss_MiB"] = hwm
		}
		if i == 0 {
			if err := outRound(b, p, raw, key, f); err != nil {
				pg.close()
				b.kill()
				return fmt.Errorf("call --out: %w", err)
			}
		}
		if i == 0 {
			reqFrame = pg.lastRequest()
		}
		pg.close()
		if err := b.stop(); err != nil {
			return err
		}
	}

	var sent struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(reqFrame, &sent); err != nil {
		return fmt.Errorf("the page saw no command frame: %v", err)
	}
	reply := imageReply(sent.ID, b64)
	ws, err := wsFloor(reqFrame, reply, 1, p.imageReps, 2*time.Minute)
	if err != nil {
		return fmt.Errorf("WebSocket floor: %w", err)
	}
	pipe, err := pipeFloor(e.echoBin, requestLine(1, "tools/call", params), lineLen, 1, p.imageReps, 2*time.Minute)
	if err != nil {
		return fmt.Errorf("pipe floor: %w", err)
	}
	t, w, pi := f[key+"_us"], median(ws), median(pipe)
	f[key+"_ws_floor_us"] = w
	f[key+"_pipe_floor_us"] = pi
	f[key+"_floor_us"] = w + pi
	f[key+"_over_us"] = t - (w + pi)
	if v, ok := f["pre_"+key+"_us"]; ok {
		f["pre_"+key+"_over_us"] = v - (w + pi)
	}
	f[key+"_ratio_x"] = t / (w + pi)
	f[key+"_frame_bytes"] = float64(len(reply))
	f[key+"_line_bytes"] = float64(lineLen)
	return nil
}

// outRound measures the shell's `call image '{}' --out FILE --overwrite`
// against bridge b, whose page answers with raw as an image: the verb's
// wall time and its own peak RSS, each the median of imageReps runs, and
// FILE checked to hold raw.
func outRound(b *bridge, p plan, raw []byte, key string, f figures) error {
	file := filepath.Join(b.configDir, "out.png")
	var times []time.Duration
	var rss []float64
	for range p.imageReps {
		d, mib, err := b.shellCall(true, "image", "{}", "--out", file, "--overwrite")
		if err != nil {
			return err
		}
		if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, raw) {
			return fmt.Errorf("%s holds %d bytes (%v), want the %d-byte image", file, len(got), err, len(raw))
		}
		times, rss = append(times, d), append(rss, mib)
	}
	slices.Sort(rss)
	f[key+"_out_us"] = median(times)
	f[key+"_out_rss_MiB"] = rss[len(rss)/2]
	return nil
}

// checkImage checks that a tools/call response holds an image block whose
// data is the sent base64: same length, same SHA-256.
func checkImage(line []byte, wantLen int, want [32]byte) error {
	res, err := parseToolResult(line)
	if err != nil {
		return err
	}
	for _, c := range res.Content {
		if c.Type != "image" {
			continue
		}
		if len(c.Data) != wantLen || sha256.Sum256([]byte(c.Data)) != want {
			return fmt.Errorf("image block: got %d bytes of data, want the %d sent", len(c.Data), wantLen)
		}
		if c.MIMEType != "image/png" {
			return fmt.Errorf("image block: got mimeType %q, want image/png", c.MIMEType)
		}
		return nil
	}
	return errors.New("tools/call result has no image block")
}

// ---------------------------------------------------------------------------
// Output.

// Row labels; bench_test.go checks each appears.
const (
	rowRelayP50   = "relay round trip p50"
	rowRelayP99   = "relay round trip p99"
	rowSeq        = "sequential calls/s"
	rowConc       = "concurrent calls/s, 64 in flight"
	rowCPU        = "CPU per call, sequential"
	rowConcCPU    = "CPU per call, 64 in flight"
	rowSwitches   = "context switches per call, sequential"
	rowImage      = "image reply %d MiB"
	rowImageRSS   = "peak RSS, %d MiB image"
	rowOut        = "shell `call --out`, %d MiB image"
	rowOutRSS     = "peak RSS of that shell call, %d MiB"
	rowStartLine  = "start to listening line"
	rowStartTCP   = "start to first TCP connect"
	rowIdleRSS    = "idle RSS"
	rowShellCall  = "shell `call echo '{}'`"
	noFloor       = "—"
	notAvailable  = "n/a"
	tableHeader   = "| figure | bridge | minimal relay | floor (WebSocket + pipe) | bridge − floor | bridge ÷ floor | bridge ÷ minimal relay | notes |"
	tableDivision = "|---|--:|--:|--:|--:|--:|--:|---|"
)

func writeTable(w io.Writer, p plan, rounds int, binLabel string, f figures) {
	mode := "full"
	if p.short {
		mode = "-short"
	}
	fmt.Fprintf(w, "## stitchslop-bridge bench\n\n")
	fmt.Fprintf(w, "Binary: %s. %s, %s/%s, %d CPUs. Mode %s, n=%d, %d round(s)",
		binLabel, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), mode, p.n, rounds)
	if rounds > 1 {
		fmt.Fprintf(w, ", every figure the median of the rounds")
	}
	fmt.Fprintf(w, ".\n\n%s\n%s\n", tableHeader, tableDivision)
	row := func(cells ...string) { fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | ")) }
	rate := func(key string) string { return num(f, key, "%.0f /s") }
	// bridgeOnly is a row of a figure only the bridge has.
	bridgeOnly := func(label, value, notes string) {
		row(label, value, noFloor, noFloor, noFloor, noFloor, noFloor, notes)
	}

	for _, q := range []struct{ label, name string }{{rowRelayP50, "p50"}, {rowRelayP99, "p99"}} {
		row(q.label, dur(f, "relay_"+q.name+"_us"), dur(f, "min_relay_"+q.name+"_us"),
			floorCell(f, "relay_floor_"+q.name+"_us", "ws_floor_"+q.name+"_us", "pipe_floor_"+q.name+"_us"),
			dur(f, "relay_over_"+q.name+"_us"), ratio(f, "relay_ratio_"+q.name+"_x"), ratio(f, "relay_"+q.name+"_vs_min_x"),
			fmt.Sprintf("sequential tools/call, %d B pad, %d timed", p.padBytes, p.n))
	}
	row(rowSeq, rate("seq_calls_per_s"), rate("min_seq_calls_per_s"), rate("seq_floor_calls_per_s"), noFloor,
		ratio(f, "seq_ratio_x"), ratio(f, "seq_calls_vs_min_x"),
		fmt.Sprintf("%d calls one after another; floor: %d over the two legs' round trips, one after the other", p.n, p.n))
	row(rowConc, rate("conc_calls_per_s"), rate("min_conc_calls_per_s"), rate("conc_floor_calls_per_s"), noFloor,
		ratio(f, "conc_ratio_x"), ratio(f, "conc_calls_vs_min_x"),
		fmt.Sprintf("%d calls from %d callers; floor: each leg alone with %d in flight, %d over the sum of their wall times",
			p.concurrent, p.inFlight, p.inFlight, p.concurrent))
	row(rowCPU, dur(f, "cpu_per_call_us"), dur(f, "min_cpu_per_call_us"), noFloor, noFloor, noFloor, ratio(f, "cpu_vs_min_x"),
		fmt.Sprintf("utime+stime of /proc/PID/stat over the %d timed calls, ÷ calls; %.0f ticks/s", p.n, clockTicks()))
	row(rowConcCPU, dur(f, "conc_cpu_per_call_us"), dur(f, "min_conc_cpu_per_call_us"), noFloor, noFloor, noFloor, ratio(f, "conc_cpu_vs_min_x"),
		fmt.Sprintf("the same, over the %d concurrent calls", p.concurrent))
	row(rowSwitches, num(f, "switches_per_call", "%.2f"), num(f, "min_switches_per_call", "%.2f"), noFloor, noFloor, noFloor,
		ratio(f, "switches_vs_min_x"), "voluntary + nonvoluntary, summed over /proc/PID/task/*/status, same calls")
	for _, mib := range p.imageMiB {
		key := fmt.Sprintf("image_%dMiB", mib)
		row(fmt.Sprintf(rowImage, mib), dur(f, key+"_us"), noFloor,
			floorCell(f, key+"_floor_us", key+"_ws_floor_us", key+"_pipe_floor_us"),
			dur(f, key+"_over_us"), ratio(f, key+"_ratio_x"), noFloor,
			fmt.Sprintf("median of %d; frame %s, line %s; data checked", p.imageReps,
				num(f, key+"_frame_bytes", "%.0f B"), num(f, key+"_line_bytes", "%.0f B")))
		bridgeOnly(fmt.Sprintf(rowImageRSS, mib), num(f, key+"_peak_rss_MiB", "%.1f MiB"),
			"VmHWM of a fresh bridge after the image calls")
		bridgeOnly(fmt.Sprintf(rowOut, mib), dur(f, key+"_out_us"),
			fmt.Sprintf("the same reply through the shell to a file, a child process, median of %d, file checked", p.imageReps))
		bridgeOnly(fmt.Sprintf(rowOutRSS, mib), num(f, key+"_out_rss_MiB", "%.1f MiB"),
			"ru_maxrss of that child (scripts/bench/internal/maxrss), median")
	}
	bridgeOnly(rowStartLine, dur(f, "start_listening_line_us"), "exec to the line on stderr")
	bridgeOnly(rowStartTCP, dur(f, "start_tcp_connect_us"), "exec to a connect, polled every 100 µs")
	bridgeOnly(rowIdleRSS, num(f, "idle_rss_MiB", "%.1f MiB"),
		fmt.Sprintf("VmRSS, page attached, %d calls, then 1 s idle", p.idleCalls))
	bridgeOnly(rowShellCall, dur(f, "shell_call_us"),
		fmt.Sprintf("a child process, page attached, median of %d, exit 0", p.shellRuns))
	fmt.Fprintf(w, "\nMinimal relay: the cheapest Go program that makes the bridge's moves (scripts/bench/internal/minrelay), "+
		"driven by the same MCP client and page in the same run. "+
		"Floor: the same bytes over a bare gorilla WebSocket on loopback plus a bare stdio pipe "+
		"to a Go line-answering child (scripts/bench/internal/echo), measured in the same run. "+
		"For calls/s a ratio under 1 means the bridge is slower.\n")
}

// writeRefTable prints the bridge beside the reference bridge, with the
// bridge's ratio to it in each round (the median of those ratios) and, where
// issue 27 sets one, the ratio it asks for.
func writeRefTable(w io.Writer, p plan, ref string, f figures) {
	fmt.Fprintf(w, "\n## Against the reference bridge\n\nReference: `%s`, measured in the same rounds by the same MCP client and page.\n\n", ref)
	fmt.Fprintf(w, "| figure | bridge | reference | bridge ÷ reference | issue 27 asks | minimal relay ÷ reference |\n|---|--:|--:|--:|--:|--:|\n")
	row := func(label, key string, format func(figures, string) string, asks string) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", label, format(f, key), format(f, "ref_"+key),
			ratio2(f, key+"_vs_ref_x"), asks, ratio2(f, "min_"+key+"_vs_ref_x"))
	}
	rate := func(f figures, key string) string { return num(f, key, "%.0f /s") }
	mib := func(f figures, key string) string { return num(f, key, "%.1f MiB") }
	switches := func(f figures, key string) string { return num(f, key, "%.2f") }
	row(rowRelayP50, "relay_p50_us", dur, "< 1.00×")
	row(rowRelayP99, "relay_p99_us", dur, noFloor)
	row(rowSeq, "seq_calls_per_s", rate, "≥ 1.30×")
	row(rowConc, "conc_calls_per_s", rate, "≥ 1.00×")
	row(rowCPU, "cpu_per_call_us", dur, noFloor)
	row(rowConcCPU, "conc_cpu_per_call_us", dur, "≤ 0.77×")
	row(rowSwitches, "switches_per_call", switches, noFloor)
	for _, n := range p.imageMiB {
		key := fmt.Sprintf("image_%dMiB", n)
		row(fmt.Sprintf(rowImage, n), key+"_us", dur, noFloor)
		row(fmt.Sprintf(rowImageRSS, n), key+"_peak_rss_MiB", mib, noFloor)
	}
	row(rowStartLine, "start_listening_line_us", dur, noFloor)
	row(rowStartTCP, "start_tcp_connect_us", dur, noFloor)
	row(rowIdleRSS, "idle_rss_MiB", mib, noFloor)
	row(rowShellCall, "shell_call_us", dur, noFloor)
	fmt.Fprintf(w, "\nFor calls/s a ratio over 1 means the bridge is faster; for times and sizes, under 1. "+
		"The last column sets the minimal relay (scripts/bench/internal/minrelay) beside the reference in the same rounds: "+
		"what a relay that checks nothing reaches on this machine.\n")
}

// mustHold is one of issue 34's targets: a bound on the median of a
// per-round ratio (or on a figure), and whether a value meets it.
type mustHold struct {
	label, key string
	pre        bool // the earlier build has the same figure, under "pre_"+key
	format     func(figures, string) string
	bound      string
	holds      func(v float64) bool
}

// issue34 are the targets of issue 34's "Must hold", in its order. 40 MB is
// 40e6 bytes.
var issue34 = []mustHold{
	{"relay p99 ÷ earlier build", "relay_p99_us_vs_pre_x", false, ratio2, "≤ 1.20×", func(v float64) bool { return v <= 1.2 }},
	{"relay p99 ÷ reference", "relay_p99_us_vs_ref_x", true, ratio2, "< 1.00×", func(v float64) bool { return v < 1 }},
	{"relay p50 ÷ reference", "relay_p50_us_vs_ref_x", true, ratio2, "< 1.00×", func(v float64) bool { return v < 1 }},
	{"relay p50 ÷ minimal relay", "relay_p50_vs_min_x", true, ratio2, "≤ 1.20×", func(v float64) bool { return v <= 1.2 }},
	{"sequential calls/s ÷ reference", "seq_calls_per_s_vs_ref_x", true, ratio2, "≥ 1.30×", func(v float64) bool { return v >= 1.3 }},
	{"CPU per call, 64 in flight ÷ reference", "conc_cpu_per_call_us_vs_ref_x", true, ratio2, "≤ 0.77×", func(v float64) bool { return v <= 0.77 }},
	{"CPU per call, 64 in flight ÷ earlier build", "conc_cpu_per_call_us_vs_pre_x", false, ratio2, "≤ 1.10×", func(v float64) bool { return v <= 1.1 }},
	{"image reply 8 MiB − its floor", "image_8MiB_over_us", true, dur, "≤ 20 ms", func(v float64) bool { return v <= 20e3 }},
	{"peak RSS, 8 MiB image", "image_8MiB_peak_rss_MiB", true, func(f figures, k string) string { return num(f, k, "%.1f MiB") },
		"< 40 MB (38.1 MiB)", func(v float64) bool { return v*(1<<20) < 40e6 }},
}

// writeMustHold prints the figures issue 34 sets targets for, the bridge
// beside the earlier build (-pre), the reference (-ref), the minimal relay
// and the floor, then each target and whether it holds.
func writeMustHold(w io.Writer, pre, ref string, f figures) {
	orNone := func(s string) string {
		if s == "" {
			return "not measured"
		}
		return "`" + s + "`"
	}
	fmt.Fprintf(w, "\n## Issue 34: must hold\n\nEarlier build (-pre): %s. Reference (-ref): %s. "+
		"All measured in the same rounds by the same MCP client and page.\n\n", orNone(pre), orNone(ref))
	fmt.Fprintf(w, "| figure | bridge | earlier build | reference | minimal relay | floor |\n|---|--:|--:|--:|--:|--:|\n")
	rate := func(f figures, key string) string { return num(f, key, "%.0f /s") }
	mib := func(f figures, key string) string { return num(f, key, "%.1f MiB") }
	side := func(label, key string, format func(figures, string) string, floorKey string) {
		floor := noFloor
		if floorKey != "" {
			floor = format(f, floorKey)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", label, format(f, key), format(f, "pre_"+key),
			format(f, "ref_"+key), format(f, "min_"+key), floor)
	}
	side(rowRelayP50, "relay_p50_us", dur, "relay_floor_p50_us")
	side(rowRelayP99, "relay_p99_us", dur, "relay_floor_p99_us")
	side(rowSeq, "seq_calls_per_s", rate, "seq_floor_calls_per_s")
	side(rowConc, "conc_calls_per_s", rate, "conc_floor_calls_per_s")
	side(rowCPU, "cpu_per_call_us", dur, "")
	side(rowConcCPU, "conc_cpu_per_call_us", dur, "")
	side(fmt.Sprintf(rowImage, 8), "image_8MiB_us", dur, "image_8MiB_floor_us")
	side(fmt.Sprintf(rowImageRSS, 8), "image_8MiB_peak_rss_MiB", mib, "")

	fmt.Fprintf(w, "\n| target | bridge | bound | holds | earlier build, same measure |\n|---|--:|--:|---|--:|\n")
	held, measured := 0, 0
	for _, t := range issue34 {
		verdict := notAvailable
		if v, ok := f[t.key]; ok {
			measured++
			verdict = "no"
			if t.holds(v) {
				verdict = "yes"
				held++
			}
		}
		before := noFloor
		if t.pre {
			before = t.format(f, "pre_"+t.key)
			if v, ok := f["pre_"+t.key]; ok && t.holds(v) {
				before += " (holds)"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", t.label, t.format(f, t.key), t.bound, verdict, before)
	}
	fmt.Fprintf(w, "\n%d of %d targets hold, %d not measured. A ratio is the median of the rounds' ratios, "+
		"so it need not be the ratio of the medians above. The last column is the earlier build's own figure "+
		"for the same target, where it has one.\n", held, measured, len(issue34)-measured)
}

// dur formats a figure in microseconds with a unit that suits it.
func dur(f figures, key string) string {
	v, ok := f[key]
	if !ok {
		return notAvailable
	}
	switch a := max(v, -v); {
	case a < 1000:
		return fmt.Sprintf("%.0f µs", v)
	case a < 1e6:
		return fmt.Sprintf("%.2f ms", v/1e3)
	default:
		return fmt.Sprintf("%.2f s", v/1e6)
	}
}

func num(f figures, key, format string) string {
	v, ok := f[key]
	if !ok {
		return notAvailable
	}
	return fmt.Sprintf(format, v)
}

func ratio(f figures, key string) string { return num(f, key, "%.1f×") }

func ratio2(f figures, key string) string { return num(f, key, "%.2f×") }

func floorCell(f figures, sum, ws, pipe string) string {
	return fmt.Sprintf("%s (%s + %s)", dur(f, sum), dur(f, ws), dur(f, pipe))
}

func writeJSON(path string, p plan, binLabel, pre, ref string, rounds []figures, med figures) error {
	doc := map[string]any{
		"binary": binLabel, "earlier": pre, "reference": ref, "go": runtime.Version(), "goos": runtime.GOOS, "goarch": runtime.GOARCH,
		"cpus": runtime.NumCPU(), "short": p.short, "n": p.n, "warm": p.warm,
		"concurrent": p.concurrent, "inFlight": p.inFlight, "shellRuns": p.shellRuns,
		"imageReps": p.imageReps, "imageMiB": p.imageMiB, "padBytes": p.padBytes,
		"rounds": rounds, "median": med,
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
