#!/usr/bin/env bash
# sbom.sh: write the CycloneDX SBOM of stitchslop-bridge for GOOS/GOARCH.
#
#   bash scripts/release/sbom.sh DOCUMENT
#   bash scripts/release/sbom.sh --fetch   # online, before the release build
#
# GoReleaser's sboms step runs it (.goreleaser.yaml) once per archive, from
# dist/, with GOOS, GOARCH and the Go settings in its environment; check.sh
# runs it again to compare. The cyclonedx-gomod arguments live here, once.
#
# It uses only the cyclonedx-gomod built by the recipe in tools.sh
# ($CYCLONEDX_GOMOD, or the recipe's directory under $STITCHSLOP_TOOLS), never
# one from PATH: the SBOM records the hash of the tool that wrote it. It never
# builds the tool (the release build is offline by then); when it is missing
# it says how to get it. Before the tool runs, module_inputs checks that what
# the tool reads through go is in the module cache, so a missing one is
# reported with the settings that were used instead of cyclonedx-gomod's
# "failed to list packages" or "failed to apply module graph".
#
# --fetch runs the same module_inputs with the proxy reachable, which fills
# the module cache with exactly that: .goreleaser.yaml's first before hook,
# so a fresh clone with an empty module cache gets through the offline step.
# (The build alone fetches only the modules the binary is built from; the
# module graph also needs the go.mod of every test-only module.)
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

# module_inputs runs what cyclonedx-gomod runs through go: the packages of
# the binary for GOOS/GOARCH (go list -deps) and the whole module graph (go
# mod graph, which reads every module's go.mod, test-only ones included).
module_inputs() {
	(cd "$ROOT" && go list -deps ./cmd/stitchslop-bridge >/dev/null && go mod graph >/dev/null)
}

(($# == 1)) || die "usage: sbom.sh DOCUMENT | --fetch"
if [[ $1 == --fetch ]]; then
	module_inputs || die "could not fetch the modules the SBOM step reads (GOPROXY=$(go env GOPROXY))"
	exit 0
fi
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
if ! listed=$(module_inputs 2>&1); then
	die "the packages of ./cmd/stitchslop-bridge for $GOOS/$GOARCH or the module graph do not resolve offline: $(printf '%s\n' "$listed" | grep -v '^go: downloading ' | head -n 5)" \
		"the SBOM step runs with GOPROXY=$(go env GOPROXY) GOFLAGS=$(go env GOFLAGS) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH) GOTOOLCHAIN=$(go env GOTOOLCHAIN)" \
		"the module cache must already hold every module: run bash scripts/release/sbom.sh --fetch (or go mod download) with the same GOMODCACHE first; .goreleaser.yaml passes GOMODCACHE, GOPATH, GOCACHE and GOTOOLCHAIN from the environment"
fi
exec "$bin" app -json -licenses -noserial -notimestamp -main cmd/stitchslop-bridge -output "$document" .
