package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/stitchslop/stitchslop-bridge/internal/releaseid"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// Size limits on the small files we read whole. Real ones are a few KiB; the
// limits only stop a hostile download from making us allocate gigabytes.
const (
	maxChecksumsBytes   = 1 << 20 // checksums.txt: one line per archive, binary and SBOM
	maxManifestBytes    = 1 << 20 // release-manifest.json: three assets for each of eight targets
	maxBundleBytes      = 1 << 20 // Sigstore bundle: a certificate, a signature and log proofs
	maxTrustedRootBytes = 4 << 20 // trusted_root.json: keys and certificates of every Sigstore service
	maxPublicKeyBytes   = 64 << 10
)

// pinnedTrustedRoot is the Sigstore public-good trusted root, pinned in the
// repository so verification needs no network. See
// docs/release.md ("The pinned trusted root, and refreshing it") for where it
// comes from and how to replace it; --trusted-root overrides it at run time.
//
//go:embed trusted_root.json
var pinnedTrustedRoot []byte

// The identity policy: the only signer whose checksums.txt and
// release-manifest.json are accepted is the release workflow of this
// repository running on a version tag (internal/releaseid, the one place the
// identity is written down). The SAN regexp is anchored at both ends so that
// a fork, another workflow file or a branch ref cannot match; the issuer is
// compared exactly.
var (
	releaseSANRegexp = releaseid.SANRegexp
	releaseIssuer    = releaseid.OIDCIssuer
)

// Test hooks: the trusted material used when neither --trusted-root nor
// --key is given, and the verifier requirements for keyless bundles.
var (
	defaultTrustedMaterial = func() (root.TrustedMaterial, error) {
		return root.NewTrustedRootFromJSON(pinnedTrustedRoot)
	}

	// keylessVerifierOptions are the verifier requirements for keyless
	// bundles; tests drop the SCT requirement because the virtual Sigstore
	// does not embed SCTs in its certificates.
	keylessVerifierOptions = productionVerifierOptions()
)

// productionVerifierOptions are what release bundles must carry: at least
// one verified transparency log entry, an observer timestamp (the log's
// integrated time or an RFC 3161 timestamp) inside the certificate validity,
// and a signed certificate timestamp from a trusted CT log embedded in the
// Fulcio certificate. These are the checks `cosign verify-blob` makes.
func productionVerifierOptions() []verify.VerifierOption {
	return []verify.VerifierOption{
		verify.WithTransparencyLog(1),
		verify.WithObserverTimestamps(1),
		verify.WithSignedCertificateTimestamps(1),
	}
}

// verifier is one configured way of checking the checksums bundle.
type verifier struct {
	v      *verify.Verifier
	policy verify.PolicyOption
	keyed  bool
}

func newVerifier(opts *options, in inputs) (*verifier, error) {
	if opts.key != "" {
		return newKeyVerifier(opts.key, in.file(opts.key))
	}

	var tm root.TrustedMaterial
	var err error
	if opts.trustedRoot != "" {
		var data []byte
		data, err = readLimited(in.file(opts.trustedRoot), maxTrustedRootBytes)
		if err != nil {
			return nil, newError(exitMissingFile, nil, "trusted root %s: %v", opts.trustedRoot, err)
		}
		tm, err = root.NewTrustedRootFromJSON(data)
		if err != nil {
			// The parser's error quotes the bytes it choked on; the
			// message says what kind of file it is instead.
			return nil, newError(exitBadTrust, []string{"pass a Sigstore trusted_root.json, e.g. the output of `cosign trusted-root create` or the TUF target trusted_root.json"},
				"trusted root %s is not a valid Sigstore trusted root (%s)", opts.trustedRoot, describeJSON(data))
		}
	} else {
		tm, err = defaultTrustedMaterial()
		if err != nil {
			return nil, newError(exitBadTrust, nil, "pinned trusted root: %v", err)
		}
	}

	v, err := verify.NewVerifier(tm, keylessVerifierOptions...)
	if err != nil {
		return nil, newError(exitBadTrust, nil, "configuring verifier: %v", err)
	}
	san, err := verify.NewSANMatcher("", releaseSANRegexp)
	if err != nil {
		return nil, newError(exitBadTrust, nil, "identity policy: %v", err)
	}
	iss, err := verify.NewIssuerMatcher(releaseIssuer, "")
	if err != nil {
		return nil, newError(exitBadTrust, nil, "identity policy: %v", err)
	}
	id, err := verify.NewCertificateIdentity(san, iss, certificate.Extensions{})
	if err != nil {
		return nil, newError(exitBadTrust, nil, "identity policy: %v", err)
	}
	return &verifier{v: v, policy: verify.WithCertificateIdentity(id)}, nil
}

// newKeyVerifier trusts exactly one public key (cosign.pub) and, like
// `cosign verify-blob --key --insecure-ignore-tlog`, does not require a log
// entry: it serves self-signed and local test builds, not official releases.
func newKeyVerifier(path string, f *os.File) (*verifier, error) {
	data, err := readLimited(f, maxPublicKeyBytes)
	if err != nil {
		return nil, newError(exitMissingFile, nil, "key %s: %v", path, err)
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(data)
	if err != nil {
		return nil, newError(exitBadTrust, []string{"--key takes a PEM public key such as cosign.pub"},
			"key %s is not a PEM public key", path)
	}
	sv, err := signature.LoadDefaultVerifier(pub)
	if err != nil {
		return nil, newError(exitBadTrust, nil, "key %s: unsupported public key: %v", path, err)
	}
	key := root.NewExpiringKey(sv, time.Time{}, time.Time{})
	// The bundle's key hint is advisory; whatever it says, only this key is tried.
	tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return key, nil
	})
	v, err := verify.NewVerifier(tm, verify.WithNoObserverTimestamps())
	if err != nil {
		return nil, newError(exitBadTrust, nil, "configuring verifier: %v", err)
	}
	return &verifier{v: v, policy: verify.WithKey(), keyed: true}, nil
}

// verifyChecksums checks the bundle over the checksums file and returns the
// parsed, now authentic, checksums and a description of the signer.
func (ver *verifier) verifyChecksums(in inputs, checksumsPath, bundlePath string) (map[string]string, string, error) {
	sumsData, signer, err := ver.verifyBlob(in, checksumsPath, bundlePath, maxChecksumsBytes)
	if err != nil {
		return nil, "", err
	}
	sums, err := parseChecksums(sumsData)
	if err != nil {
		return nil, "", newError(exitSignatureInvalid, nil, "%s is signed but malformed: %v", checksumsPath, err)
	}
	return sums, signer, nil
}

// verifyBlob checks the Sigstore bundle at bundlePath over the file at path
// (both opened by openInputs; read whole, at most limit bytes) and returns the file's now authentic
// bytes and a description of the signer.
func (ver *verifier) verifyBlob(in inputs, path, bundlePath string, limit int64) ([]byte, string, error) {
	name := filepath.Base(path)
	data, err := readLimited(in.file(path), limit)
	if err != nil {
		return nil, "", newError(exitMissingFile, nil, "%s: %v", path, err)
	}
	bundleData, err := readLimited(in.file(bundlePath), maxBundleBytes)
	if err != nil {
		return nil, "", newError(exitMissingFile, nil, "%s: %v", bundlePath, err)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleData); err != nil {
		// Not %v: the parser's error quotes the bundle's bytes.
		return nil, "", newError(exitSignatureInvalid, []string{fmt.Sprintf("the bundle must be the %s.sigstore.json of the same release (Sigstore bundle format, as cosign v3 writes)", name)},
			"%s is not a valid Sigstore bundle (%s)", bundlePath, describeJSON(bundleData))
	}

	res, err := ver.v.Verify(&b, verify.NewPolicy(verify.WithArtifact(bytes.NewReader(data)), ver.policy))
	if err != nil {
		var idErr *verify.ErrNoMatchingCertificateIdentity
		if errors.As(err, &idErr) {
			return nil, "", newError(exitIdentityMismatch,
				[]string{fmt.Sprintf("only a %s signed by the stitchslop-bridge release workflow on a version tag is accepted; download the release from github.com/stitchslop/stitchslop-bridge/releases", name)},
				"%s was signed by %s, not by the stitchslop-bridge release workflow (want SAN matching %s, issuer %s)",
				path, describeSigner(&b), releaseSANRegexp, releaseIssuer)
		}
		return nil, "", newError(exitSignatureInvalid,
			[]string{fmt.Sprintf("%s or its bundle was altered or does not belong to this release; download both again from the release page", name)},
			"%s: signature invalid: %v", path, err)
	}

	signer := "signed by the --key public key"
	if !ver.keyed && res.Signature != nil && res.Signature.Certificate != nil {
		signer = fmt.Sprintf("signed by %s, issuer %s", res.Signature.Certificate.SubjectAlternativeName, res.Signature.Certificate.Issuer)
	}
	return data, signer, nil
}

// describeJSON says what kind of file data is without quoting any of it:
// downloaded files are untrusted bytes and never reach the terminal.
func describeJSON(data []byte) string {
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return "the file is empty"
	case !json.Valid(data):
		return "the file is not JSON"
	default:
		return "JSON, but not in the expected format"
	}
}

// describeSigner names the identity in a bundle's certificate for an
// identity-mismatch message. The certificate chain was verified before the
// policy ran, so this is what a trusted CA vouched for; %q still keeps any
// odd bytes from reaching the terminal raw.
func describeSigner(b *bundle.Bundle) string {
	vc, err := b.VerificationContent()
	if err != nil || vc.Certificate() == nil {
		return "an unknown identity"
	}
	s, err := certificate.SummarizeCertificate(vc.Certificate())
	if err != nil {
		return "an unknown identity"
	}
	return fmt.Sprintf("%q (issuer %q)", s.SubjectAlternativeName, s.Issuer)
}

// readLimited reads a whole small file, opened by openInputs, refusing
// anything over limit bytes: by its size before reading, and by what it
// reads (a file may grow after the Fstat).
func readLimited(f *os.File, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}
