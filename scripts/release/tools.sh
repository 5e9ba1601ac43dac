#!/usr/bin/env bash
# tools.sh: install the release tools from the Go module proxy, once.
#
# Sourced by check.sh, reproducible.sh and sbom.sh; run on its own
# (`bash scripts/release/tools.sh [goreleaser] [cosign] [cyclonedx-gomod]`) it
# installs the named tools (all three by default) and prints their paths.
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
# The MCP Bundle CLI (npm @anthropic-ai/mcpb, built from
# modelcontextprotocol/mcpb): check.sh validates and unpacks every bundle
# with it. 2.1.2 validates manifest_version 0.3.
MCPB_CLI_VERSION=2.1.2

# How cyclonedx-gomod is built: the one recipe, used by check.sh,
# reproducible.sh, CI and the release workflow. Every SBOM records the
# SHA-256 of the cyclonedx-gomod binary that wrote it, so SBOMs are
# byte-identical only when that binary is: same version, same Go toolchain
# (go.mod's, GOTOOLCHAIN=local so nothing else is fetched), same host
# platform (CI and the release both build on ubuntu-latest, linux/amd64),
# and these settings, which no environment variable can change:
#   no cgo, no paths (-trimpath), no VCS stamp, no build ID, default
#   GOAMD64/GOARM64 levels, no GOEXPERIMENT.
CYCLONEDX_GOMOD_PKG=github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod
CYCLONEDX_GOMOD_ENV=(CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=local GOAMD64=v1 GOARM64=v8.0 GOEXPERIMENT= GOOS= GOARCH=)
CYCLONEDX_GOMOD_FLAGS=(-trimpath "-ldflags=-buildid=")

STITCHSLOP_TOOLS="${STITCHSLOP_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/stitchslop-bridge/tools}"

tools_log() { printf 'release-tools: %s\n' "$*" >&2; }
tools_die() { printf 'release-tools: error: %s\n' "$*" >&2; exit 1; }

# cyclonedx_gomod_dir: the directory the recipe above installs into. Its
# name carries the version, the Go version and a hash of the recipe, so a
# change to any of them builds a new binary instead of reusing an old one.
cyclonedx_gomod_dir() {
	local gover recipe
	gover=$(GOTOOLCHAIN=local go env GOVERSION) || tools_die "go env GOVERSION failed"
	recipe=$(printf '%s\n' "$CYCLONEDX_GOMOD_PKG@$CYCLONEDX_GOMOD_VERSION" "$gover" "${CYCLONEDX_GOMOD_ENV[@]}" "${CYCLONEDX_GOMOD_FLAGS[@]}" | sha256sum | cut -c1-12)
	printf '%s\n' "$STITCHSLOP_TOOLS/cyclonedx-gomod-$CYCLONEDX_GOMOD_VERSION-$gover-$recipe"
}

# install_cyclonedx_gomod [DIR]: build cyclonedx-gomod by the recipe into
# DIR (default: cyclonedx_gomod_dir) and print the binary's path.
install_cyclonedx_gomod() {
	go_install_into "${1:-$(cyclonedx_gomod_dir)}" cyclonedx-gomod "$CYCLONEDX_GOMOD_PKG@$CYCLONEDX_GOMOD_VERSION" \
		"${CYCLONEDX_GOMOD_ENV[@]}" -- "${CYCLONEDX_GOMOD_FLAGS[@]}"
}

# install_tool NAME PACKAGE VERSION: prints the absolute path of the binary.
# GOFLAGS from the environment (e.g. -buildvcs=false) apply; -trimpath
# keeps the tool binary independent of this machine's paths.
install_tool() {
	go_install_into "$STITCHSLOP_TOOLS/$1-$3" "$1" "$2@$3" CGO_ENABLED=0 -- -trimpath
}

# go_install_into DIR NAME PKG@VERSION [VAR=VALUE...] -- [FLAG...]: print
# the path of DIR/NAME, first building it with `go install FLAG...
# PKG@VERSION` in the environment VAR=VALUE... when it is not there yet.
go_install_into() {
	local dir=$1 name=$2 spec=$3
	shift 3
	local -a envs=()
	while (($#)) && [[ $1 != -- ]]; do
		envs+=("$1")
		shift
	done
	(($#)) && shift
	local bin="$dir/$name"
	if [[ -x "$bin" ]]; then
		printf '%s\n' "$bin"
		return 0
	fi
	tools_log "installing $spec into $dir (first run only; takes a few minutes)"
	mkdir -p "$(dirname "$dir")"
	local tmp
	tmp=$(mktemp -d "$dir.XXXXXX.tmp")
	if ! env "${envs[@]}" GOBIN="$tmp" go install "$@" "$spec" >&2; then
		rm -rf "$tmp"
		tools_die "go install $spec failed"
	fi
	# Publish with a rename so an interrupted build is never mistaken for a
	# good one; if another run published first, keep theirs.
	if ! mv -T "$tmp" "$dir" 2>/dev/null; then
		rm -rf "$tmp"
	fi
	[[ -x "$bin" ]] || tools_die "$bin missing after install"
	printf '%s\n' "$bin"
}

# install_mcpb_cli: print the path of the mcpb CLI, first installing
# @anthropic-ai/mcpb@MCPB_CLI_VERSION from the npm registry into its own
# prefix under STITCHSLOP_TOOLS (no install scripts run, nothing global).
install_mcpb_cli() {
	local dir="$STITCHSLOP_TOOLS/mcpb-cli-$MCPB_CLI_VERSION"
	local bin="$dir/node_modules/.bin/mcpb"
	if [[ -x "$bin" ]]; then
		printf '%s\n' "$bin"
		return 0
	fi
	command -v npm >/dev/null || tools_die "npm is not on PATH (apt-get install npm): the mcpb CLI is an npm package"
	tools_log "installing @anthropic-ai/mcpb@$MCPB_CLI_VERSION into $dir (first run only)"
	mkdir -p "$STITCHSLOP_TOOLS"
	local tmp
	tmp=$(mktemp -d "$dir.XXXXXX.tmp")
	if ! npm install --prefix "$tmp" --ignore-scripts --no-audit --no-fund --loglevel=error "@anthropic-ai/mcpb@$MCPB_CLI_VERSION" >&2; then
		rm -rf "$tmp"
		tools_die "npm install @anthropic-ai/mcpb@$MCPB_CLI_VERSION failed"
	fi
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
# cyclonedx-gomod, mcpb) and export GORELEASER, COSIGN, CYCLONEDX_GOMOD
# and MCPB.
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
		mcpb)
			MCPB=$(install_mcpb_cli)
			export MCPB
			;;
		cyclonedx-gomod)
			# Never one found on PATH: only the recipe's binary gives
			# reproducible SBOMs. scripts/release/sbom.sh, which
			# goreleaser's sboms step runs, reads CYCLONEDX_GOMOD.
			CYCLONEDX_GOMOD=$(install_cyclonedx_gomod)
			export CYCLONEDX_GOMOD
			;;
		*) tools_die "unknown tool $t" ;;
		esac
	done
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	(($# > 0)) || set -- goreleaser cosign cyclonedx-gomod
	tools_install "$@"
	for t in "$@"; do
		case $t in
		goreleaser) printf '%s\n' "$GORELEASER" ;;
		cosign) printf '%s\n' "$COSIGN" ;;
		cyclonedx-gomod) printf '%s\n' "$CYCLONEDX_GOMOD" ;;
		mcpb) printf '%s\n' "$MCPB" ;;
		esac
	done
fi
