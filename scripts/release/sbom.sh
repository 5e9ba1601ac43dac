#!/usr/bin/env bash
# sbom.sh: write the CycloneDX SBOM of stitchslop-bridge for GOOS/GOARCH.
#
#   bash scripts/release/sbom.sh DOCUMENT
#
# GoReleaser's sboms step runs it (.goreleaser.yaml) once per archive, from
# dist/, with GOOS, GOARCH and the Go settings in its environment; check.sh
# runs it again to compare. The cyclonedx-gomod arguments live here, once.
#
# It uses only the cyclonedx-gomod built by the recipe in tools.sh
# ($CYCLONEDX_GOMOD, or the recipe's directory under $STITCHSLOP_TOOLS), never
# one from PATH: the SBOM records the hash of the tool that wrote it. It never
# builds the tool (the release build is offline by then); when it is missing
# it says how to get it. Before the tool runs, `go list` checks that every
# package resolves offline, so a missing module cache is reported with the
# settings that were used instead of cyclonedx-gomod's "failed to list
# packages".
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
# shellcheck source=scripts/release/tools.sh
source "$SCRIPT_DIR/tools.sh"

die() {
	printf 'sbom: error: %s\n' "$1" >&2
	shift
	local h
	for h in "$@"; do printf 'hint: %s\n' "$h" >&2; done
	exit 1
}

(($# == 1)) || die "usage: sbom.sh DOCUMENT"
case $1 in
/*) document=$1 ;;
*) document="$PWD/$1" ;;
esac
: "${GOOS:?sbom: error: GOOS is not set (goreleaser sets it from .goreleaser.yaml sboms.env)}"
: "${GOARCH:?sbom: error: GOARCH is not set (goreleaser sets it from .goreleaser.yaml sboms.env)}"
command -v go >/dev/null || die "go is not on PATH" "goreleaser passes PATH through to the SBOM step; run it with Go on PATH"

want_bin="$(cyclonedx_gomod_dir)/cyclonedx-gomod"
bin=${CYCLONEDX_GOMOD:-$want_bin}
if [[ ! -x "$bin" ]]; then
	die "cyclonedx-gomod $CYCLONEDX_GOMOD_VERSION, built by the pinned recipe, is not installed (looked for $bin)" \
		"bash scripts/release/tools.sh cyclonedx-gomod builds it from the Go module proxy (once; cached under ${STITCHSLOP_TOOLS})" \
		"then run goreleaser again with CYCLONEDX_GOMOD set to the path it prints, or with the same STITCHSLOP_TOOLS"
fi
if [[ "$bin" != "$want_bin" ]]; then
	# Another build of the tool: allowed (check.sh compares one), but only
	# the pinned version.
	"$bin" version 2>&1 | grep -Eq "Version:[[:space:]]+v?${CYCLONEDX_GOMOD_VERSION#v}\$" ||
		die "$bin is not cyclonedx-gomod $CYCLONEDX_GOMOD_VERSION" "unset CYCLONEDX_GOMOD, or point it at the binary bash scripts/release/tools.sh cyclonedx-gomod prints"
fi

cd "$ROOT"
if ! listed=$(go list -deps ./cmd/stitchslop-bridge 2>&1 >/dev/null); then
	die "the packages of ./cmd/stitchslop-bridge for $GOOS/$GOARCH do not list offline: $(printf '%s\n' "$listed" | grep -v '^go: downloading ' | head -n 5)" \
		"the SBOM step runs with GOPROXY=$(go env GOPROXY) GOFLAGS=$(go env GOFLAGS) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH) GOTOOLCHAIN=$(go env GOTOOLCHAIN)" \
		"the module cache must already hold every module: run go mod download with the same GOMODCACHE first; .goreleaser.yaml passes GOMODCACHE, GOPATH, GOCACHE and GOTOOLCHAIN from the environment"
fi
exec "$bin" app -json -licenses -noserial -notimestamp -main cmd/stitchslop-bridge -output "$document" .
