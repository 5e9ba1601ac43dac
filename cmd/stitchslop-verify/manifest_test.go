package main

import (
	"strings"
	"testing"

	"github.com/stitchslop/stitchslop-bridge/internal/releaseid"
)

const manifestName = "release-manifest.json"

// TestManifest: --manifest verifies release-manifest.json against its own
// bundle, under the same keyless identity policy as checksums.txt.
func TestManifest(t *testing.T) {
	manifest := []byte(`{"schema": 2, "project": "stitchslop-bridge", "version": "1.2.3"}` + "\n")
	tests := []struct {
		name       string
		san        string
		tamper     func(t *testing.T, r *release)
		args       func(r *release) []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{
			name:       "manifest alone",
			san:        goodSAN,
			args:       func(r *release) []string { return []string{"--manifest", r.path(manifestName)} },
			wantCode:   exitOK,
			wantStdout: []string{manifestName + ": signature OK (signed by " + goodSAN},
		},
		{
			name: "manifest and artifacts",
			san:  goodSAN,
			args: func(r *release) []string {
				return []string{"--manifest", r.path(manifestName), r.path(linuxTarball)}
			},
			wantCode:   exitOK,
			wantStdout: []string{manifestName + ": signature OK", "checksums.txt: signature OK", linuxTarball + ": OK\n"},
		},
		{
			name: "one byte changed",
			san:  goodSAN,
			tamper: func(t *testing.T, r *release) {
				r.write(t, manifestName, []byte(strings.Replace(string(manifest), "1.2.3", "1.2.4", 1)))
			},
			args:       func(r *release) []string { return []string{"--manifest", r.path(manifestName)} },
			wantCode:   exitSignatureInvalid,
			wantStderr: []string{"signature invalid"},
		},
		{
			name:       "signed by a fork",
			san:        "https://github.com/evil/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v1.2.3",
			args:       func(r *release) []string { return []string{"--manifest", r.path(manifestName)} },
			wantCode:   exitIdentityMismatch,
			wantStderr: []string{manifestName + " was signed by"},
		},
		{
			name: "bundle missing",
			san:  goodSAN,
			tamper: func(t *testing.T, r *release) {
				r.remove(t, manifestName+".sigstore.json")
			},
			args:       func(r *release) []string { return []string{"--manifest", r.path(manifestName)} },
			wantCode:   exitMissingFile,
			wantStderr: []string{manifestName + ".sigstore.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := newVirtualSigstore(t)
			useVirtualSigstore(t, vs)
			r := newRelease(t)
			r.write(t, "checksums.txt.sigstore.json", mintBundle(t, vs, goodSAN, goodIssuer, r.checksums))
			r.write(t, manifestName, manifest)
			r.write(t, manifestName+".sigstore.json", mintBundle(t, vs, tt.san, goodIssuer, manifest))
			if tt.tamper != nil {
				tt.tamper(t, r)
			}
			args := tt.args(r)
			wantRun(t, args, tt.wantCode, tt.wantStdout, tt.wantStderr)
		})
	}
}

// TestVersion: --version prints the verifier's version and the pinned
// root's digest on stdout, and takes no artifact.
func TestVersion(t *testing.T) {
	code, stdout, stderr := runCLI(t, "--version")
	if code != exitOK || stderr != "" {
		t.Fatalf("run(--version) = exit %d, stderr %q; want 0 and nothing on stderr", code, stderr)
	}
	if !strings.HasPrefix(stdout, "stitchslop-verify ") || !strings.Contains(stdout, "pinned trusted root sha256 ") {
		t.Errorf("run(--version) stdout = %q, want the version line and the trusted root digest", stdout)
	}
	if code, _, _ := runCLI(t, "--version", "a.tar.gz"); code != exitUsage {
		t.Errorf("run(--version a.tar.gz) exit = %d, want %d", code, exitUsage)
	}
}

// TestErrorsNeverQuoteFiles: a bad --trusted-root or bundle is described,
// never quoted, as errors.go promises: the file is untrusted bytes.
func TestErrorsNeverQuoteFiles(t *testing.T) {
	const marker = "EVIL-MARKER"
	hostile := map[string][]byte{
		"not JSON":        []byte(marker + "\x1b[2J\x07 not json"),
		"JSON, not right": []byte(`{"mediaType": "` + marker + `\u001b[2J", "tlogs": 7}`),
	}
	for name, content := range hostile {
		for _, target := range []string{"trusted root", "bundle"} {
			t.Run(name+"/"+target, func(t *testing.T) {
				vs := newVirtualSigstore(t)
				useVirtualSigstore(t, vs)
				r := newRelease(t)
				r.write(t, "checksums.txt.sigstore.json", mintBundle(t, vs, goodSAN, goodIssuer, r.checksums))
				args := []string{r.path(linuxTarball)}
				wantCode := exitSignatureInvalid
				if target == "trusted root" {
					r.write(t, "root.json", content)
					args = append([]string{"--trusted-root", r.path("root.json")}, args...)
					wantCode = exitBadTrust
				} else {
					r.write(t, "checksums.txt.sigstore.json", content)
				}
				code, stdout, stderr := runCLI(t, args...)
				if code != wantCode {
					t.Fatalf("run(%q) exit = %d, want %d\nstderr:\n%s", args, code, wantCode, stderr)
				}
				for _, out := range []string{stdout, stderr} {
					if strings.Contains(out, marker) || strings.ContainsAny(out, "\x1b\x07") {
						t.Errorf("run(%q) output = %q, want no byte of the file in it", args, out)
					}
				}
			})
		}
	}
}

// TestPolicyIsReleaseID: the verifier enforces the identity written down
// once in internal/releaseid.
func TestPolicyIsReleaseID(t *testing.T) {
	if releaseSANRegexp != releaseid.SANRegexp || releaseIssuer != releaseid.OIDCIssuer {
		t.Errorf("policy = %q, %q; want releaseid's %q, %q", releaseSANRegexp, releaseIssuer, releaseid.SANRegexp, releaseid.OIDCIssuer)
	}
}
