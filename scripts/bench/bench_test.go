package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShort runs the whole bench in -short mode, so the code cannot rot, and
// checks that it printed every row. It asserts nothing about the figures.
func TestShort(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the bench builds the bridge and its echo program with it")
	}
	// The reference bridge is this module's bridge too: what is checked is
	// that a second bridge command runs through every figure and gets its
	// table.
	bin := filepath.Join(t.TempDir(), "stitchslop-bridge")
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := goBuild(root, bin, "./cmd/stitchslop-bridge"); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-short", "-bin", bin, "-ref", bin}, &stdout, &stderr); err != nil {
		t.Fatalf("bench -short: %v\nstderr:\n%s", err, stderr.String())
	}
	out, ref, ok := strings.Cut(stdout.String(), "## Against the reference bridge")
	if !ok {
		t.Fatalf("bench -short -ref printed no reference table; stdout:\n%s", stdout.String())
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
	t.Logf("\n%s", stdout.String())
}
