package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// figures are one round's results, by name. The name ends in its unit:
// _us (microseconds), _per_s, _MiB, _bytes, or _x for a ratio.
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
