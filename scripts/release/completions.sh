#!/usr/bin/env bash
# completions.sh: write the shell completions and the man page that every
# release archive ships.
#
#   bash scripts/release/completions.sh VERSION DATE
#
# A GoReleaser before-hook (.goreleaser.yaml), run from the repository root
# before any build. It runs stitchslop's generators (the tools a person
# runs by hand; they cover both programs), `stitchslop completion
# bash|zsh|fish|powershell [PROGRAM]` and `stitchslop man [PROGRAM]`, built
# for this machine with VERSION and DATE (the commit date, RFC 3339) stamped
# in as in the release binaries (a man page's header names both), and
# writes, for PROGRAM stitchslop-bridge and stitchslop,
#
#   build/completions/PROGRAM.bash
#   build/completions/_PROGRAM        (zsh)
#   build/completions/PROGRAM.fish
#   build/completions/PROGRAM.ps1
#   build/manpages/PROGRAM.1.gz
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
bin="$out/bin/stitchslop"
pkg=github.com/stitchslop/stitchslop-bridge/internal/version
GOOS= GOARCH= CGO_ENABLED=0 go build -trimpath -buildvcs=false \
	-ldflags "-X $pkg.Version=$version -X $pkg.Date=$date" \
	-o "$bin" ./cmd/stitchslop || die "building the generator failed"

# gen FILE ARGS...: FILE gets the output of `stitchslop ARGS...`, which must
# succeed and print something.
gen() {
	local file=$1
	shift
	"$bin" "$@" >"$file" || die "stitchslop $* failed"
	[[ -s "$file" ]] || die "stitchslop $* printed nothing"
}
for prog in stitchslop-bridge stitchslop; do
	gen "$out/completions/$prog.bash" completion bash "$prog"
	gen "$out/completions/_$prog" completion zsh "$prog"
	gen "$out/completions/$prog.fish" completion fish "$prog"
	gen "$out/completions/$prog.ps1" completion powershell "$prog"
	gen "$out/manpages/$prog.1" man "$prog"
	gzip -n -9 -f "$out/manpages/$prog.1"
done
rm -rf "$out/bin"
