package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/stitchslop/stitchslop-bridge/internal/releaseid"
	"github.com/stitchslop/stitchslop-bridge/internal/version"
	"github.com/stitchslop/stitchslop-bridge/security/unprintable"
)

var usageText = `usage: stitchslop-verify [flags] <artifact>...
       stitchslop-verify [flags] --manifest release-manifest.json [<artifact>...]
       stitchslop-verify [flags] --installed [<path of stitchslop-bridge>]

Verify downloaded stitchslop-bridge release files.

checksums.txt must be signed (keyless, Sigstore) by the release workflow
  https://` + releaseid.Repository + `/` + releaseid.Workflow + `
running on a v* tag, with OIDC issuer ` + releaseid.OIDCIssuer + `,
logged in Rekor and chained to the pinned Sigstore trusted root. Then every
<artifact> must be listed in checksums.txt with a matching SHA-256.
--manifest checks release-manifest.json against its own bundle
(release-manifest.json.sigstore.json) under the same policy.
--installed checks an installed stitchslop-bridge (the one on PATH when no
path is given) against the raw binaries of that signed checksums.txt, and
says which release and target it is byte for byte, or that it is none.

flags:
  --checksums FILE     checksums file (default: checksums.txt next to the first artifact)
  --bundle FILE        Sigstore bundle for it (default: <checksums>.sigstore.json)
  --manifest FILE      also verify this release-manifest.json against FILE.sigstore.json;
                       with no <artifact>, verify only the manifest
  --installed          the one file named is an installed binary (default: the
                       stitchslop-bridge on PATH), not a download; checksums.txt
                       defaults to the one in the working directory
  --trusted-root FILE  Sigstore trusted_root.json to use instead of the pinned one
  --key PUB            verify with this PEM public key instead of the keyless
                       identity policy (for self-signed builds; no log required)
  --version            print the verifier's version and the pinned trusted root's SHA-256
  -h, --help           print this help

exit codes:
  0   every artifact verified
  1   signature invalid (bad signature, log entry, certificate chain or
      timestamps; malformed bundle or checksums file)
  2   identity mismatch (valid signature, but not by the release workflow)
  3   artifact not listed in checksums.txt
  4   checksum mismatch (--installed: the binary is no release binary of
      that checksums.txt)
  5   missing file (artifact, checksums, bundle, trusted root or key)
  6   --trusted-root or --key is not a usable trusted root or public key
  64  usage error
  130 interrupted
`

// options is the parsed command line.
type options struct {
	checksums   string
	bundle      string
	trustedRoot string
	key         string
	manifest    string
	version     bool
	installed   bool
	artifacts   []string
}

// run verifies the files named in args. stdout gets one line per verified
// file; everything else is returned as an error for report to print.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts, err := parseArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, usageText)
		return err
	}
	if err != nil {
		// A mistake gets the one-line synopsis, not the whole help.
		synopsis, _, _ := strings.Cut(usageText, "\n")
		fmt.Fprintln(stderr, synopsis)
		return err
	}
	if opts.version {
		fmt.Fprintln(stdout, versionText())
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	in, err := openInputs(opts)
	if err != nil {
		return err
	}
	defer in.close()

	ver, err := newVerifier(opts, in)
	if err != nil {
		return err
	}

	if opts.manifest != "" {
		_, signer, err := ver.verifyBlob(in, opts.manifest, opts.manifest+".sigstore.json", maxManifestBytes)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: signature OK (%s)\n", filepath.Base(opts.manifest), signer)
		if len(opts.artifacts) == 0 {
			return nil
		}
	}

	sums, signer, err := ver.verifyChecksums(in, opts.checksums, opts.bundle)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: signature OK (%s)\n", filepath.Base(opts.checksums), signer)

	if opts.installed {
		return checkInstalled(ctx, sums, opts.checksums, opts.artifacts[0], in.file(opts.artifacts[0]), stdout)
	}
	return checkArtifacts(ctx, sums, opts.checksums, opts.artifacts, in, stdout)
}

// parseArgs accepts flags before, between and after the artifacts, and "--"
// to end flag parsing.
func parseArgs(args []string) (*options, error) {
	var opts options
	fs := flag.NewFlagSet("stitchslop-verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&opts.checksums, "checksums", "", "")
	fs.StringVar(&opts.bundle, "bundle", "", "")
	fs.StringVar(&opts.trustedRoot, "trusted-root", "", "")
	fs.StringVar(&opts.key, "key", "", "")
	fs.StringVar(&opts.manifest, "manifest", "", "")
	fs.BoolVar(&opts.version, "version", false, "")
	fs.BoolVar(&opts.installed, "installed", false, "")

	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, newError(exitUsage, []string{"stitchslop-verify --help lists the flags and exit codes"}, "%v", err)
		}
		consumed := len(rest) - len(fs.Args())
		afterDashDash := consumed > 0 && rest[consumed-1] == "--"
		rest = fs.Args()
		if afterDashDash {
			opts.artifacts = append(opts.artifacts, rest...)
			break
		}
		if len(rest) > 0 {
			opts.artifacts = append(opts.artifacts, rest[0])
			rest = rest[1:]
		}
	}

	if opts.version {
		if len(opts.artifacts) > 0 {
			return nil, newError(exitUsage, nil, "--version takes no artifact")
		}
		return &opts, nil
	}
	if opts.installed {
		switch {
		case opts.manifest != "":
			return nil, newError(exitUsage, nil, "--installed and --manifest cannot be used together")
		case len(opts.artifacts) > 1:
			return nil, newError(exitUsage, nil, "--installed checks one binary, got %d", len(opts.artifacts))
		case len(opts.artifacts) == 0:
			path, err := findInstalled()
			if err != nil {
				return nil, newError(exitMissingFile, []string{"give the installed binary's path: stitchslop-verify --installed /path/to/stitchslop-bridge"},
					"no stitchslop-bridge on PATH")
			}
			opts.artifacts = []string{path}
		}
		if opts.checksums == "" {
			// The release's files, downloaded into the working directory.
			opts.checksums = "checksums.txt"
		}
	}
	if len(opts.artifacts) == 0 && opts.manifest == "" {
		return nil, newError(exitUsage, []string{"name the downloaded archives or binaries to check, e.g. stitchslop-verify stitchslop-bridge_1.2.3_linux_amd64.tar.gz"},
			"no artifact to verify")
	}
	if opts.trustedRoot != "" && opts.key != "" {
		return nil, newError(exitUsage, nil, "--trusted-root and --key cannot be used together")
	}
	for _, a := range opts.artifacts {
		if a == "" {
			return nil, newError(exitUsage, nil, "empty artifact name")
		}
	}
	if opts.checksums == "" {
		// Next to the first artifact, or to the manifest when it is the
		// only file named.
		first := opts.manifest
		if len(opts.artifacts) > 0 {
			first = opts.artifacts[0]
		}
		opts.checksums = filepath.Join(filepath.Dir(first), "checksums.txt")
	}
	if opts.bundle == "" {
		opts.bundle = opts.checksums + ".sigstore.json"
	}
	return &opts, nil
}

// inputs are the files a run reads, each opened once by openInputs and
// read only through its handle afterwards (never by path again), so what
// was checked is what is read.
type inputs map[string]*os.File

// file is the handle of path, which openInputs opened.
func (in inputs) file(path string) *os.File { return in[path] }

func (in inputs) close() {
	for _, f := range in {
		f.Close()
	}
}

// openInputs opens every file the run will read, the careful way
// (openRegular), and reports every one that cannot be read at once, so a
// person who forgot to download the bundle and one archive learns both in
// one go.
func openInputs(opts *options) (inputs, error) {
	var paths []string
	if opts.manifest != "" {
		paths = append(paths, opts.manifest, opts.manifest+".sigstore.json")
	}
	if len(opts.artifacts) > 0 {
		paths = append(paths, opts.checksums, opts.bundle)
	}
	if opts.trustedRoot != "" {
		paths = append(paths, opts.trustedRoot)
	}
	if opts.key != "" {
		paths = append(paths, opts.key)
	}
	paths = append(paths, opts.artifacts...)

	in := inputs{}
	var missing []string
	for _, p := range paths {
		if _, done := in[p]; done {
			continue
		}
		f, err := openRegular(p)
		switch {
		case errors.Is(err, errNotRegular):
			missing = append(missing, unprintable.Escape(p)+" (not a regular file)")
		case err != nil:
			missing = append(missing, unprintable.Escape(p))
		default:
			in[p] = f
		}
	}
	if len(missing) == 0 {
		return in, nil
	}
	in.close()
	var hints []string
	for _, m := range missing {
		if strings.HasSuffix(m, ".sigstore.json") || strings.HasSuffix(m, "checksums.txt") {
			hints = append(hints, "download checksums.txt and its .sigstore.json bundle (and, for --manifest, release-manifest.json and its bundle) from the same release as the artifacts")
			break
		}
	}
	return nil, newError(exitMissingFile, hints, "missing file: %s", strings.Join(missing, ", "))
}

// versionText is what --version prints: the verifier's own version, and the
// SHA-256 of the trusted root it embeds, so a person can tell which root a
// binary trusts.
func versionText() string {
	sum := sha256.Sum256(pinnedTrustedRoot)
	return fmt.Sprintf("stitchslop-verify %s %s %s/%s\npinned trusted root sha256 %s",
		version.Short(), runtime.Version(), runtime.GOOS, runtime.GOARCH, hex.EncodeToString(sum[:]))
}
