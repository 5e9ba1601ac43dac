#!/usr/bin/env bash
# completions.sh: write the shell completions and the man page that every
# release archive ships.
#
#   bash scripts/release/completions.sh VERSION DATE
#
# A GoReleaser before-hook (.goreleaser.yaml), run from the repository root
# before any build. It runs the bridge's own generators,
# `stitchslop-bridge completion bash|zsh|fish|powershell` and
# `stitchslop-bridge man`, built for this machine with VERSION and DATE (the
# commit date, RFC 3339) stamped in as in the release binaries (the man
# page's header names both), and writes
#
#   build/completions/stitchslop-bridge.bash
#   build/completions/_stitchslop-bridge        (zsh)
#   build/completions/stitchslop-bridge.fish
#   build/completions/stitchslop-bridge.ps1
#   build/manpages/stitchslop-bridge.1.gz
#
# Reproducible: the generators' output depends only on the source, VERSION
# and DATE, and `gzip -n -9` stores no file name and no time, so the same
# commit gives the same bytes. build/ is removed first (nothing stale ships)
# and is git-ignored.
set -euo pipefail

die() {
	printf 'completions: error: %s\n' "$*" >&2
	exit 1
}

(($# == 2)) && [[ -n "$1" && -n "$2" ]] || die "usage: completions.sh VERSION DATE"
version=$1 date=$2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

out=build
rm -rf "$out"
mkdir -p "$out/completions" "$out/manpages" "$out/bin"

# Built for this machine whatever GOOS/GOARCH say (a cross-compiled
# generator could not run here), with the version and date the release
# binaries carry.
bin="$out/bin/stitchslop-bridge"
pkg=github.com/stitchslop/stitchslop-bridge/internal/version
GOOS= GOARCH= CGO_ENABLED=0 go build -trimpath -buildvcs=false \
	-ldflags "-X $pkg.Version=$version -X $pkg.Date=$date" \
	-o "$bin" ./cmd/stitchslop-bridge || die "building the generator failed"

# gen FILE ARGS...: FILE gets the output of `stitchslop-bridge ARGS...`,
# which must succeed and print something.
gen() {
	local file=$1
	shift
	"$bin" "$@" >"$file" || die "stitchslop-bridge $* failed"
	[[ -s "$file" ]] || die "stitchslop-bridge $* printed nothing"
}
gen "$out/completions/stitchslop-bridge.bash" completion bash
gen "$out/completions/_stitchslop-bridge" completion zsh
gen "$out/completions/stitchslop-bridge.fish" completion fish
gen "$out/completions/stitchslop-bridge.ps1" completion powershell
gen "$out/manpages/stitchslop-bridge.1" man
gzip -n -9 -f "$out/manpages/stitchslop-bridge.1"
rm -rf "$out/bin"
