#!/usr/bin/env bash
# authenticode.sh: Authenticode-sign a Windows binary in place, when the
# signing certificate exists.
#
#   bash scripts/release/authenticode.sh BINARY GOOS
#
# A GoReleaser build post-hook (.goreleaser.yaml), so the signature is in the
# binary before archives and checksums.txt are made. Does nothing for other
# GOOS. Without WINDOWS_SIGN_PFX_BASE64 (a base64 PKCS#12 file) it logs that
# the binary stays unsigned and succeeds: no Authenticode account exists yet.
# With it, osslsigncode signs with an RFC 3161 timestamp; the password is
# read from a 0600 file, never from argv.
set -euo pipefail
(($# == 2)) || { echo "authenticode: error: usage: authenticode.sh BINARY GOOS" >&2; exit 1; }
bin=$1 goos=$2
[[ "$goos" == windows ]] || exit 0
if [[ -z "${WINDOWS_SIGN_PFX_BASE64:-}" ]]; then
	echo "authenticode: skipped for $(basename "$bin"): WINDOWS_SIGN_PFX_BASE64 is not set; the binary is not Authenticode-signed" >&2
	exit 0
fi
command -v osslsigncode >/dev/null || { echo "authenticode: error: osslsigncode is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
umask 077
printf '%s' "$WINDOWS_SIGN_PFX_BASE64" | base64 -d >"$tmp/cert.pfx"
printf '%s' "${WINDOWS_SIGN_PASSWORD:-}" >"$tmp/pass"
osslsigncode sign -pkcs12 "$tmp/cert.pfx" -readpass "$tmp/pass" -h sha256 \
	-n stitchslop-bridge -i https://github.com/stitchslop/stitchslop-bridge \
	-ts http://timestamp.digicert.com -in "$bin" -out "$tmp/signed"
mv "$tmp/signed" "$bin"
echo "authenticode: signed $(basename "$bin")" >&2
