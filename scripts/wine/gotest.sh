#!/usr/bin/env bash
# gotest.sh: build every package's tests for windows/amd64 and run them
# under Wine.
#
#   bash scripts/wine/gotest.sh RUNNER [PACKAGE...]
#
# RUNNER is the runner scripts/wine/setup.sh printed. Each package with
# tests is built with `GOOS=windows go test -c` and run in its own
# directory (its testdata is found as on Windows) with -test.v, and its
# result printed on one line; every skipped test is printed with the
# reason it gave (the Wine limitations are detected by the tests
# themselves: internal/wine). Exits non-zero if a package fails, and
# prints a closing "N passed, N failed, N skipped" line of packages.
#
# Not run: e2e, whose harness builds the bridge with the go command, which
# the Wine prefix has no Windows build of (docs/windows-wine.md).
set -euo pipefail
die() {
	printf 'wine-gotest: error: %s\n' "$*" >&2
	exit 1
}
(($# >= 1)) || die "usage: gotest.sh RUNNER [PACKAGE...]"
run=$1
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# WINE_TEST_TIMEOUT is one package's limit; the slowest (page, mcp) take
# about a minute under Wine on two cores.
timeout=${WINE_TEST_TIMEOUT:-5m}
out=$(mktemp -d "${TMPDIR:-/tmp}/wine-gotest.XXXXXX")
trap 'rm -rf "$out"' EXIT

if (($# == 0)); then
	mapfile -t pkgs < <(GOOS=windows go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./... | grep -v '/e2e$')
	printf 'wine-gotest: not run: %s/e2e (its harness builds the bridge with the go command, which has no Windows build in the prefix)\n' "$(go list -m)"
else
	pkgs=("$@")
fi
passed=0 failed=0 skipped=0
for pkg in "${pkgs[@]}"; do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	exe="$out/$(basename "$dir").$passed.$failed.test.exe"
	if ! GOOS=windows GOARCH=amd64 go test -c -o "$exe" "$pkg" 2>"$out/build.log"; then
		cat "$out/build.log" >&2
		printf 'FAIL  %s (build)\n' "$pkg"
		failed=$((failed + 1))
		continue
	fi
	start=$(date +%s)
	rc=0
	(cd "$dir" && timeout "$timeout" "$run" "$exe" -test.v -test.timeout "$timeout") >"$out/test.log" 2>&1 || rc=$?
	secs=$(($(date +%s) - start))
	tr -d '\r' <"$out/test.log" >"$out/test.txt"
	nskip=$(grep -c -- '^ *--- SKIP' "$out/test.txt" || true)
	if ((rc == 0)); then
		printf 'ok    %s (%ds, %d skipped)\n' "$pkg" "$secs" "$nskip"
		passed=$((passed + 1))
	else
		printf 'FAIL  %s (%ds, exit %d)\n' "$pkg" "$secs" "$rc"
		grep -E -- '^ *--- FAIL|^panic|^FAIL|_test\.go:[0-9]+:' "$out/test.txt" | head -n 40 | sed 's/^/      /'
		failed=$((failed + 1))
	fi
	# Each skip and the reason the test gave (the line after --- SKIP).
	if ((nskip > 0)); then
		skipped=$((skipped + 1))
		awk '/^ *--- SKIP/ {name=$3; getline; sub(/^ +/, ""); print "      skip " name ": " $0}' "$out/test.txt"
	fi
	rm -f "$exe"
done
printf 'wine-gotest: packages under Wine: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
((failed == 0))
