// Command trustedroot refreshes the Sigstore trusted root that
// stitchslop-verify pins (cmd/stitchslop-verify/trusted_root.json).
//
//	go run ./scripts/release/trustedroot -out cmd/stitchslop-verify/trusted_root.json
//
// It fetches trusted_root.json from the Sigstore public-good TUF repository
// with sigstore-go's TUF client, which starts from the TUF root embedded in
// sigstore-go and checks every metadata signature and expiry on the way, so
// the file written is the one the Sigstore root-signing ceremony vouched for.
// Needs network access to tuf-repo-cdn.sigstore.dev; review the diff and
// commit it like any other change to a trust anchor.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tuf"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "trustedroot: error: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "cmd/stitchslop-verify/trusted_root.json", "file to write")
	flag.Parse()

	opts := tuf.DefaultOptions()
	// A private cache, so a stale or tampered ~/.sigstore cache plays no part.
	cache, err := os.MkdirTemp("", "trustedroot-tuf")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	opts.CachePath = cache

	client, err := tuf.New(opts)
	if err != nil {
		return fmt.Errorf("tuf: %w", err)
	}
	data, err := client.GetTarget("trusted_root.json")
	if err != nil {
		return fmt.Errorf("tuf: trusted_root.json: %w", err)
	}
	if _, err := root.NewTrustedRootFromJSON(data); err != nil {
		return fmt.Errorf("fetched trusted_root.json does not parse: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".trusted_root-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	fmt.Printf("wrote %s (%d bytes); review and commit it\n", *out, len(data))
	return nil
}
