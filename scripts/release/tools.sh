#!/usr/bin/env bash
# tools.sh: install the release tools from the Go module proxy, once.
#
# Sourced by check.sh and reproducible.sh, which call tools_install; run on
# its own (`bash scripts/release/tools.sh`) it installs all three.
# Each tool is built with `go install` into its own versioned directory under
# $STITCHSLOP_TOOLS (default: ~/.cache/stitchslop-bridge/tools), so a second run,
# or a later CI run on the same machine, reuses the binary instead of spending
# minutes compiling it again. Nothing is written inside the checkout.
#
set -euo pipefail

# Pinned versions. Bump deliberately; the directory name carries the version
# so a bump rebuilds.
GORELEASER_VERSION=v2.15.1
# cosign v3: its default output is the Sigstore bundle format (v0.3 JSON)
# that sigstore-go, and so stitchslop-verify, reads. v3.1.3 builds on Go 1.26.
COSIGN_VERSION=v3.1.3
CYCLONEDX_GOMOD_VERSION=v1.10.0

STITCHSLOP_TOOLS="${STITCHSLOP_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/stitchslop-bridge/tools}"

tools_log() { printf 'release-tools: %s\n' "$*" >&2; }
tools_die() { printf 'release-tools: error: %s\n' "$*" >&2; exit 1; }

# install_tool NAME PACKAGE VERSION: prints the absolute path of the binary.
install_tool() {
	local name=$1 pkg=$2 version=$3
	local dir="$STITCHSLOP_TOOLS/$name-$version"
	local bin="$dir/$name"
	if [[ -x "$bin" ]]; then
		printf '%s\n' "$bin"
		return 0
	fi
	tools_log "installing $pkg@$version into $dir (first run only; takes a few minutes)"
	mkdir -p "$STITCHSLOP_TOOLS"
	local tmp
	tmp=$(mktemp -d "$dir.XXXXXX.tmp")
	# GOFLAGS from the environment (e.g. -buildvcs=false) apply; -trimpath
	# keeps the tool binary independent of this machine's paths.
	if ! GOBIN="$tmp" CGO_ENABLED=0 go install -trimpath "$pkg@$version" >&2; then
		rm -rf "$tmp"
		tools_die "go install $pkg@$version failed"
	fi
	# Publish with a rename so an interrupted build is never mistaken for a
	# good one; if another run published first, keep theirs.
	if ! mv -T "$tmp" "$dir" 2>/dev/null; then
		rm -rf "$tmp"
	fi
	[[ -x "$bin" ]] || tools_die "$bin missing after install"
	printf '%s\n' "$bin"
}

# tool_on_path NAME VERSION ARGS...: print the path of NAME on PATH if running
# it with ARGS reports exactly VERSION (e.g. goreleaser installed by
# goreleaser-action in GitHub CI), so it need not be compiled again.
tool_on_path() {
	local name=$1 version=$2 bin out
	shift 2
	bin=$(command -v "$name" 2>/dev/null) || return 1
	out=$("$bin" "$@" 2>&1) || return 1
	grep -Eq "Version:[[:space:]]+v?${version#v}\$" <<<"$out" || return 1
	printf '%s\n' "$bin"
}

# tools_install NAME...: install the named tools (goreleaser, cosign,
# cyclonedx-gomod) and export GORELEASER, COSIGN and CYCLONEDX_GOMOD.
tools_install() {
	command -v go >/dev/null || tools_die "go is not on PATH"
	local t
	for t in "$@"; do
		case $t in
		goreleaser)
			GORELEASER=$(tool_on_path goreleaser "$GORELEASER_VERSION" --version) ||
				GORELEASER=$(install_tool goreleaser github.com/goreleaser/goreleaser/v2 "$GORELEASER_VERSION")
			export GORELEASER
			;;
		cosign)
			COSIGN=$(tool_on_path cosign "$COSIGN_VERSION" version) ||
				COSIGN=$(install_tool cosign github.com/sigstore/cosign/v3/cmd/cosign "$COSIGN_VERSION")
			export COSIGN
			;;
		cyclonedx-gomod)
			CYCLONEDX_GOMOD=$(tool_on_path cyclonedx-gomod "$CYCLONEDX_GOMOD_VERSION" version) ||
				CYCLONEDX_GOMOD=$(install_tool cyclonedx-gomod github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod "$CYCLONEDX_GOMOD_VERSION")
			# goreleaser's sboms: step runs it by name.
			PATH="$(dirname "$CYCLONEDX_GOMOD"):$PATH"
			export CYCLONEDX_GOMOD PATH
			;;
		*) tools_die "unknown tool $t" ;;
		esac
	done
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	tools_install goreleaser cosign cyclonedx-gomod
	printf '%s\n' "$GORELEASER" "$COSIGN" "$CYCLONEDX_GOMOD"
fi
