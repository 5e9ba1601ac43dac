package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// figures are one round's results, by name. The name ends in its unit:
// _us (microseconds), _per_s, _per_call (a count per call), _MiB, _bytes, or
// _x for a ratio.
type figures map[string]float64

// percentile returns the p-th percentile (0 < p <= 100) of ds by nearest
// rank, in microseconds.
func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return math.NaN()
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return us(s[max(i, 0)])
}

// median returns the median of ds in microseconds.
func median(ds []time.Duration) float64 {
	vs := make([]float64, len(ds))
	for i, d := range ds {
		vs[i] = us(d)
	}
	return medianOf(vs)
}

func medianOf(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// medianOfRounds returns, for each figure present in every round, its
// median over the rounds.
func medianOfRounds(rounds []figures) figures {
	out := figures{}
	if len(rounds) == 0 {
		return out
	}
	for k := range rounds[0] {
		var vs []float64
		for _, r := range rounds {
			if v, ok := r[k]; ok {
				vs = append(vs, v)
			}
		}
		if len(vs) == len(rounds) {
			out[k] = medianOf(vs)
		}
	}
	return out
}

// procStatusMiB reads a kB field of /proc/<pid>/status (VmRSS, VmHWM) in
// MiB. It fails where there is no /proc.
func procStatusMiB(pid int, field string) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/status %s: %v", pid, field, err)
		}
		return kb / 1024, nil
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, field)
}

// usage is what a process has spent so far: CPU time in clock ticks and
// context switches.
type usage struct {
	ticks    float64 // utime + stime of /proc/PID/stat: every thread, live or gone
	switches float64 // voluntary + nonvoluntary, summed over /proc/PID/task/*/status
}

// procUsage reads a process's usage. /proc/PID/status counts only the
// main thread's context switches, and a Go process switches on several
// threads, so they are summed over its threads; a thread that ended in
// between would take its count with it (the Go runtime seldom ends one).
func procUsage(pid int) (usage, error) {
	var u usage
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, err
	}
	// Field 2, the command name, is in parentheses and may hold spaces, so
	// fields are counted after the last ')': field 3 is at index 0, utime
	// (field 14) at 11 and stime (field 15) at 12.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 13 {
		return u, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(fields))
	}
	for _, s := range fields[11:13] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return u, fmt.Errorf("/proc/%d/stat: %v", pid, err)
		}
		u.ticks += v
	}
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		return u, fmt.Errorf("/proc/%d/task: no threads", pid)
	}
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended since the glob
		}
		for line := range strings.Lines(string(data)) {
			name, rest, _ := strings.Cut(line, ":")
			if name == "voluntary_ctxt_switches" || name == "nonvoluntary_ctxt_switches" {
				v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
				if err != nil {
					return u, fmt.Errorf("%s %s: %v", t, name, err)
				}
				u.switches += v
			}
		}
	}
	return u, nil
}

// clockTicks is the kernel's clock ticks per second (`getconf CLK_TCK`),
// or 100 if getconf cannot say.
var clockTicks = sync.OnceValue(func() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err != nil {
		return 100
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil || v <= 0 {
		return 100
	}
	return v
})
