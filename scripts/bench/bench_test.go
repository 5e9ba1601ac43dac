package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestShort runs the whole bench in -short mode, so the code cannot rot, and
// checks that it printed every row. It asserts nothing about the figures.
func TestShort(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the bench builds the bridge and its echo program with it")
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-short"}, &stdout, &stderr); err != nil {
		t.Fatalf("bench -short: %v\nstderr:\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, label := range []string{
		"relay round trip p50",
		"relay round trip p99",
		"sequential calls/s",
		"concurrent calls/s, 64 in flight",
		"CPU per call, sequential",
		"context switches per call, sequential",
		"image reply 1 MiB",
		"peak RSS, 1 MiB image",
		"start to listening line",
		"start to first TCP connect",
		"idle RSS",
		"shell `call echo '{}'`",
	} {
		if !strings.Contains(out, "\n| "+label+" | ") {
			t.Errorf("bench -short printed no %q row; stdout:\n%s", label, out)
		}
	}
	t.Logf("\n%s", out)
}
