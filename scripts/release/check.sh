#!/usr/bin/env bash
# check.sh: run the release machinery locally and check what it makes.
#
#   bash scripts/release/check.sh
#
# 1. installs goreleaser, cosign and cyclonedx-gomod from the Go module proxy
#    (once; see tools.sh),
# 2. copies the checkout to a temporary directory (adding a placeholder git
#    remote when there is none) and runs `goreleaser check` there,
# 3. runs `goreleaser release --snapshot --clean --skip=sign`: the shell
#    completions and man page (scripts/release/completions.sh), all eight
#    targets, archives, raw binaries, SBOMs (offline), the six MCP Bundles
#    (scripts/release/mcpb), checksums.txt, cask and scoop manifest,
# 4. writes release-manifest.json and checks that archives, binaries,
#    checksums.txt, SBOMs, bundles, manifest, cask and scoop agree,
#    recomputing every SHA-256, and that every archive holds exactly the
#    binary, the documents, the completions and the man page, and every
#    bundle exactly the binary, LICENSE and its manifest.json, byte for byte
#    (scripts/release/manifest check),
# 5. signs checksums.txt with a throwaway cosign key pair and verifies the
#    downloaded-release layout with stitchslop-verify --key (and cosign),
#    then checks that tampering is caught with the documented exit codes,
# 6. signs release-manifest.json the same way, checks that
#    stitchslop-verify --key --manifest accepts it and rejects it after a
#    one-byte change, and that the snapshot's manifest says it is a snapshot
#    and carries no release URL,
# 7. builds cyclonedx-gomod a second time by the recipe in tools.sh, in a
#    fresh directory with an empty build cache, and checks that the tool and
#    the SBOM it writes are byte-identical to the first,
# 8. proves the release workflow's order (scripts/release/workflowcheck:
#    the cask and scoop job needs publish; the MCP Registry is told last, by
#    that job), that every document quotes the signing identity exactly
#    (internal/releaseid), and that bundle manifests and server.json are
#    valid against the vendored MCPB and MCP Registry schemas
#    (scripts/release/mcpb tests), and that the check of step 4 refuses an
#    archive or a bundle whose binary differs from the raw binary by one
#    byte (scripts/release/manifest tests); the linux/amd64 binary, taken
#    from its bundle and from its archive, reports (version --json) the
#    SHA-256 of the raw binary's line in checksums.txt.
#
# Needs no network beyond the Go module proxy (for the first tool install).
# Set KEEP=1 to keep the temporary directory. REUSE=DIR reruns every check
# on a build kept that way (DIR is the kept .../src, holding dist/) without
# copying the checkout or running goreleaser again: for working on the
# checks, or on one deliberately broken file in DIR, in a few minutes
# instead of a full build. Exits non-zero on any failure.
set -euo pipefail
SCRIPT=release-check
# shellcheck source=scripts/release/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/release/tools.sh
source "$ROOT/scripts/release/tools.sh"

make_workdir stitchslop-release-check

need_files LICENSE README.md SECURITY.md
tools_install goreleaser cosign cyclonedx-gomod mcpb

if [[ -n "${REUSE:-}" ]]; then
	SRC=$(cd "$REUSE" && pwd) || die "REUSE=$REUSE is not a directory"
	[[ -f "$SRC/dist/artifacts.json" && -d "$SRC/.git" ]] ||
		die "REUSE=$REUSE holds no dist/artifacts.json: give the src directory of a run kept with KEEP=1"
	log "REUSE: checking the build already in $SRC/dist (no copy, no goreleaser run)"
else
	SRC="$WORK/src"
	copy_checkout "$SRC"
fi
cd "$SRC"

log "release workflow order and signing-identity quotes"
go run ./scripts/release/workflowcheck || die "the release workflow's order is wrong (above)"
go test -count=1 ./scripts/release/workflowcheck/ ./scripts/release/mcpb/ ./scripts/release/manifest/ ./internal/releaseid/ >"$WORK/test.log" 2>&1 || {
	cat "$WORK/test.log" >&2
	die "workflow or identity tests failed"
}

if [[ -z "${REUSE:-}" ]]; then
	log "goreleaser check"
	"$GORELEASER" check || die "goreleaser check failed"

	log "goreleaser release --snapshot --clean --skip=sign"
	"$GORELEASER" release --snapshot --clean --skip=sign --parallelism 2 >"$WORK/goreleaser.log" 2>&1 || {
		tail -n 40 "$WORK/goreleaser.log" >&2
		die "goreleaser snapshot release failed (log above)"
	}
fi

log "release manifest and consistency check"
go run ./scripts/release/manifest generate -dist dist
go run ./scripts/release/manifest check -dist dist
MANIFEST=dist/release-manifest.json
grep -q '^  "snapshot": true,$' "$MANIFEST" || die "$MANIFEST of a snapshot does not say \"snapshot\": true"
grep -q '^  "tag": "",$' "$MANIFEST" || die "$MANIFEST of a snapshot names a release tag"
if grep -q 'https://' "$MANIFEST"; then
	die "$MANIFEST of a snapshot carries URLs that look like a release's"
fi
grep -Eq '^  "date": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z",$' "$MANIFEST" || die "$MANIFEST has no RFC 3339 UTC date"
[[ $(sed -n 's/^  "date": "\(.*\)",$/\1/p' "$MANIFEST") == $(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ) ]] ||
	die "$MANIFEST date is not the commit time"

log "MCP Bundles: mcpb validate and unpack (mcpb CLI $MCPB_CLI_VERSION), and the unpacked binary runs"
VERSION=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$MANIFEST")
nb=0
for bundle in dist/*.mcpb; do
	target=${bundle%.mcpb}
	target=${target##*_"$VERSION"_}
	out="$WORK/bundles/$target"
	"$MCPB" unpack "$bundle" "$out" >"$WORK/mcpb.log" 2>&1 || {
		cat "$WORK/mcpb.log" >&2
		die "mcpb unpack $bundle failed"
	}
	"$MCPB" validate "$out/manifest.json" >"$WORK/mcpb.log" 2>&1 || {
		cat "$WORK/mcpb.log" >&2
		die "mcpb validate: the manifest.json of $bundle is not valid"
	}
	nb=$((nb + 1))
done
((nb == 6)) || die "dist holds $nb MCP Bundles, want 6"
exe="$WORK/bundles/linux_amd64/server/stitchslop-bridge"
[[ $("$exe" --version) == "stitchslop-bridge $VERSION "* ]] || die "the binary unpacked from the linux/amd64 bundle does not run or reports another version"
# What a running bridge reports of itself (version --json, the hello's
# bridge member) is the raw binary's line in checksums.txt, whether it was
# installed from the bundle or from the archive (docs/identity.md).
RAW_SHA=$(sed -n "s/^\([0-9a-f]\{64\}\)  stitchslop-bridge_${VERSION}_linux_amd64\$/\1/p" dist/checksums.txt)
[[ -n $RAW_SHA ]] || die "checksums.txt has no line for the linux/amd64 raw binary"
mkdir -p "$WORK/archive"
tar -xzf "dist/stitchslop-bridge_${VERSION}_linux_amd64.tar.gz" -C "$WORK/archive" stitchslop-bridge stitchslop ||
	die "the linux/amd64 archive holds no stitchslop-bridge or no stitchslop"
for installed in "$exe" "$WORK/archive/stitchslop-bridge"; do
	said=$("$installed" version --json | sed -n 's/.*"sha256":"\([0-9a-f]\{64\}\)".*/\1/p')
	[[ $said == "$RAW_SHA" ]] ||
		die "$installed reports sha256 ${said:-none}, want the raw binary's line in checksums.txt, $RAW_SHA"
done
# The Windows bundle under Wine, when .ci/run set it up (scripts/wine).
if [[ -n "${STITCHSLOP_WINE:-}" ]]; then
	got=$("$STITCHSLOP_WINE" "$WORK/bundles/windows_amd64/server/stitchslop-bridge.exe" --version 2>/dev/null | tr -d '\r') ||
		die "the binary unpacked from the windows/amd64 bundle does not start under Wine"
	[[ $got == "stitchslop-bridge $VERSION "* ]] || die "the windows/amd64 bundle's binary under Wine reports $got, want version $VERSION"
	log "windows/amd64 bundle's binary under Wine: $got"
fi

log "server.json for the MCP Registry: registry.sh (dry run) over the bundles renamed as a release"
# A snapshot has no release tag, so its bundles are copied under the
# names a release v9.9.9 would give them.
REG="$WORK/registry"
mkdir -p "$REG"
for bundle in dist/*.mcpb; do
	name=$(basename "$bundle")
	name=${name/_"$VERSION"_/_9.9.9_}
	cp "$bundle" "$REG/$name"
	printf '%s  %s\n' "$(sha256sum <"$bundle" | cut -d' ' -f1)" "$name" >>"$REG/checksums.txt"
done
REGISTRY_DRY_RUN=1 bash scripts/release/registry.sh v9.9.9 "$REG" 2>"$WORK/registry.log" || {
	cat "$WORK/registry.log" >&2
	die "registry.sh refused the bundles of a good release"
}
[[ $(grep -c '"fileSha256"' "$REG/server.json") == 6 ]] || die "server.json does not list the six bundles"
if REGISTRY_DRY_RUN=1 bash scripts/release/registry.sh v9.9.9-rc.1 "$REG" 2>/dev/null; then
	die "registry.sh accepted a pre-release tag"
fi
printf 'x' >>"$REG/$(basename "$(ls "$REG"/*_darwin_arm64.mcpb)")"
if REGISTRY_DRY_RUN=1 bash scripts/release/registry.sh v9.9.9 "$REG" 2>/dev/null; then
	die "registry.sh accepted a bundle whose SHA-256 is not its checksums.txt line"
fi

log "throwaway-key signature of checksums.txt"
KEYS="$WORK/keys"
mkdir -p "$KEYS"
# Empty password, no prompt: this key is created and thrown away here.
export COSIGN_PASSWORD=""
(cd "$KEYS" && "$COSIGN" generate-key-pair --output-key-prefix throwaway </dev/null >/dev/null 2>&1) ||
	die "cosign generate-key-pair failed"
(cd "$KEYS" && "$COSIGN" generate-key-pair --output-key-prefix other </dev/null >/dev/null 2>&1) ||
	die "cosign generate-key-pair failed"
# --use-signing-config=false and --tlog-upload=false keep cosign offline:
# a throwaway key has no business in the public transparency log.
"$COSIGN" sign-blob --key "$KEYS/throwaway.key" --use-signing-config=false --tlog-upload=false --yes \
	--bundle dist/checksums.txt.sigstore.json dist/checksums.txt </dev/null >/dev/null 2>"$WORK/cosign.log" || {
	cat "$WORK/cosign.log" >&2
	die "cosign sign-blob failed"
}
"$COSIGN" verify-blob --key "$KEYS/throwaway.pub" --insecure-ignore-tlog=true \
	--bundle dist/checksums.txt.sigstore.json dist/checksums.txt </dev/null >/dev/null 2>"$WORK/cosign.log" || {
	cat "$WORK/cosign.log" >&2
	die "cosign verify-blob rejected its own bundle"
}

"$COSIGN" sign-blob --key "$KEYS/throwaway.key" --use-signing-config=false --tlog-upload=false --yes \
	--bundle dist/release-manifest.json.sigstore.json dist/release-manifest.json </dev/null >/dev/null 2>"$WORK/cosign.log" || {
	cat "$WORK/cosign.log" >&2
	die "cosign sign-blob of the manifest failed"
}

log "stitchslop-verify over the downloaded-release layout"
go build -o "$WORK/bin/stitchslop-verify" ./cmd/stitchslop-verify
VERIFY="$WORK/bin/stitchslop-verify"
# The downloaded-release layout, which the checks below then tamper with:
# named so that, kept with KEEP=1, it is never taken for a good download.
DL="$WORK/download-tampered-by-check"
go run ./scripts/release/manifest stage -dist dist -out "$DL"
mapfile -t ASSETS < <(cut -c67- "$DL/checksums.txt")
((${#ASSETS[@]} == 38)) || die "checksums.txt lists ${#ASSETS[@]} assets, want 38 (8 archives, 16 binaries: 8 of each program, 8 SBOMs, 6 MCP Bundles)"
(cd "$DL" && "$VERIFY" --key "$KEYS/throwaway.pub" "${ASSETS[@]}") >"$WORK/verify.out" 2>&1 || {
	cat "$WORK/verify.out" >&2
	die "stitchslop-verify --key rejected the snapshot release"
}
[[ $(grep -c ': OK$' "$WORK/verify.out") == 38 ]] || {
	cat "$WORK/verify.out" >&2
	die "stitchslop-verify did not report 38 verified assets"
}
grep -q '_darwin_arm64\.mcpb: OK$' "$WORK/verify.out" || die "stitchslop-verify did not verify the darwin/arm64 MCP Bundle"
(cd "$DL" && "$VERIFY" --key "$KEYS/throwaway.pub" --installed "$WORK/archive/stitchslop-bridge") >"$WORK/verify.out" 2>&1 || {
	cat "$WORK/verify.out" >&2
	die "stitchslop-verify --installed did not recognise the binary installed from the linux/amd64 archive"
}
grep -q ": OK: byte for byte stitchslop-bridge_${VERSION}_linux_amd64, release ${VERSION}, linux/amd64\$" "$WORK/verify.out" ||
	die "stitchslop-verify --installed did not name the linux/amd64 release binary"
(cd "$DL" && "$VERIFY" --key "$KEYS/throwaway.pub" --installed "$WORK/archive/stitchslop") >"$WORK/verify.out" 2>&1 || {
	cat "$WORK/verify.out" >&2
	die "stitchslop-verify --installed did not recognise the stitchslop installed from the linux/amd64 archive"
}
grep -q ": OK: byte for byte stitchslop_${VERSION}_linux_amd64, release ${VERSION}, linux/amd64\$" "$WORK/verify.out" ||
	die "stitchslop-verify --installed did not name the linux/amd64 stitchslop release binary"

# expect_exit CODE WHAT ARGS...: stitchslop-verify must fail with CODE.
expect_exit() {
	local want=$1 what=$2 got=0
	shift 2
	(cd "$DL" && "$VERIFY" "$@") >"$WORK/verify.out" 2>&1 || got=$?
	[[ $got == "$want" ]] || {
		cat "$WORK/verify.out" >&2
		die "stitchslop-verify on $what: exit $got, want $want"
	}
}
(cd "$DL" && "$VERIFY" --key "$KEYS/throwaway.pub" --manifest release-manifest.json) >"$WORK/verify.out" 2>&1 || {
	cat "$WORK/verify.out" >&2
	die "stitchslop-verify --key --manifest rejected the signed manifest"
}
grep -q '^release-manifest.json: signature OK' "$WORK/verify.out" || die "stitchslop-verify --manifest did not report the manifest"
ARCHIVE=$(grep -m1 '_linux_amd64.tar.gz$' <(printf '%s\n' "${ASSETS[@]}"))
BUNDLE=$(grep -m1 '_windows_amd64.mcpb$' <(printf '%s\n' "${ASSETS[@]}"))
expect_exit 1 "another key" --key "$KEYS/other.pub" "$ARCHIVE"
expect_exit 1 "the keyless policy (a key-signed bundle has no certificate or log entry)" "$ARCHIVE"
cp "$DL/$ARCHIVE" "$DL/renamed.tar.gz"
expect_exit 3 "an unlisted file" --key "$KEYS/throwaway.pub" renamed.tar.gz
printf 'x' >>"$DL/$ARCHIVE"
expect_exit 4 "a tampered archive" --key "$KEYS/throwaway.pub" "$ARCHIVE"
printf 'x' >>"$DL/$BUNDLE"
expect_exit 4 "a tampered MCP Bundle" --key "$KEYS/throwaway.pub" "$BUNDLE"
expect_exit 5 "a missing file" --key "$KEYS/throwaway.pub" not-downloaded.zip
cp "$WORK/archive/stitchslop-bridge" "$WORK/rebuilt"
printf 'x' >>"$WORK/rebuilt"
expect_exit 4 "an installed binary that is no release binary" --key "$KEYS/throwaway.pub" --installed "$WORK/rebuilt"
sed -i '1s/^0/Z/;1s/^[1-9a-f]/0/;1s/^Z/1/' "$DL/checksums.txt"
expect_exit 1 "a tampered checksums.txt" --key "$KEYS/throwaway.pub" "$ARCHIVE"
# One byte of the manifest: the schema number's digit.
sed -i '0,/"schema": [0-9]/s/"schema": \([0-9]\)/"schema": 9/' "$DL/release-manifest.json"
cmp -s "$DL/release-manifest.json" dist/release-manifest.json && die "the one-byte change to the manifest did not happen"
[[ $(cmp -l "$DL/release-manifest.json" dist/release-manifest.json | wc -l) == 1 ]] || die "the manifest change is not exactly one byte"
expect_exit 1 "a manifest with one byte changed" --key "$KEYS/throwaway.pub" --manifest release-manifest.json
expect_exit 1 "the manifest under another key" --key "$KEYS/other.pub" --manifest "$(cd "$SRC" && pwd)/dist/release-manifest.json"

log "cyclonedx-gomod rebuilt by the pinned recipe, cold, writes the same SBOM"
SECOND_TOOLS="$WORK/tools-second"
SECOND=$(STITCHSLOP_TOOLS="$SECOND_TOOLS" GOCACHE="$WORK/gocache-tools" bash -c 'source scripts/release/tools.sh && install_cyclonedx_gomod') ||
	die "second build of cyclonedx-gomod failed"
[[ $(sha256sum <"$SECOND") == $(sha256sum <"$CYCLONEDX_GOMOD") ]] ||
	die "cyclonedx-gomod built twice by the recipe differs: $CYCLONEDX_GOMOD vs $SECOND"
SBOM=$(cd dist && ls -- *_linux_amd64.tar.gz.sbom.json)
(cd dist && CYCLONEDX_GOMOD="$SECOND" GOOS=linux GOARCH=amd64 CGO_ENABLED=0 GOPROXY=off GOFLAGS=-mod=readonly \
	bash ../scripts/release/sbom.sh "$WORK/second.sbom.json") || die "sbom.sh with the second cyclonedx-gomod failed"
cmp -s "dist/$SBOM" "$WORK/second.sbom.json" || die "the SBOM written by the second cyclonedx-gomod differs from dist/$SBOM"

log "OK: snapshot release of $(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' dist/release-manifest.json | head -n1) checked, signed and verified"
