//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangBound is how long one run may take before the test calls it hung:
// a run over these small files takes milliseconds.
const hangBound = 20 * time.Second

// keyedRelease is a release whose checksums.txt and manifest are signed
// with a key of the test's own (--key), with args that read every input a
// run can read: checksums.txt, its bundle, the manifest, its bundle, the
// key and an artifact.
func keyedRelease(t *testing.T) (r *release, args []string) {
	t.Helper()
	r = newRelease(t)
	key, pub := newKey(t)
	r.write(t, "checksums.txt.sigstore.json", mintKeyBundle(t, key, r.checksums))
	manifest := []byte("{}\n")
	r.write(t, "release-manifest.json", manifest)
	r.write(t, "release-manifest.json.sigstore.json", mintKeyBundle(t, key, manifest))
	r.write(t, "cosign.pub", pub)
	return r, []string{"--key", r.path("cosign.pub"), "--manifest", r.path("release-manifest.json"), r.path(linuxTarball)}
}

// runBounded runs the verifier in-process and fails the test if it does
// not return within hangBound.
func runBounded(t *testing.T, args []string) (code int, stderr string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, &out, &errOut)
		done <- result{report(&errOut, err), errOut.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(hangBound):
		t.Fatalf("stitchslop-verify %q did not return within %v: blocked on a FIFO", args, hangBound)
		return 0, ""
	}
}

// inputNames are the files keyedRelease's args read, and the trusted root
// (read under --trusted-root instead of --key).
var inputNames = []string{"checksums.txt", "checksums.txt.sigstore.json", "release-manifest.json",
	"release-manifest.json.sigstore.json", "cosign.pub", linuxTarball, "trusted_root.json"}

// argsFor are the args that read name: keyedRelease's, or for the trusted
// root the same run under --trusted-root.
func argsFor(r *release, keyed []string, name string) []string {
	if name != "trusted_root.json" {
		return keyed
	}
	return []string{"--trusted-root", r.path(name), r.path(linuxTarball)}
}

// TestFIFOInPlaceOfEachInput: a FIFO where any input should be is refused
// as no regular file (exit 5), and never blocks the open or the read.
func TestFIFOInPlaceOfEachInput(t *testing.T) {
	for _, name := range inputNames {
		t.Run(name, func(t *testing.T) {
			r, keyed := keyedRelease(t)
			os.Remove(r.path(name))
			if err := syscall.Mkfifo(r.path(name), 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			code, stderr := runBounded(t, argsFor(r, keyed, name))
			if code != exitMissingFile || !strings.Contains(stderr, name+" (not a regular file)") {
				t.Errorf("a FIFO for %s: exit %d, stderr %q; want exit %d naming it not a regular file", name, code, stderr, exitMissingFile)
			}
		})
	}
}

// TestFIFOSwappedInCannotHang: while the verifier runs again and again,
// another process keeps swapping each input between the real file and a
// FIFO (a rename, atomic). Whenever the swap lands between a check of the
// path and an open of it, a verifier that checks by path and then opens by
// path blocks in open(2) for a writer that never comes (the old code hung
// this way within a few dozen runs); one that opens each file once,
// without blocking, and checks what it opened, never does.
func TestFIFOSwappedInCannotHang(t *testing.T) {
	const runs = 150
	for _, name := range inputNames {
		t.Run(name, func(t *testing.T) {
			r, keyed := keyedRelease(t)
			real, err := os.ReadFile(r.path(name))
			if name == "trusted_root.json" {
				real, err = pinnedTrustedRoot, nil
				r.write(t, name, real)
			}
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			swapped := make(chan struct{})
			go func() {
				defer close(swapped)
				tmp := r.path(".swap")
				for i := 0; ctx.Err() == nil; i++ {
					os.Remove(tmp)
					if i%2 == 0 {
						if syscall.Mkfifo(tmp, 0o600) != nil {
							return
						}
					} else if os.WriteFile(tmp, real, 0o600) != nil {
						return
					}
					os.Rename(tmp, r.path(name))
				}
			}()
			defer func() { cancel(); <-swapped }()
			args := argsFor(r, keyed, name)
			for range runs {
				switch code, stderr := runBounded(t, args); code {
				case exitOK, exitMissingFile, exitBadTrust, exitSignatureInvalid:
				default:
					t.Fatalf("exit %d, stderr %q", code, stderr)
				}
			}
		})
	}
}

// bytesRead is how many bytes process pid has read (Linux's
// /proc/pid/io); ok is false where that cannot be known.
func bytesRead(pid int) (n int64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "rchar: "); found {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// TestMain runs the verifier's main instead of the tests when the test
// binary is started as the verifier (TestInterruptExits130).
func TestMain(m *testing.M) {
	if os.Getenv("STITCHSLOP_VERIFY_AS_MAIN") == "1" {
		os.Args = append([]string{"stitchslop-verify"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

// TestInterruptExits130: SIGINT while the verifier hashes a large artifact
// ends it at once with exit 130. The artifact is a sparse 64 GiB file that
// takes minutes to hash; the signal is sent once the verifier has said the
// signature is good, that is, during the hashing.
func TestInterruptExits130(t *testing.T) {
	r, keyed := keyedRelease(t)
	big := r.path(linuxTarball)
	if err := os.Truncate(big, 64<<30); err != nil {
		t.Skipf("no sparse file: %v", err)
	}
	args := append([]string{}, keyed[:2]...) // --key only
	args = append(args, big)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "STITCHSLOP_VERIFY_AS_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "checksums.txt: signature OK") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("first stdout line %q, %v; want the signature verdict (stderr %q)", line, err, stderr.String())
	}
	// Into the hashing itself, where a signal that only ends the run
	// between artifacts goes unheard: on Linux, once it has read far more
	// than every small input together.
	for deadline := time.Now().Add(hangBound); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if read, ok := bytesRead(cmd.Process.Pid); !ok || read > 256<<20 {
			break
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(hangBound):
		cmd.Process.Kill()
		<-waited
		t.Fatalf("the verifier was still running %v after SIGINT", hangBound)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("after SIGINT: %v, stderr %q; want exit %d saying interrupted", err, stderr.String(), exitInterrupted)
	}
}
