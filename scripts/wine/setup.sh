#!/usr/bin/env bash
# setup.sh: make a Wine prefix in which Go 1.26 Windows binaries run, and
# print the path of the runner for it.
#
#   WINE_RUN=$(bash scripts/wine/setup.sh DIR)
#   "$WINE_RUN" program.exe args...
#
# Needs Debian's wine64 and gcc-mingw-w64-x86-64 (.ci/run installs them).
# DIR/prefix is created with wineboot; bcryptprimitives.dll (ProcessPrng
# over RtlGenRandom, which Debian's Wine 8 lacks and the Go runtime needs at
# start; bcryptprimitives.c) is built and put in its system32. DIR/run is a
# runner: it runs a Windows program in that prefix with Wine's own debug
# output off and the Mono and Gecko installers (which would reach for the
# network) disabled, and exits with the program's status.
# See docs/windows-wine.md.
set -euo pipefail
die() {
	printf 'wine-setup: error: %s\n' "$*" >&2
	exit 1
}
(($# == 1)) || die "usage: setup.sh DIR"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$1"
dir=$(cd "$1" && pwd)
# Debian installs the 64-bit loader here and no wine64 on PATH.
wine=/usr/lib/wine/wine64
[[ -x $wine ]] || wine=$(command -v wine64 || true)
[[ -n $wine && -x $wine ]] || die "no wine64 (apt-get install wine64)"
command -v x86_64-w64-mingw32-gcc >/dev/null || die "no x86_64-w64-mingw32-gcc (apt-get install gcc-mingw-w64-x86-64)"

cat >"$dir/run" <<RUN
#!/bin/sh
# Made by scripts/wine/setup.sh: run a Windows program in $dir/prefix.
WINEPREFIX='$dir/prefix' WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=' exec '$wine' "\$@"
RUN
chmod 0755 "$dir/run"

if [[ ! -f "$dir/prefix/system.reg" ]]; then
	"$dir/run" wineboot -i >"$dir/wineboot.log" 2>&1 || {
		cat "$dir/wineboot.log" >&2
		die "wineboot failed"
	}
	# wineboot returns before wineserver has written the registry.
	WINEPREFIX="$dir/prefix" "$(dirname "$wine")/wineserver" -w || true
fi
bash "$here/build.sh" "$dir/prefix/drive_c/windows/system32/bcryptprimitives.dll" || die "building bcryptprimitives.dll failed"
printf '%s\n' "$dir/run"
