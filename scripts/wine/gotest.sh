#!/usr/bin/env bash
# gotest.sh: build every package's tests for windows/amd64 and run them
# under Wine.
#
#   bash scripts/wine/gotest.sh RUNNER PROBE.exe [PACKAGE...]
#
# RUNNER is the runner scripts/wine/setup.sh printed, PROBE.exe
# scripts/wine/probe built for windows. First the probes ask this Wine what
# it cannot do (probe dacl-kept, probe tcp-owner); then each package with
# tests is built with `GOOS=windows go test -c` and run in its own
# directory (its testdata is found as on Windows), and its events are read
# by scripts/wine/winetests, which prints the package's result, every
# failure, every skip with its reason, and every test that met a Wine
# limitation a probe found, with the limitation named. A test counts as
# skipped for a limitation only when the probe found it here and every error
# the test reported is that limitation's own (docs/windows-wine.md lists
# them). A failing package is printed with its failures; it fails the run
# only with WINE_TESTS_STRICT=1: the macOS and Windows jobs of ci.yml are
# the proof of the Windows code, and this run shows what can be seen
# before them (the step fails on its own when the binary cannot start,
# scripts/wine/smoke.sh).
#
# Not run: e2e, whose harness builds the bridge with the go command, and
# security/deps, which lists packages with it: the Wine prefix has no
# Windows build of the go command (docs/windows-wine.md).
set -euo pipefail
die() {
	printf 'wine-gotest: error: %s\n' "$*" >&2
	exit 1
}
(($# >= 2)) || die "usage: gotest.sh RUNNER PROBE.exe [PACKAGE...]"
run=$1 probe=$2
shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# WINE_TEST_TIMEOUT is one package's limit; the slowest (internal/cli,
# internal/page) take two or three minutes under Wine on two busy cores.
timeout=${WINE_TEST_TIMEOUT:-8m}
out=$(mktemp -d "${TMPDIR:-/tmp}/wine-gotest.XXXXXX")
trap 'rm -rf "$out"' EXIT
go build -o "$out/winetests" ./scripts/wine/winetests || die "building scripts/wine/winetests failed"

limits=()
rc=0
got=$("$run" "$probe" dacl-kept "Z:${out//\//\\}" | tr -d '\r') || rc=$?
case $rc in
0) printf 'wine-gotest: probe: DACLs are kept as set\n' ;;
3)
	printf 'wine-gotest: probe: this Wine does not keep a protected owner-only DACL (it reads back as %s)\n' "$got"
	limits+=(-limit "dacl=Wine does not keep the DACL a program sets (it answers one made from the Unix mode)")
	;;
*) die "probe dacl-kept failed (exit $rc): $got" ;;
esac
rc=0
got=$("$run" "$probe" tcp-owner | tr -d '\r') || rc=$?
case $rc in
0) printf 'wine-gotest: probe: the TCP table names the owner of a loopback socket\n' ;;
3)
	printf 'wine-gotest: probe: this Wine'\''s TCP table names no owner for a loopback socket (%s)\n' "$got"
	limits+=(-limit "tcp-owner=Wine's TCP table names no owning process for a socket, so no peer can be attributed")
	;;
*) die "probe tcp-owner failed (exit $rc): $got" ;;
esac

rc=0
got=$("$run" "$probe" rename-open "Z:${out//\//\\}" | tr -d '\r') || rc=$?
case $rc in
0) printf 'wine-gotest: probe: a rename replaces a file held open with FILE_SHARE_DELETE\n' ;;
3)
	printf 'wine-gotest: probe: this Wine refuses a rename over a file held open (%s)\n' "$got"
	limits+=(-limit "rename-open=Wine refuses to rename over a file another handle holds open, even with FILE_SHARE_DELETE, which Windows allows")
	;;
*) die "probe rename-open failed (exit $rc): $got" ;;
esac

if (($# == 0)); then
	mapfile -t pkgs < <(GOOS=windows go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./... | grep -v -e '/e2e$' -e '/security/deps$' -e '/scripts/trustlines$' -e '/cmd/stitchslop-bridge$' -e '/internal/demo$')
	# Their tests run the go command, which has no Windows build in the
	# prefix.
	m=$(go list -m)
	printf 'wine-gotest: not run: %s/e2e and %s/internal/demo (their tests build the bridge with the go command), %s/security/deps, %s/scripts/trustlines and %s/cmd/stitchslop-bridge (they list packages with the go command): the prefix has no Windows go\n' "$m" "$m" "$m" "$m" "$m"
else
	pkgs=("$@")
fi
passed=0 failed=0
for pkg in "${pkgs[@]}"; do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	exe="$out/pkg.test.exe"
	if ! GOOS=windows GOARCH=amd64 go test -c -o "$exe" "$pkg" 2>"$out/build.log"; then
		cat "$out/build.log" >&2
		printf 'FAIL  %s (build)\n' "$pkg"
		failed=$((failed + 1))
		continue
	fi
	start=$(date +%s)
	(cd "$dir" && timeout "$timeout" "$run" "$exe" -test.v=test2json -test.timeout "$timeout" 2>&1 || true) |
		go tool test2json -t -p "$pkg" >"$out/events.json" || true
	secs=$(($(date +%s) - start))
	rc=0
	"$out/winetests" "${limits[@]}" "$pkg" <"$out/events.json" >"$out/report" || rc=$?
	if ((rc == 0)); then
		printf 'ok    %s (%ds)\n' "$pkg" "$secs"
		passed=$((passed + 1))
	else
		printf 'FAIL  %s (%ds)\n' "$pkg" "$secs"
		failed=$((failed + 1))
	fi
	cat "$out/report"
	rm -f "$exe"
done
printf 'wine-gotest: %d of %d packages passed under Wine, %d failed (skips and Wine limitations above)\n' "$passed" "${#pkgs[@]}" "$failed"
if ((failed > 0)) && [[ ${WINE_TESTS_STRICT:-0} == 1 ]]; then
	exit 1
fi
