//go:build linux

package e2e

// A hostile page's data URL of tens of megabytes with one JSON escape in
// its header (an outside attack's finding): decoding it meant copies of
// the whole string, past issue 34 item 3's bound of twice the reply
// (THREAT_MODEL.md T9). A browser's JSON.stringify escapes no character a
// data URL holds, so the bridge reads a data URL only in place: one with
// an escape is refused, by name (envelope.EscapedDataURL), at no cost.

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSec_ShellOutOfEscapedDataURLIsRefusedWithinTwiceTheReply: `call
// --out FILE` of a reply whose 60 MB are a PNG's top-level dataUrl, its
// comma escaped: nothing written, exit 1, the reason on stderr, within the bound
// the same reply without the escape ("plain", saved) is held to.
func TestSec_ShellOutOfEscapedDataURLIsRefusedWithinTwiceTheReply(t *testing.T) {
	// Not parallel: a peak is measured.
	for _, comma := range []string{",", `\u002c`} {
		name := map[string]string{",": "plain", `\u002c`: "escaped"}[comma]
		t.Run(name, func(t *testing.T) { shellOutPeak(t, comma) })
	}
}

func shellOutPeak(t *testing.T, comma string) {
	tok := newToken()
	b := startBridge(t, bridgeOpts{token: tok})
	p, _ := connectPage(t, b, map[string]any{"token": tok})
	p.serve(func(cmd string, args map[string]any) map[string]any {
		if cmd == "render.png" {
			return nil // answered raw below
		}
		return defaultHandler(cmd, args)
	})
	b.awaitConnected(true)
	from := len(p.frames.all())
	out := filepath.Join(t.TempDir(), "big.png")
	args := []string{"--config-dir", b.configDir, "--port", strconv.Itoa(b.port), "call", "render.png", "--out", out}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binFor(args), args...)
	cmd.Env = childEnv(t.TempDir())
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	resetPeak(t)
	bound := 2 * bigFileSize >> 10
	if raceEnabled {
		bound *= raceMemory
	}
	self := peakKB(t, 0)
	if self >= bound {
		t.Skipf("this process holds %d KiB, over the bound of %d KiB, so the shell's own peak cannot be told from it", self, bound)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f, _ := p.frameAt(from, func(f frame) bool { return f.str("command") == "render.png" })
	img := make([]byte, bigFileSize*3/4)
	copy(img, pngBytes)
	body := `"ok":true,"dataUrl":"data:image/png;base64` + comma + base64.StdEncoding.EncodeToString(img) + `"`
	img = nil
	rawReply(t, p, f, body)
	body = ""
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 && comma == "," || code != 1 && comma != "," {
		t.Fatalf("call --out: exit %d, stderr %s; want 0, or 1 for an escaped data URL", code, truncate(se.String(), 400))
	}
	fi, err := os.Stat(out)
	switch {
	case comma != "," && (err == nil || !strings.Contains(se.String(), "JSON escape")):
		t.Fatalf("call --out of an escaped data URL wrote %v (%v), stderr %s; want nothing written and the reason", fi, err, truncate(se.String(), 400))
	case comma == "," && (err != nil || fi.Size() != int64(bigFileSize*3/4)):
		t.Fatalf("call --out wrote %v, %v; want %d bytes", fi, err, bigFileSize*3/4)
	}
	peak := int(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) // KiB on Linux
	t.Logf("this process held %d KiB as the shell started; shell peak %d KiB (bound %d)", self, peak, bound)
	if peak > bound {
		t.Errorf("call --out of a %d KiB reply whose dataUrl's comma is %q peaked at %d KiB, want at most twice the reply (%d KiB)", bigFileSize>>10, comma, peak, bound)
	}
}
