#!/usr/bin/env bash
# lib.sh: helpers shared by check.sh and reproducible.sh. Source it.
set -euo pipefail

# The canonical repository; used for the placeholder remote goreleaser needs
# to read the commit when a clone has no remote.
RELEASE_REMOTE_URL=https://github.com/stitchslop/stitchslop-bridge.git

# No ANSI colours in CI logs.
export NO_COLOR=1

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

log() { printf '%s: %s\n' "$SCRIPT" "$*" >&2; }
die() {
	printf '%s: error: %s\n' "$SCRIPT" "$*" >&2
	exit 1
}

# make_workdir NAME: set WORK to a fresh temporary directory, removed when
# the script exits unless KEEP=1.
make_workdir() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	trap remove_workdir EXIT
}
remove_workdir() {
	if [[ "${KEEP:-0}" == 1 ]]; then
		log "kept $WORK"
	else
		rm -rf "$WORK"
	fi
}

# copy_checkout DST: copy the checkout (working tree and .git, so uncommitted
# files count, without dist/) to DST. goreleaser then runs in the copy: its
# dist/ and any placeholder remote never touch the real checkout.
copy_checkout() {
	local dst=$1
	mkdir -p "$dst"
	(cd "$ROOT" && tar --exclude=./dist -cf - .) | tar -xf - -C "$dst" ||
		die "copying $ROOT to $dst failed"
	[[ -d "$dst/.git" ]] || die "$ROOT is not a git checkout (goreleaser needs one)"
	if [[ -z "$(git -C "$dst" remote)" ]]; then
		# goreleaser reads the commit only when the repository has a remote.
		git -C "$dst" remote add origin "$RELEASE_REMOTE_URL"
	fi
}

# need_files PATH...: fail with a clear message when a file the archives must
# ship is missing.
need_files() {
	local f missing=()
	for f in "$@"; do
		[[ -f "$ROOT/$f" ]] || missing+=("$f")
	done
	((${#missing[@]} == 0)) || die "missing ${missing[*]} at the repository root: every release archive ships them"
}
