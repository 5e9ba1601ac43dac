package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// events writes test2json lines: each item is "ACTION TEST [OUTPUT]".
func events(t *testing.T, lines ...string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		action, rest, _ := strings.Cut(l, " ")
		test, output, _ := strings.Cut(rest, " ")
		if test == "-" {
			test = ""
		}
		e, err := json.Marshal(map[string]string{"Action": action, "Test": test, "Output": output + "\n"})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(e, '\n'))
	}
	return b.String()
}

const (
	cleanup = "    testing.go:1464: TempDir RemoveAll cleanup: unlinkat C:\\users\\root\\Temp\\TestA1\\001\\x: Invalid function."
	noOwner = `    cli_test.go:12: status = 3: the session file is stale and the key was not sent: port 4242 is not held by the bridge (pid 32) its session file names`
	limit   = "tcp-owner=Wine's TCP table names no owner"
)

// TestRun: a test failing only on t.TempDir's cleanup passes, with the
// limitation named; a test stopped by a probed limitation is a skip only
// when that limitation was probed; any other error, or a panic, fails.
func TestRun(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		limits []string
		ok     bool
		want   string
	}{
		{"cleanup only", events(t, "run TestA", "output TestA "+cleanup, "fail TestA", "fail -"), nil, true, "1 passed with the RemoveAll limitation"},
		{"cleanup in a subtest", events(t, "run TestA", "run TestA/sub", "output TestA/sub "+cleanup, "fail TestA/sub", "fail TestA", "fail -"), nil, true, "wine: 2 tests passed"},
		{"probed limitation", events(t, "run TestB", "output TestB "+noOwner, "output TestB     cli_test.go:13: and what followed", "output TestB "+cleanup, "fail TestB", "fail -"),
			[]string{limit}, true, "skip TestB: Wine limitation tcp-owner"},
		{"limitation not probed", events(t, "run TestB", "output TestB "+noOwner, "fail TestB", "fail -"), nil, false, "FAIL TestB"},
		{"another error first", events(t, "run TestC", "output TestC     c_test.go:9: got 1, want 2", "output TestC "+noOwner, "fail TestC", "fail -"),
			[]string{limit}, false, "FAIL TestC"},
		{"panic", events(t, "run TestD", "output TestD "+noOwner, "output TestD panic: boom", "fail TestD", "fail -"), []string{limit}, false, "FAIL TestD"},
		{"package fails outside tests", events(t, "output - FAIL: TestMain exited", "fail -"), nil, false, "failed outside any test"},
		{"no result at all", events(t, "run TestE"), nil, false, "failed outside any test"},
		{"skip keeps its reason", events(t, "run TestF", "output TestF     f_test.go:3: bash is not installed", "skip TestF", "pass -"), nil, true, "skip TestF: bash is not installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf := limitFlags{}
			for _, l := range tt.limits {
				if err := lf.Set(l); err != nil {
					t.Fatal(err)
				}
			}
			var out strings.Builder
			ok, err := run(strings.NewReader(tt.input), &out, "pkg", lf)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.ok || !strings.Contains(out.String(), tt.want) {
				t.Errorf("run = %v, output:\n%s\nwant %v and %q", ok, out.String(), tt.ok, tt.want)
			}
		})
	}
	if err := (limitFlags{}).Set("dns=whatever"); err == nil {
		t.Error("-limit dns=...: no error for an unknown limitation")
	}
}
