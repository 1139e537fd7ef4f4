#!/usr/bin/env bash
# make test's passes: the tests under -race (skipping RACE_FREE_RE) in the foreground; beside them
# from the start, the 2 s fuzz of every target and then the whole-world tests named in
# scripts/race-free-tests without the race detector, their output kept and printed when they end;
# then the MCP client check.
#
# Beside, because the -race pass alone left about a third of two cores idle (tests waiting on the
# stores, a package's last long test alone), and the fuzz stage is bound by time, not work: each
# target fuzzes for FUZZTIME whatever else runs (docs/decisions.md, "Tests and fuzzing").
#
# Reads from the environment: GO, RACE_FREE_RE, RACE_FREE_PKGS, TEST_FIRST (set by the Makefile),
# and the stores' HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR. Prints each pass's wall time.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
logs=$(mktemp -d)
besidepid=
cleanup() {
	[ -n "$besidepid" ] && kill -- "-$besidepid" 2>/dev/null
	rm -rf "$logs"
}
trap cleanup EXIT

# pass NAME COMMAND...: runs COMMAND, then prints its wall time and exit status.
pass() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	"$@"
	rc=$?
	echo "make test: $name: $(($(date +%s) - start)) s, exit status $rc"
	return $rc
}

# The passes beside run in a process group of their own, so that a failed pass can stop all of it.
passes_beside() {
	pass fuzz ./scripts/fuzz.sh || return 1
	# shellcheck disable=SC2086 # RACE_FREE_PKGS is a list of packages
	pass "go test (race-free tests)" "$GO" test -timeout 20m -run "$RACE_FREE_RE" $RACE_FREE_PKGS
}
set -m
passes_beside >"$logs/beside" 2>&1 &
besidepid=$!
set +m

# shellcheck disable=SC2086 # TEST_FIRST is a list of packages
pass "go test -race" "$GO" test -race -p "${TEST_PROCS:-3}" -timeout 20m -skip "$RACE_FREE_RE" $TEST_FIRST ./... || {
	echo "make test: the -race pass failed; the fuzz and race-free passes beside it were stopped" >&2
	exit 1
}
wait "$besidepid"
rc=$?
besidepid=
cat "$logs/beside"
[ $rc -eq 0 ] || exit $rc
pass mcp-check ./scripts/mcp-check.sh
