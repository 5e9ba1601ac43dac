#!/usr/bin/env bash
# build.sh: build bcryptprimitives.dll (ProcessPrng over RtlGenRandom) for
# the Wine prefix that runs the Windows build in CI.
#
#   bash scripts/wine/build.sh OUT.dll
#
# Needs Debian's gcc-mingw-w64-x86-64. The DLL is a test fixture, never
# shipped; see bcryptprimitives.c and docs/windows-wine.md.
set -euo pipefail
(($# == 1)) || { echo "usage: build.sh OUT.dll" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
x86_64-w64-mingw32-gcc -O2 -Wall -Wextra -Werror -shared -s -Wl,--no-insert-timestamp \
	-o "$1" "$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32
