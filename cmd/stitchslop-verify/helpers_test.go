package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"debug/elf"
	"debug/macho"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/proto"
)

// Identities written out from the spec of a GitHub Actions Fulcio
// certificate, not built from releaseSANRegexp, so a typo in the production
// regexp cannot make these tests agree with it.
const (
	goodSAN    = "https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml@refs/tags/v1.2.3"
	goodIssuer = "https://token.actions.githubusercontent.com"
)

// useVirtualSigstore makes vs the default trusted material for the test and
// drops the SCT requirement (the virtual CA embeds no SCTs). Everything
// else, the identity policy included, stays as in production.
func useVirtualSigstore(t *testing.T, vs *ca.VirtualSigstore) {
	t.Helper()
	oldTM, oldOpts := defaultTrustedMaterial, keylessVerifierOptions
	defaultTrustedMaterial = func() (root.TrustedMaterial, error) { return vs, nil }
	keylessVerifierOptions = []verify.VerifierOption{
		verify.WithTransparencyLog(1),
		verify.WithObserverTimestamps(1),
	}
	t.Cleanup(func() { defaultTrustedMaterial, keylessVerifierOptions = oldTM, oldOpts })
}

func newVirtualSigstore(t *testing.T) *ca.VirtualSigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatalf("ca.NewVirtualSigstore() = %v", err)
	}
	return vs
}

// mintBundle signs content as identity/issuer with the virtual Sigstore and
// returns a v0.3 Sigstore bundle in JSON, shaped like `cosign sign-blob
// --bundle` output: leaf certificate, message signature, one hashedrekord
// log entry with inclusion promise and inclusion proof, and an RFC 3161
// timestamp.
func mintBundle(t *testing.T, vs *ca.VirtualSigstore, identity, issuer string, content []byte) []byte {
	t.Helper()
	ent, err := vs.Sign(identity, issuer, content)
	if err != nil {
		t.Fatalf("VirtualSigstore.Sign() = %v", err)
	}
	vc, err := ent.VerificationContent()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ent.SignatureContent()
	if err != nil {
		t.Fatal(err)
	}
	ms := sc.MessageSignatureContent()
	tss, err := ent.Timestamps()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ent.TlogEntries()
	if err != nil || len(entries) != 1 {
		t.Fatalf("TlogEntries() = %d entries, %v; want 1", len(entries), err)
	}

	// The virtual Sigstore's entry keeps its inclusion promise outside the
	// protobuf and has no proof; a v0.3 bundle needs both in the message.
	tle := proto.Clone(entries[0].TransparencyLogEntry()).(*protorekor.TransparencyLogEntry)
	tle.KindVersion = &protorekor.KindVersion{Kind: "hashedrekord", Version: "0.0.1"}
	set, err := vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	})
	if err != nil {
		t.Fatal(err)
	}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	proof, err := vs.GetInclusionProof(tle.CanonicalizedBody)
	if err != nil {
		t.Fatal(err)
	}
	rootHash, err := hex.DecodeString(*proof.RootHash)
	if err != nil {
		t.Fatal(err)
	}
	var hashes [][]byte
	for _, h := range proof.Hashes {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, b)
	}
	tle.InclusionProof = &protorekor.InclusionProof{
		LogIndex:   *proof.LogIndex,
		RootHash:   rootHash,
		TreeSize:   *proof.TreeSize,
		Hashes:     hashes,
		Checkpoint: &protorekor.Checkpoint{Envelope: *proof.Checkpoint},
	}

	var stamps []*protocommon.RFC3161SignedTimestamp
	for _, ts := range tss {
		stamps = append(stamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	pb := &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_Certificate{
				Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw},
			},
			TlogEntries:               []*protorekor.TransparencyLogEntry{tle},
			TimestampVerificationData: &protobundle.TimestampVerificationData{Rfc3161Timestamps: stamps},
		},
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: ms.Digest()},
			Signature:     ms.Signature(),
		}},
	}
	return marshalBundle(t, pb)
}

// mintKeyBundle signs content with key the way `cosign sign-blob --key
// --tlog-upload=false --bundle` does: public-key verification material, a
// message signature, no log entry.
func mintKeyBundle(t *testing.T, key *ecdsa.PrivateKey, content []byte) []byte {
	t.Helper()
	digest := sha256.Sum256(content)
	sig, err := key.Sign(rand.Reader, digest[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	pb := &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{Hint: ""}},
		},
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: digest[:]},
			Signature:     sig,
		}},
	}
	return marshalBundle(t, pb)
}

func marshalBundle(t *testing.T, pb *protobundle.Bundle) []byte {
	t.Helper()
	b, err := bundle.NewBundle(pb)
	if err != nil {
		t.Fatalf("bundle.NewBundle() = %v", err)
	}
	data, err := b.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func newKey(t *testing.T) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// release is a fake downloaded release in a temporary directory.
type release struct {
	dir       string
	artifacts map[string][]byte
	checksums []byte
}

// newRelease writes two artifacts and their checksums.txt (not yet signed).
func newRelease(t *testing.T) *release {
	t.Helper()
	r := &release{
		dir: t.TempDir(),
		artifacts: map[string][]byte{
			"stitchslop-bridge_1.2.3_linux_amd64.tar.gz":    []byte("pretend tarball for linux/amd64\n"),
			"stitchslop-bridge_1.2.3_windows_arm64.zip":     []byte("pretend zip for windows/arm64\n"),
			"stitchslop-bridge_1.2.3_darwin_arm64":          fakeExecutable(t, "darwin", "arm64", "pretend raw binary\n"),
			"stitchslop-bridge_1.2.3_linux_amd64.sbom.json": []byte("{}\n"),
		},
	}
	var sums bytes.Buffer
	for _, name := range []string{
		"stitchslop-bridge_1.2.3_darwin_arm64",
		"stitchslop-bridge_1.2.3_linux_amd64.sbom.json",
		"stitchslop-bridge_1.2.3_linux_amd64.tar.gz",
		"stitchslop-bridge_1.2.3_windows_arm64.zip",
	} {
		content := r.artifacts[name]
		r.write(t, name, content)
		sum := sha256.Sum256(content)
		sums.WriteString(hex.EncodeToString(sum[:]) + "  " + name + "\n")
	}
	r.checksums = sums.Bytes()
	r.write(t, "checksums.txt", r.checksums)
	return r
}

// fakeExecutable is body behind the smallest header debug/elf or
// debug/macho parses as an executable for goos/goarch: no sections, no
// load commands.
func fakeExecutable(t *testing.T, goos, goarch, body string) []byte {
	t.Helper()
	le := binary.LittleEndian
	var h []byte
	switch goos + "/" + goarch {
	case "darwin/arm64", "darwin/amd64":
		cpu := macho.CpuArm64
		if goarch == "amd64" {
			cpu = macho.CpuAmd64
		}
		h = le.AppendUint32(h, macho.Magic64)
		h = le.AppendUint32(h, uint32(cpu))
		h = le.AppendUint32(h, 0)                      // cpusubtype
		h = le.AppendUint32(h, uint32(macho.TypeExec)) // filetype
		h = append(h, make([]byte, 4*4)...)            // ncmds, sizeofcmds, flags, reserved
	case "linux/amd64", "linux/arm64":
		machine := elf.EM_X86_64
		if goarch == "arm64" {
			machine = elf.EM_AARCH64
		}
		h = append(h, 0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT), byte(elf.ELFOSABI_NONE))
		h = append(h, make([]byte, 8)...)
		h = le.AppendUint16(h, uint16(elf.ET_EXEC))
		h = le.AppendUint16(h, uint16(machine))
		h = le.AppendUint32(h, uint32(elf.EV_CURRENT))
		h = append(h, make([]byte, 8*3+4)...) // entry, phoff, shoff, flags
		h = le.AppendUint16(h, 64)            // ehsize
		h = append(h, make([]byte, 2*5)...)   // phentsize, phnum, shentsize, shnum, shstrndx
	default:
		t.Fatalf("fakeExecutable: no header for %s/%s", goos, goarch)
	}
	return append(h, body...)
}

func (r *release) path(name string) string { return filepath.Join(r.dir, name) }

func (r *release) write(t *testing.T, name string, content []byte) {
	t.Helper()
	if err := os.WriteFile(r.path(name), content, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runCLI runs the command as main would and returns exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	code = report(&errOut, err)
	return code, out.String(), errOut.String()
}

func (r *release) remove(t *testing.T, name string) {
	t.Helper()
	if err := os.Remove(r.path(name)); err != nil {
		t.Fatal(err)
	}
}
