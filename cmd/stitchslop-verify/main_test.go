package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	linuxTarball = "stitchslop-bridge_1.2.3_linux_amd64.tar.gz"
	windowsZip   = "stitchslop-bridge_1.2.3_windows_arm64.zip"
)

// TestKeyless drives the CLI over bundles minted by a virtual Sigstore for
// the right identity, wrong identities, and tampered files.
func TestKeyless(t *testing.T) {
	tests := []struct {
		name string
		// san and issuer are the identity the bundle is minted for.
		san, issuer string
		// tamper runs after signing, before verifying.
		tamper     func(t *testing.T, r *release)
		args       func(r *release) []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{
			name: "release workflow on a tag",
			san:  goodSAN, issuer: goodIssuer,
			args:     func(r *release) []string { return []string{r.path(linuxTarball), r.path(windowsZip)} },
			wantCode: exitOK,
			wantStdout: []string{
				"checksums.txt: signature OK (signed by " + goodSAN + ", issuer " + goodIssuer + ")\n",
				linuxTarball + ": OK\n",
				windowsZip + ": OK\n",
			},
		},
		{
			name: "raw binary and sbom are listed too",
			san:  goodSAN, issuer: goodIssuer,
			args: func(r *release) []string {
				return []string{r.path("stitchslop-bridge_1.2.3_darwin_arm64"), r.path("stitchslop-bridge_1.2.3_linux_amd64.sbom.json")}
			},
			wantCode: exitOK,
		},
		{
			name: "flags after artifacts",
			san:  goodSAN, issuer: goodIssuer,
			args: func(r *release) []string {
				return []string{r.path(linuxTarball), "--checksums", r.path("checksums.txt")}
			},
			wantCode: exitOK,
		},
		{
			name: "pre-release tag",
			san:  "https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v2.0.0-rc.1", issuer: goodIssuer,
			args:     func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode: exitOK,
		},
		{
			name: "fork of the repository",
			san:  "https://github.com/evil/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v1.2.3", issuer: goodIssuer,
			args:       func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode:   exitIdentityMismatch,
			wantStderr: []string{"stitchslop-verify: error: ", "not by the stitchslop-bridge release workflow", "github.com/evil/"},
		},
		{
			name: "another workflow of the repository",
			san:  "https://github.com/stitchslop/stitchslop-bridge/.github/workflows/ci.yml@refs/tags/v1.2.3", issuer: goodIssuer,
			args:     func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode: exitIdentityMismatch,
		},
		{
			name: "release workflow on a branch",
			san:  "https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/heads/main", issuer: goodIssuer,
			args:     func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode: exitIdentityMismatch,
		},
		{
			name: "prefix before an otherwise good identity",
			san:  "https://evil.example/?" + goodSAN, issuer: goodIssuer,
			args:     func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode: exitIdentityMismatch,
		},
		{
			name: "wrong issuer",
			san:  goodSAN, issuer: "https://accounts.google.com",
			args:       func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode:   exitIdentityMismatch,
			wantStderr: []string{"accounts.google.com"},
		},
		{
			name: "issuer with a suffix",
			san:  goodSAN, issuer: goodIssuer + ".evil.example",
			args:     func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode: exitIdentityMismatch,
		},
		{
			name: "tampered checksums file",
			san:  goodSAN, issuer: goodIssuer,
			tamper: func(t *testing.T, r *release) {
				forged := strings.Replace(string(r.checksums), "  "+linuxTarball, "  "+linuxTarball+"x", 1)
				r.write(t, "checksums.txt", []byte(forged))
			},
			args:       func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode:   exitSignatureInvalid,
			wantStderr: []string{"signature invalid", "hint: "},
		},
		{
			name: "tampered artifact",
			san:  goodSAN, issuer: goodIssuer,
			tamper: func(t *testing.T, r *release) {
				r.write(t, linuxTarball, []byte("malware\n"))
			},
			args:       func(r *release) []string { return []string{r.path(windowsZip), r.path(linuxTarball)} },
			wantCode:   exitChecksumMismatch,
			wantStdout: []string{windowsZip + ": OK\n", linuxTarball + ": FAILED\n"},
			wantStderr: []string{"stitchslop-verify: error: " + linuxTarball + ": sha256 ", "does not match checksums.txt"},
		},
		{
			name: "renamed artifact is not listed",
			san:  goodSAN, issuer: goodIssuer,
			tamper: func(t *testing.T, r *release) {
				r.write(t, "stitchslop-bridge_1.2.3_linux_amd64 (1).tar.gz", r.artifacts[linuxTarball])
			},
			args:       func(r *release) []string { return []string{r.path("stitchslop-bridge_1.2.3_linux_amd64 (1).tar.gz")} },
			wantCode:   exitNotListed,
			wantStderr: []string{"is not listed in checksums.txt"},
		},
		{
			name: "first failure decides the exit code",
			san:  goodSAN, issuer: goodIssuer,
			tamper: func(t *testing.T, r *release) {
				r.write(t, "unknown.tar.gz", []byte("x"))
				r.write(t, linuxTarball, []byte("malware\n"))
			},
			args:       func(r *release) []string { return []string{r.path("unknown.tar.gz"), r.path(linuxTarball)} },
			wantCode:   exitNotListed,
			wantStderr: []string{"2 artifacts failed"},
		},
		{
			name: "missing bundle",
			san:  goodSAN, issuer: goodIssuer,
			tamper: func(t *testing.T, r *release) {
				if err := os.Remove(r.path("checksums.txt.sigstore.json")); err != nil {
					t.Fatal(err)
				}
			},
			args:       func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode:   exitMissingFile,
			wantStderr: []string{"missing file: ", "checksums.txt.sigstore.json", "hint: download checksums.txt and"},
		},
		{
			name: "missing artifacts are all named",
			san:  goodSAN, issuer: goodIssuer,
			args: func(r *release) []string {
				return []string{r.path("nope-1.tar.gz"), r.path("nope-2.zip")}
			},
			wantCode:   exitMissingFile,
			wantStderr: []string{"nope-1.tar.gz", "nope-2.zip"},
		},
		{
			name: "directory instead of artifact",
			san:  goodSAN, issuer: goodIssuer,
			args: func(r *release) []string {
				return []string{"--checksums", r.path("checksums.txt"), r.dir}
			},
			wantCode:   exitMissingFile,
			wantStderr: []string{"not a regular file"},
		},
		{
			name: "bundle is not a bundle",
			san:  goodSAN, issuer: goodIssuer,
			tamper: func(t *testing.T, r *release) {
				r.write(t, "checksums.txt.sigstore.json", []byte(`{"mediaType": "text/plain"}`))
			},
			args:       func(r *release) []string { return []string{r.path(linuxTarball)} },
			wantCode:   exitSignatureInvalid,
			wantStderr: []string{"is not a valid Sigstore bundle"},
		},
		{
			name: "pinned public-good root does not trust the virtual CA",
			san:  goodSAN, issuer: goodIssuer,
			args: func(r *release) []string {
				return []string{"--trusted-root", "trusted_root.json", r.path(linuxTarball)}
			},
			wantCode:   exitSignatureInvalid,
			wantStderr: []string{"signature invalid"},
		},
		{
			name: "trusted root override that is not a trusted root",
			san:  goodSAN, issuer: goodIssuer,
			args: func(r *release) []string {
				return []string{"--trusted-root", r.path("checksums.txt"), r.path(linuxTarball)}
			},
			wantCode:   exitBadTrust,
			wantStderr: []string{"is not a valid Sigstore trusted root"},
		},
		{
			name: "trusted root override that is missing",
			san:  goodSAN, issuer: goodIssuer,
			args: func(r *release) []string {
				return []string{"--trusted-root", r.path("no-such-root.json"), r.path(linuxTarball)}
			},
			wantCode:   exitMissingFile,
			wantStderr: []string{"no-such-root.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := newVirtualSigstore(t)
			useVirtualSigstore(t, vs)
			r := newRelease(t)
			r.write(t, "checksums.txt.sigstore.json", mintBundle(t, vs, tt.san, tt.issuer, r.checksums))
			if tt.tamper != nil {
				tt.tamper(t, r)
			}
			args := tt.args(r)
			_, stderr := wantRun(t, args, tt.wantCode, tt.wantStdout, tt.wantStderr)
			if tt.wantCode == exitOK && stderr != "" {
				t.Errorf("run(%q) stderr = %q, want empty on success", args, stderr)
			}
		})
	}
}

// TestUntrustedSigstore: a bundle from a different (attacker's) Sigstore
// instance with the right identity must not verify.
func TestUntrustedSigstore(t *testing.T) {
	trusted, attacker := newVirtualSigstore(t), newVirtualSigstore(t)
	useVirtualSigstore(t, trusted)
	r := newRelease(t)
	r.write(t, "checksums.txt.sigstore.json", mintBundle(t, attacker, goodSAN, goodIssuer, r.checksums))
	code, _, stderr := runCLI(t, r.path(linuxTarball))
	if code != exitSignatureInvalid {
		t.Fatalf("run() with a bundle from an untrusted CA: exit = %d, want %d\nstderr:\n%s", code, exitSignatureInvalid, stderr)
	}
}

// TestProductionRequiresSCT: with the production verifier options, a
// certificate without an embedded SCT is rejected even from a trusted CA.
func TestProductionRequiresSCT(t *testing.T) {
	vs := newVirtualSigstore(t)
	useVirtualSigstore(t, vs)
	keylessVerifierOptions = productionVerifierOptions() // restored by useVirtualSigstore's cleanup
	r := newRelease(t)
	r.write(t, "checksums.txt.sigstore.json", mintBundle(t, vs, goodSAN, goodIssuer, r.checksums))
	code, _, stderr := runCLI(t, r.path(linuxTarball))
	if code != exitSignatureInvalid || !strings.Contains(stderr, "certificate timestamp") {
		t.Fatalf("run() without SCT: exit = %d, stderr = %q; want %d and an SCT error", code, stderr, exitSignatureInvalid)
	}
}

// TestKey covers --key: cosign-style key-signed bundles without a log entry.
func TestKey(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(t *testing.T, r *release) (keyFile string)
		wantCode   int
		wantStderr string
	}{
		{
			name: "right key",
			setup: func(t *testing.T, r *release) string {
				key, pub := newKey(t)
				r.write(t, "checksums.txt.sigstore.json", mintKeyBundle(t, key, r.checksums))
				r.write(t, "cosign.pub", pub)
				return r.path("cosign.pub")
			},
			wantCode: exitOK,
		},
		{
			name: "another key",
			setup: func(t *testing.T, r *release) string {
				key, _ := newKey(t)
				_, otherPub := newKey(t)
				r.write(t, "checksums.txt.sigstore.json", mintKeyBundle(t, key, r.checksums))
				r.write(t, "cosign.pub", otherPub)
				return r.path("cosign.pub")
			},
			wantCode:   exitSignatureInvalid,
			wantStderr: "signature invalid",
		},
		{
			name: "tampered checksums",
			setup: func(t *testing.T, r *release) string {
				key, pub := newKey(t)
				r.write(t, "checksums.txt.sigstore.json", mintKeyBundle(t, key, r.checksums))
				r.write(t, "checksums.txt", append([]byte(strings.Repeat("0", 64)+"  extra.tar.gz\n"), r.checksums...))
				r.write(t, "cosign.pub", pub)
				return r.path("cosign.pub")
			},
			wantCode:   exitSignatureInvalid,
			wantStderr: "signature invalid",
		},
		{
			name: "tampered artifact",
			setup: func(t *testing.T, r *release) string {
				key, pub := newKey(t)
				r.write(t, "checksums.txt.sigstore.json", mintKeyBundle(t, key, r.checksums))
				r.write(t, linuxTarball, []byte("malware\n"))
				r.write(t, "cosign.pub", pub)
				return r.path("cosign.pub")
			},
			wantCode:   exitChecksumMismatch,
			wantStderr: "does not match",
		},
		{
			name: "keyless bundle with --key",
			setup: func(t *testing.T, r *release) string {
				vs := newVirtualSigstore(t)
				_, pub := newKey(t)
				r.write(t, "checksums.txt.sigstore.json", mintBundle(t, vs, goodSAN, goodIssuer, r.checksums))
				r.write(t, "cosign.pub", pub)
				return r.path("cosign.pub")
			},
			wantCode: exitSignatureInvalid,
		},
		{
			name: "key file is not a key",
			setup: func(t *testing.T, r *release) string {
				key, _ := newKey(t)
				r.write(t, "checksums.txt.sigstore.json", mintKeyBundle(t, key, r.checksums))
				r.write(t, "cosign.pub", []byte("-----BEGIN NOTHING-----\n"))
				return r.path("cosign.pub")
			},
			wantCode:   exitBadTrust,
			wantStderr: "is not a PEM public key",
		},
		{
			name: "signed but malformed checksums",
			setup: func(t *testing.T, r *release) string {
				key, pub := newKey(t)
				bad := []byte("not a checksum line\n")
				r.write(t, "checksums.txt", bad)
				r.write(t, "checksums.txt.sigstore.json", mintKeyBundle(t, key, bad))
				r.write(t, "cosign.pub", pub)
				return r.path("cosign.pub")
			},
			wantCode:   exitSignatureInvalid,
			wantStderr: "is signed but malformed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Keyless trust must play no part in --key mode.
			useVirtualSigstore(t, newVirtualSigstore(t))
			r := newRelease(t)
			keyFile := tt.setup(t, r)
			code, stdout, stderr := runCLI(t, "--key", keyFile, r.path(linuxTarball))
			if code != tt.wantCode {
				t.Fatalf("run(--key) exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("run(--key) stderr = %q, want it to contain %q", stderr, tt.wantStderr)
			}
			if code == exitOK && !strings.Contains(stdout, "signed by the --key public key") {
				t.Errorf("run(--key) stdout = %q, want the key named as signer", stdout)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"no arguments", nil, exitUsage, "", "stitchslop-verify: error: no artifact to verify"},
		{"unknown flag", []string{"--nope", "a.tar.gz"}, exitUsage, "", "flag provided but not defined"},
		{"flag without value", []string{"a.tar.gz", "--key"}, exitUsage, "", "flag needs an argument"},
		{"key and trusted root", []string{"--key", "k", "--trusted-root", "r", "a.tar.gz"}, exitUsage, "", "cannot be used together"},
		{"help", []string{"--help"}, exitOK, "exit codes:", ""},
		{"short help", []string{"-h"}, exitOK, "usage: stitchslop-verify", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("run(%q) exit = %d, want %d\nstderr:\n%s", tt.args, code, tt.wantCode, stderr)
			}
			if tt.wantStdout != "" && !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("run(%q) stdout = %q, want it to contain %q", tt.args, stdout, tt.wantStdout)
			}
			if tt.wantStdout == "" && stdout != "" {
				t.Errorf("run(%q) stdout = %q, want empty (usage after a mistake goes to stderr)", tt.args, stdout)
			}
			if tt.wantStderr != "" && !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, stderr, tt.wantStderr)
			}
		})
	}
}

func TestParseArgsDefaults(t *testing.T) {
	tests := []struct {
		args                    []string
		wantChecksums, wantBndl string
		wantArtifacts           []string
	}{
		{[]string{"dl/a.tar.gz"}, filepath.Join("dl", "checksums.txt"), filepath.Join("dl", "checksums.txt.sigstore.json"), []string{"dl/a.tar.gz"}},
		{[]string{"--checksums", "s.txt", "a", "b"}, "s.txt", "s.txt.sigstore.json", []string{"a", "b"}},
		{[]string{"a", "--bundle", "x.json", "b"}, filepath.Join(".", "checksums.txt"), "x.json", []string{"a", "b"}},
		{[]string{"--", "--key", "-x"}, filepath.Join(".", "checksums.txt"), filepath.Join(".", "checksums.txt.sigstore.json"), []string{"--key", "-x"}},
	}
	for _, tt := range tests {
		opts, err := parseArgs(tt.args)
		if err != nil {
			t.Fatalf("parseArgs(%q) = %v", tt.args, err)
		}
		if opts.checksums != tt.wantChecksums || opts.bundle != tt.wantBndl || strings.Join(opts.artifacts, "|") != strings.Join(tt.wantArtifacts, "|") {
			t.Errorf("parseArgs(%q) = checksums %q bundle %q artifacts %q, want %q %q %q",
				tt.args, opts.checksums, opts.bundle, opts.artifacts, tt.wantChecksums, tt.wantBndl, tt.wantArtifacts)
		}
	}
}

// TestIdentityRegexp pins the shape of the production identity policy,
// with SANs written out by hand.
func TestIdentityRegexp(t *testing.T) {
	re := regexp.MustCompile(releaseSANRegexp)
	tests := []struct {
		san  string
		want bool
	}{
		{"https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v1.0.0", true},
		{"https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v10.2.3-beta.1", true},
		{"https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/heads/main", false},
		{"https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/tags/latest", false},
		{"https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yaml@refs/tags/v1.0.0", false},
		{"https://github.com/stitchslop/stitchslop-bridge/.github/workflows/ci.yml@refs/tags/v1.0.0", false},
		{"https://github.com/stitchslop/stitchslop-bridge-fork/.github/workflows/release.yml@refs/tags/v1.0.0", false},
		{"https://github.com/evil/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v1.0.0", false},
		{"https://github.com/stitchslopXstitchslop-bridge/.github/workflows/release.yml@refs/tags/v1.0.0", false},
		{"https://github.com/stitchslop/stitchslop-bridge/.github/workflowsXrelease.yml@refs/tags/v1.0.0", false},
		{"https://github.com/stitchslop/stitchslop-bridge/.github/workflows/releaseXyml@refs/tags/v1.0.0", false},
		{"https://evil.example/https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v1.0.0", false},
		{"http://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v1.0.0", false},
	}
	for _, tt := range tests {
		if got := re.MatchString(tt.san); got != tt.want {
			t.Errorf("MatchString(%q) = %v, want %v", tt.san, got, tt.want)
		}
	}
	if releaseIssuer != "https://token.actions.githubusercontent.com" {
		t.Errorf("releaseIssuer = %q, want the GitHub Actions OIDC issuer", releaseIssuer)
	}
}

// TestPinnedTrustedRoot: the embedded root parses and carries every service
// a keyless verification needs.
func TestPinnedTrustedRoot(t *testing.T) {
	tm, err := defaultTrustedMaterial()
	if err != nil {
		t.Fatalf("defaultTrustedMaterial() = %v", err)
	}
	if len(tm.FulcioCertificateAuthorities()) == 0 || len(tm.RekorLogs()) == 0 || len(tm.CTLogs()) == 0 {
		t.Errorf("pinned trusted root: %d CAs, %d Rekor logs, %d CT logs; want at least one of each",
			len(tm.FulcioCertificateAuthorities()), len(tm.RekorLogs()), len(tm.CTLogs()))
	}
}

// wantRun runs the verifier with args and fails unless it exits with
// wantCode and its stdout and stderr contain each of wantStdout and
// wantStderr. It returns both for further checks.
func wantRun(t *testing.T, args []string, wantCode int, wantStdout, wantStderr []string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != wantCode {
		t.Fatalf("run(%q) exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, wantCode, stdout, stderr)
	}
	for _, s := range wantStdout {
		if !strings.Contains(stdout, s) {
			t.Errorf("run(%q) stdout = %q, want it to contain %q", args, stdout, s)
		}
	}
	for _, s := range wantStderr {
		if !strings.Contains(stderr, s) {
			t.Errorf("run(%q) stderr = %q, want it to contain %q", args, stderr, s)
		}
	}
	return stdout, stderr
}
