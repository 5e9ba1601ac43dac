package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replyWith is a bridge that answers every request with body.
func replyWith(t *testing.T, body string) string {
	t.Helper()
	return fakeBridge(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, body)
	})
}

// runRaw is run for a stdout that may be large: it returns stdout as it is.
func runRaw(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var so, se bytes.Buffer
	code := Main(context.Background(), append([]string{"--config-dir", dir}, args...), strings.NewReader(""), &so, &se)
	return code, so.String(), se.String()
}

func TestCallBulkGuard(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	note := `"[bridge: a 3,145,728-character string was left out here (at members.0.text); run the call again with --raw to print it whole]"`
	dir := replyWith(t, `{"ok":true, "members":[{"text":"`+big+`"}],"n":1}`)

	code, out, stderr := runRaw(t, dir, "call", "scene.describe")
	// Changed, so written compact by the one encoder (gate.Guard.Apply).
	if want := `{"ok":true,"members":[{"text":` + note + `}],"n":1}` + "\n"; code != 0 || out != want {
		t.Errorf("call = %d, %.300q (%s); want 0, %.300q", code, out, stderr, want)
	}
	code, out, _ = runRaw(t, dir, "call", "scene.describe", "--raw")
	if want := `{"ok":true,"members":[{"text":"` + big + `"}],"n":1}` + "\n"; code != 0 || out != want {
		t.Errorf("call --raw = %d, %d bytes; want 0 and the reply whole, %d bytes", code, len(out), len(want))
	}
}

// ok:false with a note still exits 1 (§4.4).
func TestCallBulkGuardFailure(t *testing.T) {
	dir := replyWith(t, `{"ok":false,"error":"x","message":"`+strings.Repeat("m", 100_001)+`"}`)
	code, out, _ := runRaw(t, dir, "call", "fail")
	if code != 1 || !strings.Contains(out, `"message":"[bridge: a 100,001-character string was left out here (at message);`) {
		t.Errorf("call (ok:false, long message) = %d, %.300q; want 1 and a note", code, out)
	}
}

// Without --out, a large top-level image is left out of what call prints,
// with word of --out; with --out it is saved, and other long strings are
// cut unless --raw.
func TestCallBulkGuardImage(t *testing.T) {
	img := withPNG(bytes.Repeat([]byte("\x89PNG\x00\xff"), 1000)[:6000-len(pngSig)]...)
	b64 := base64.StdEncoding.EncodeToString(img)
	nested := "data:image/png;base64," + strings.Repeat("A", 3000-22)
	dir := replyWith(t, `{"ok":true,"dataUrl":"data:image/png;base64,`+b64+`","thumbs":["`+nested+`"]}`)

	_, out, _ := runRaw(t, dir, "call", "render")
	want := `{"ok":true,"dataUrl":"[bridge: a 8,022-character data URL was left out here (at dataUrl); run the call again with --out FILE to save the image, or with --raw to print it whole]",` +
		`"thumbs":["[bridge: a 3,000-character data URL was left out here (at thumbs.0); run the call again with --raw to print it whole]"]}` + "\n"
	if out != want {
		t.Errorf("call render = %.500q, want %.500q", out, want)
	}

	for _, raw := range []bool{false, true} {
		file := filepath.Join(t.TempDir(), "out.png")
		args := []string{"call", "render", "--out", file}
		if raw {
			args = append(args, "--raw")
		}
		code, doc, stderr := run(t, dir, args...)
		if got, err := os.ReadFile(file); code != 0 || err != nil || !bytes.Equal(got, img) {
			t.Fatalf("%q = %d (%s): wrote %d bytes (%v), want 0 and the image", args, code, stderr, len(got), err)
		}
		thumb := doc["thumbs"].([]any)[0].(string)
		if raw && thumb != nested {
			t.Errorf("%q printed thumbs[0] = %.100q, want the data URL whole", args, thumb)
		}
		if !raw && thumb != "[bridge: a 3,000-character data URL was left out here (at thumbs.0); run the call again with --raw to print it whole]" {
			t.Errorf("%q printed thumbs[0] = %.200q, want a note", args, thumb)
		}
		if doc["savedTo"] != file {
			t.Errorf("%q printed %v, want savedTo %s", args, doc, file)
		}
	}
}

func TestRawOnlyWithCall(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"status", "--raw"}, {"tools", "--raw"}, {"wait", "1", "--raw"}, {"unpair", "--all", "--raw"}, {"--origin", "https://x", "--raw"}} {
		var so, se bytes.Buffer
		code := Main(context.Background(), append([]string{"--config-dir", dir}, args...), strings.NewReader(""), &so, &se)
		if code != 64 || !strings.Contains(se.String(), "--raw goes with") {
			t.Errorf("Main(%q) = %d, stderr %q; want 64, --raw goes with call", args, code, se.String())
		}
	}
	if a, err := parse([]string{"call", "x", "--raw=1"}); err == nil {
		t.Errorf("parse(--raw=1) = %v, want an error: --raw takes no value", a)
	}
}

// call's help states the limits --raw lifts.
func TestCallHelpNamesTheBulkLimits(t *testing.T) {
	help := helpFor(lookup("call"))
	for _, s := range []string{"--raw", "100,000 characters", "2,048"} {
		if !strings.Contains(help, s) {
			t.Errorf("helpFor(call) does not mention %q:\n%s", s, help)
		}
	}
}
