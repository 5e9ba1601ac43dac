package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const usageText = `usage: stitchslop-verify [flags] <artifact>...

Verify downloaded stitchslop-bridge release files.

checksums.txt must be signed (keyless, Sigstore) by the release workflow
  https://github.com/stitchslop/stitchslop-bridge/.github/workflows/release.yml
running on a v* tag, with OIDC issuer https://token.actions.githubusercontent.com,
logged in Rekor and chained to the pinned Sigstore trusted root. Then every
<artifact> must be listed in checksums.txt with a matching SHA-256.

flags:
  --checksums FILE     checksums file (default: checksums.txt next to the first artifact)
  --bundle FILE        Sigstore bundle for it (default: <checksums>.sigstore.json)
  --trusted-root FILE  Sigstore trusted_root.json to use instead of the pinned one
  --key PUB            verify with this PEM public key instead of the keyless
                       identity policy (for self-signed builds; no log required)
  -h, --help           print this help

exit codes:
  0   every artifact verified
  1   signature invalid (bad signature, log entry, certificate chain or
      timestamps; malformed bundle or checksums file)
  2   identity mismatch (valid signature, but not by the release workflow)
  3   artifact not listed in checksums.txt
  4   checksum mismatch
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
	if err := ctx.Err(); err != nil {
		return err
	}

	if err := checkFilesExist(opts); err != nil {
		return err
	}

	ver, err := newVerifier(opts)
	if err != nil {
		return err
	}

	sums, signer, err := ver.verifyChecksums(opts.checksums, opts.bundle)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: signature OK (%s)\n", filepath.Base(opts.checksums), signer)

	return checkArtifacts(ctx, sums, opts.checksums, opts.artifacts, stdout)
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

	if len(opts.artifacts) == 0 {
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
		opts.checksums = filepath.Join(filepath.Dir(opts.artifacts[0]), "checksums.txt")
	}
	if opts.bundle == "" {
		opts.bundle = opts.checksums + ".sigstore.json"
	}
	return &opts, nil
}

// checkFilesExist reports every missing input at once, so a person who
// forgot to download the bundle and one archive learns both in one go.
func checkFilesExist(opts *options) error {
	paths := []string{opts.checksums, opts.bundle}
	if opts.trustedRoot != "" {
		paths = append(paths, opts.trustedRoot)
	}
	if opts.key != "" {
		paths = append(paths, opts.key)
	}
	paths = append(paths, opts.artifacts...)

	var missing []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			missing = append(missing, p)
		case !fi.Mode().IsRegular():
			missing = append(missing, p+" (not a regular file)")
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var hints []string
	for _, m := range missing {
		if strings.HasSuffix(m, ".sigstore.json") || strings.HasSuffix(m, "checksums.txt") {
			hints = append(hints, "download checksums.txt and checksums.txt.sigstore.json from the same release as the artifacts")
			break
		}
	}
	return newError(exitMissingFile, hints, "missing file: %s", strings.Join(missing, ", "))
}
