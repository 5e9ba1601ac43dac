package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShort runs the whole bench in -short mode, so the code cannot rot, and
// checks that it printed every row. It asserts nothing about the figures.
func TestShort(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the bench builds the bridge and its echo program with it")
	}
	// The reference bridge and the earlier build are this module's bridge
	// too: what is checked is that a second bridge command and a second
	// binary run through every figure and get their tables.
	bin := filepath.Join(t.TempDir(), "stitchslop-bridge")
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := goBuild(root, bin, "./cmd/stitchslop-bridge"); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-short", "-bin", bin, "-pre", bin, "-ref", bin}, &stdout, &stderr); err != nil {
		t.Fatalf("bench -short: %v\nstderr:\n%s", err, stderr.String())
	}
	out, ref, ok := strings.Cut(stdout.String(), "## Against the reference bridge")
	if !ok {
		t.Fatalf("bench -short -ref printed no reference table; stdout:\n%s", stdout.String())
	}
	ref, must, ok := strings.Cut(ref, "## Issue 34: must hold")
	if !ok {
		t.Fatalf("bench -short printed no table of issue 34's targets; stdout:\n%s", stdout.String())
	}
	for _, label := range []string{
		"relay round trip p50",
		"relay round trip p99",
		"sequential calls/s",
		"concurrent calls/s, 64 in flight",
		"CPU per call, sequential",
		"CPU per call, 64 in flight",
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
		// Every figure of the bridge is one the reference has too. (A ratio
		// can be n/a in -short mode: 50 calls may take no clock tick.)
		line, _, _ := strings.Cut(ref[strings.Index(ref, "\n| "+label+" | ")+1:], "\n")
		if cells := strings.Split(line, " | "); len(cells) != 6 || cells[1] == notAvailable || cells[2] == notAvailable {
			t.Errorf("reference table row %q: want the bridge's figure and the reference's; got %q", label, line)
		}
	}
	// The bridge's own rows: the shell's --out of the same image.
	for _, label := range []string{"shell `call --out`, 1 MiB image", "peak RSS of that shell call, 1 MiB"} {
		i := strings.Index(out, "\n| "+label+" | ")
		if i < 0 {
			t.Errorf("bench -short printed no %q row; stdout:\n%s", label, out)
			continue
		}
		line, _, _ := strings.Cut(out[i+1:], "\n")
		if cells := strings.Split(line, " | "); len(cells) < 2 || cells[1] == notAvailable {
			t.Errorf("row %q: want the bridge's figure; got %q", label, line)
		}
	}
	// Issue 34's figures have the earlier build's and the reference's value
	// beside the bridge's; its targets all have a row, and those -short can
	// measure a verdict.
	line, _, _ := strings.Cut(must[strings.Index(must, "\n| relay round trip p50 | ")+1:], "\n")
	if cells := strings.Split(line, " | "); len(cells) != 6 || slices.Contains(cells[1:5], notAvailable) {
		t.Errorf("issue 34's p50 row: want the bridge's, the earlier build's, the reference's and the minimal relay's figure; got %q", line)
	}
	for _, h := range issue34 {
		i := strings.Index(must, "\n| "+h.label+" | ")
		if i < 0 {
			t.Errorf("no row for issue 34's target %q; stdout:\n%s", h.label, must)
			continue
		}
		line, _, _ := strings.Cut(must[i+1:], "\n")
		measurable := !strings.HasPrefix(h.key, "image_8MiB") && !strings.HasPrefix(h.key, "conc_cpu")
		if cells := strings.Split(line, " | "); measurable && (len(cells) != 5 || cells[3] != "yes" && cells[3] != "no") {
			t.Errorf("issue 34's target %q: want a verdict; got %q", h.label, line)
		}
	}
	t.Logf("\n%s", stdout.String())
}
