#!/usr/bin/env bash
# smoke.sh: run the Windows build under Wine as a Windows user first meets
# it, and fail when it cannot start or doctor crashes.
#
#   bash scripts/wine/smoke.sh RUNNER BRIDGE.exe TOOLS.exe PROBE.exe
#
# RUNNER is what scripts/wine/setup.sh printed; BRIDGE.exe the
# windows/amd64 build of stitchslop-bridge; TOOLS.exe that of stitchslop,
# beside it (its setup registers the bridge beside it); PROBE.exe
# scripts/wine/probe built for windows. In a fresh config directory it
# checks --version, help, setup and doctor (stitchslop's) before and after, and the bridge itself: started with a token, it
# listens, creates the config directory with an owner-only ACL, refuses a
# local peer it cannot attribute to a process (Wine's TCP table names no
# owner, so the CLI's connection is such a peer), and exits cleanly, status
# 0, when no tab comes within its idle time. See docs/windows-wine.md.
set -euo pipefail
die() {
	printf 'wine-smoke: error: %s\n' "$*" >&2
	exit 1
}
log() { printf 'wine-smoke: %s\n' "$*" >&2; }
(($# == 4)) || die "usage: smoke.sh RUNNER BRIDGE.exe TOOLS.exe PROBE.exe"
run=$1 exe=$2 tools=$3 probe=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/wine-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The config directory, as the Windows program sees it (Wine maps / to Z:).
cfg_unix="$work/cfg/.stitchslop"
cfg="Z:${cfg_unix//\//\\}"
# BRIDGE_WAIT_SECONDS bounds each wait for the bridge: its listen line
# comes within a second or two under Wine; its idle exit after
# idleMinutes (6 s) with no tab.
BRIDGE_WAIT_SECONDS=60
idleMinutes=0.1

# crashed CODE FILE: a Go panic, a runtime fatal error or a Wine-level
# fault, as opposed to an error the program reported.
crashed() {
	(($1 >= 2 && $1 != 3 && $1 != 64)) || grep -Eq '^(panic:|fatal error:|goroutine [0-9]+ \[|wine: Unhandled)' "$2"
}

out=$("$run" "$exe" --version 2>"$work/err" | tr -d '\r') || die "the Windows binary does not start under Wine: $(cat "$work/err")"
[[ $out == "stitchslop-bridge "*" windows/amd64" ]] || die "--version printed $out"
log "--version: $out"

"$run" "$exe" help >"$work/help" 2>"$work/err" || die "help failed: $(cat "$work/err")"
grep -q '^usage:' "$work/help" || die "help printed no usage"
log "help: $(grep -c . "$work/help") lines"

# setup prints its text on stderr (stdout is for --json).
"$run" "$tools" setup claude >"$work/setup" 2>&1 || die "setup failed: $(cat "$work/setup")"
grep -q 'claude mcp add stitchslop' "$work/setup" || die "setup printed no claude mcp add line"
grep -q 'PowerShell' "$work/setup" || die "setup on Windows printed no PowerShell form"
log "setup: the claude mcp add lines for PowerShell and cmd.exe"

rc=0
"$run" "$tools" doctor --config-dir "$cfg" >"$work/doctor" 2>&1 || rc=$?
if crashed "$rc" "$work/doctor"; then
	cat "$work/doctor" >&2
	die "doctor crashed (exit $rc) on a config directory that does not exist yet"
fi
log "doctor before the first run: exit $rc, $(tr -d '\r' <"$work/doctor" | tail -n 1)"

# The bridge: a one-time token (the format the bridge takes), no MCP
# client (stdin at EOF), no tab: it must listen, then stop by itself.
: >"$work/bridge.err"
STITCHSLOP_TOKEN=tok_0123456789abcdef "$run" "$exe" --config-dir "$cfg" --idle-minutes "$idleMinutes" \
	</dev/null >"$work/bridge.out" 2>"$work/bridge.err" &
bridge=$!
for ((i = 0; i < BRIDGE_WAIT_SECONDS * 10; i++)); do
	grep -q 'listening on 127\.0\.0\.1:' "$work/bridge.err" && break
	kill -0 "$bridge" 2>/dev/null || break
	sleep 0.1
done
grep -q 'listening on 127\.0\.0\.1:' "$work/bridge.err" || {
	cat "$work/bridge.err" >&2
	die "the bridge did not listen"
}
log "bridge: $(tr -d '\r' <"$work/bridge.err" | grep -m1 'listening on')"

# The owner-only ACL is judged only where a DACL can be seen: the probe
# sets one on a directory of its own and reads it back.
rc=0
probe=$("$run" "$probe" dacl-kept "Z:${work//\//\\}" | tr -d '\r') || rc=$?
if ((rc == 0)); then
	acl=$("$run" "$probe" acl "$cfg" | tr -d '\r') || die "the config directory $cfg has no protected owner-only ACL: $acl"
	log "config directory ACL: $acl"
elif ((rc == 3)); then
	log "skip: the config directory's ACL (Wine limitation, detected: a protected owner-only DACL set with SetNamedSecurityInfo reads back as $probe; this Wine answers a DACL made from the Unix mode); the directory exists, Unix mode $(stat -c %A "$cfg_unix")"
	[[ -d $cfg_unix ]] || die "the bridge did not create its config directory"
else
	die "probe dacl-kept failed (exit $rc): $probe"
fi

rc=0
"$run" "$exe" status --config-dir "$cfg" >"$work/status" 2>"$work/status.err" || rc=$?
status=$(tr -d '\r' <"$work/status")
if ((rc == 0)) && grep -q '"ok":true' <<<"$status"; then
	log "status: the CLI's connection was attributed and answered: $status"
elif ((rc == 1 || rc == 3)) && grep -q '"ok":false' <<<"$status"; then
	# Where the TCP table names no owner, either side refuses: the CLI
	# before sending its key (it says so), or the bridge when it cannot
	# attribute the connection (the CLI then sees no answer, and the
	# bridge must say why).
	log "status: refused (exit $rc), as it must be when the owner of a connection cannot be checked: $status"
	grep -q 'key was not sent' <<<"$status" || unattributed=1
else
	die "status: exit $rc, $status $(cat "$work/status.err")"
fi

rc=0
for ((i = 0; i < BRIDGE_WAIT_SECONDS * 10; i++)); do
	kill -0 "$bridge" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$bridge" 2>/dev/null && {
	kill "$bridge"
	die "the bridge did not stop within ${BRIDGE_WAIT_SECONDS}s of its idle time"
}
wait "$bridge" || rc=$?
tr -d '\r' <"$work/bridge.err" | sed 's/^/wine-smoke:   bridge: /' >&2
((rc == 0)) || die "the bridge exited $rc, want 0 (a clean stop)"
grep -q 'stopping:' "$work/bridge.err" || die "the bridge exited without saying why"
if [[ -n ${unattributed:-} ]]; then
	grep -q 'refused a connection whose owner could not be checked' "$work/bridge.err" ||
		die "status was refused, but the bridge did not say it refused a connection it could not attribute"
fi

rc=0
"$run" "$tools" doctor --config-dir "$cfg" >"$work/doctor" 2>&1 || rc=$?
if crashed "$rc" "$work/doctor"; then
	cat "$work/doctor" >&2
	die "doctor crashed (exit $rc) on the config directory the bridge created"
fi
tr -d '\r' <"$work/doctor" | sed 's/^/wine-smoke:   doctor: /' >&2
log "OK: the Windows build starts, helps, sets up, runs the bridge and stops cleanly under Wine; doctor exit $rc"
