#!/usr/bin/env bash
# reproducible.sh: prove that two builds of the same commit, in different
# directories, give byte-identical release files.
#
#   bash scripts/release/reproducible.sh
#
# The checkout is copied to two temporary directories of different names and
# depths, and in each `goreleaser release --snapshot --clean --skip=sign`
# builds all eight targets with the release flags from .goreleaser.yaml. The
# two checksums.txt files, covering every raw binary, archive, SBOM and MCP
# Bundle, must be identical, and list the six bundles.
#
# Both full builds share the Go build cache. With -trimpath the compiler's
# cache keys do not include the checkout directory, so the second build
# relinks but may reuse compiled packages. To also catch nondeterminism that a
# shared cache would hide, one target (linux/amd64, REPRO_COLD_TARGET) is then
# rebuilt in each copy with its own empty GOCACHE and compared. That costs
# about a minute on two cores; REPRO_COLD=0 skips it.
#
# Set KEEP=1 to keep the temporary directory. Exits non-zero on any
# difference, with the differing files named.
set -euo pipefail
SCRIPT=reproducible
# shellcheck source=scripts/release/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/release/tools.sh
source "$ROOT/scripts/release/tools.sh"

make_workdir stitchslop-repro

need_files LICENSE README.md SECURITY.md
tools_install goreleaser cyclonedx-gomod

A="$WORK/a/stitchslop-bridge"
B="$WORK/second-build/elsewhere/x"
for dir in "$A" "$B"; do
	copy_checkout "$dir"
	log "building every target in $dir"
	(cd "$dir" && "$GORELEASER" release --snapshot --clean --skip=sign --parallelism 2) >"$WORK/build.log" 2>&1 || {
		tail -n 40 "$WORK/build.log" >&2
		die "goreleaser snapshot build in $dir failed"
	}
done

if ! diff -u "$A/dist/checksums.txt" "$B/dist/checksums.txt" >&2; then
	die "builds in $A and $B differ (lines above: - first build, + second build)"
fi
# Kept aside: the cold-cache builds below clean dist/.
cp "$A/dist/checksums.txt" "$WORK/checksums.txt"
count=$(wc -l <"$WORK/checksums.txt")
bundles=$(grep -c '\.mcpb$' "$WORK/checksums.txt" || true)
[[ $bundles == 6 ]] || die "checksums.txt lists $bundles MCP Bundles, want 6 (darwin, linux, windows; amd64, arm64)"
log "identical: all $count files in checksums.txt (raw binaries, archives, SBOMs, MCP Bundles):"
grep -v -e '\.tar\.gz' -e '\.zip' "$WORK/checksums.txt" >&2

if [[ "${REPRO_COLD:-1}" != 0 ]]; then
	target=${REPRO_COLD_TARGET:-linux_amd64}
	goos=${target%_*} goarch=${target#*_}
	for id in stitchslop-bridge stitchslop; do
		for dir in "$A" "$B"; do
			log "cold-cache build of $id for $target in $dir"
			mkdir -p "$dir.gocache"
			(cd "$dir" && GOCACHE="$dir.gocache" GOOS=$goos GOARCH=$goarch \
				"$GORELEASER" build --snapshot --clean --single-target --id "$id" --parallelism 2 \
				--output "$dir.cold-$id") >"$WORK/build.log" 2>&1 || {
				tail -n 40 "$WORK/build.log" >&2
				die "cold-cache build of $id in $dir failed"
			}
		done
		sum_a=$(sha256sum <"$A.cold-$id" | cut -d' ' -f1)
		sum_b=$(sha256sum <"$B.cold-$id" | cut -d' ' -f1)
		[[ "$sum_a" == "$sum_b" ]] || die "cold-cache builds of $id for $target differ: $sum_a vs $sum_b"
		# The cold build must also equal the release binary of the full build.
		grep -q "^$sum_a  ${id}_.*_${target}\$" "$WORK/checksums.txt" ||
			die "cold-cache build of $id for $target ($sum_a) differs from the release binary in checksums.txt"
		log "identical: cold-cache builds of $id for $target in both directories, equal to the release binary ($sum_a)"
	done
fi

log "OK: two builds in different directories are byte-identical"
