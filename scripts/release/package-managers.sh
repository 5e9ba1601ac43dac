#!/usr/bin/env bash
# package-managers.sh: push the Homebrew cask and the Scoop manifest that
# GoReleaser wrote, after the release is public and verified.
#
#   bash scripts/release/package-managers.sh TAG CHECKSUMS CASK SCOOP
#
# Run by the last job of .github/workflows/release.yml, with CHECKSUMS the
# checksums.txt downloaded from the public release and already verified by
# stitchslop-verify. Refuses to push unless every sha256 in CASK and SCOOP is
# an archive's line in CHECKSUMS and every URL points at TAG's release.
# Tokens come from HOMEBREW_TAP_GITHUB_TOKEN and SCOOP_BUCKET_GITHUB_TOKEN
# (secrets of the protected "package-managers" environment), handed to gh in
# its environment, never in argv.
set -euo pipefail
die() {
	printf 'package-managers: error: %s\n' "$*" >&2
	exit 1
}
(($# == 4)) || die "usage: package-managers.sh TAG CHECKSUMS CASK SCOOP"
tag=$1 checksums=$2 cask=$3 scoop=$4
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "tag $tag is not a release tag vX.Y.Z (pre-releases are never pushed)"
for f in "$checksums" "$cask" "$scoop"; do [[ -f "$f" ]] || die "missing $f"; done
: "${HOMEBREW_TAP_GITHUB_TOKEN:?package-managers: error: HOMEBREW_TAP_GITHUB_TOKEN is not set (a secret of the package-managers environment)}"
: "${SCOOP_BUCKET_GITHUB_TOKEN:?package-managers: error: SCOOP_BUCKET_GITHUB_TOKEN is not set (a secret of the package-managers environment)}"

release_url="https://github.com/stitchslop/stitchslop-bridge/releases/download/$tag/"
for f in "$cask" "$scoop"; do
	n=0
	while read -r sum; do
		grep -Eq "^$sum  stitchslop-bridge_[^ ]+\.(tar\.gz|zip)\$" "$checksums" ||
			die "$f: sha256 $sum is not an archive in the verified $checksums"
		n=$((n + 1))
	done < <(grep -Eo '[0-9a-f]{64}' "$f")
	((n > 0)) || die "$f holds no sha256"
	while read -r url; do
		[[ "$url" == "$release_url"* ]] || die "$f: URL $url is not in the $tag release"
	done < <(grep -Eo 'https://github\.com/[^" ]+' "$f" | grep '/releases/')
done

# put TOKEN_VAR REPO PATH FILE: create or update PATH in REPO with FILE.
put() {
	local token_var=$1 repo=$2 path=$3 file=$4 sha
	sha=$(GH_TOKEN=${!token_var} gh api "repos/$repo/contents/$path" --jq .sha 2>/dev/null || true)
	local args=(-X PUT "repos/$repo/contents/$path"
		-f "message=stitchslop-bridge $tag"
		-f "committer[name]=stitchslop-release-bot"
		-f "committer[email]=release-bot@users.noreply.github.com"
		-f "content=$(base64 -w0 "$file")")
	[[ -n "$sha" ]] && args+=(-f "sha=$sha")
	GH_TOKEN=${!token_var} gh api "${args[@]}" >/dev/null || die "pushing $path to $repo failed"
	printf 'package-managers: pushed %s to %s\n' "$path" "$repo" >&2
}
put HOMEBREW_TAP_GITHUB_TOKEN stitchslop/homebrew-tap Casks/stitchslop-bridge.rb "$cask"
put SCOOP_BUCKET_GITHUB_TOKEN stitchslop/scoop-bucket stitchslop-bridge.json "$scoop"
