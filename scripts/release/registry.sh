#!/usr/bin/env bash
# registry.sh: list the release in the MCP Registry, after it is public and
# verified.
#
#   bash scripts/release/registry.sh TAG DIR
#
# Run by the last job of .github/workflows/release.yml (package-managers),
# after the Homebrew cask and the Scoop manifest are pushed, with DIR the
# public release downloaded and verified by stitchslop-verify there. Writes
# DIR/server.json from DIR/checksums.txt (scripts/release/mcpb server-json:
# one mcpb package per bundle, its release URL and SHA-256), refusing unless
# every bundle in DIR has the SHA-256 it lists (-files), then publishes it
# with mcp-publisher (pinned below, built from the module proxy),
# authenticated by the job's GitHub OIDC token (id-token: write): the
# registry grants the io.github.stitchslop namespace to this organisation's
# workflows. Never for a pre-release. REGISTRY_DRY_RUN=1 stops before
# mcp-publisher (scripts/release/check.sh runs it so).
set -euo pipefail
die() {
	printf 'registry: error: %s\n' "$*" >&2
	exit 1
}
# The MCP Registry's publisher, the version whose CurrentSchemaURL is the
# schema scripts/release/mcpb/testdata/server.schema.json vendors.
MCP_PUBLISHER=github.com/modelcontextprotocol/registry/cmd/publisher@v1.5.0

(($# == 2)) || die "usage: registry.sh TAG DIR"
tag=$1 dir=$2
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "tag $tag is not a release tag vX.Y.Z (pre-releases are never listed)"
[[ -f "$dir/checksums.txt" ]] || die "missing $dir/checksums.txt"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

(cd "$root" && go run ./scripts/release/mcpb server-json -checksums "$dir/checksums.txt" \
	-version "${tag#v}" -tag "$tag" -files "$dir" -out "$dir/server.json") || die "writing server.json failed"
n=$(grep -c '"registryType": "mcpb"' "$dir/server.json" || true)
((n == 6)) || die "server.json lists $n bundles, want 6"
grep -o '"identifier": "[^"]*"' "$dir/server.json" | grep -qv "\"https://github.com/stitchslop/stitchslop-bridge/releases/download/$tag/" &&
	die "server.json names a download outside the $tag release"
if [[ ${REGISTRY_DRY_RUN:-0} == 1 ]]; then
	printf 'registry: dry run: wrote %s (%d bundles) for %s; not published\n' "$dir/server.json" "$n" "$tag" >&2
	exit 0
fi

bin=$(mktemp -d)
GOBIN="$bin" CGO_ENABLED=0 go install -trimpath "$MCP_PUBLISHER" || die "go install $MCP_PUBLISHER failed"
cd "$dir"
"$bin/publisher" login github-oidc || die "mcp-publisher login github-oidc failed"
"$bin/publisher" publish || die "mcp-publisher publish failed"
printf 'registry: published server.json (%d bundles) for %s\n' "$n" "$tag" >&2
