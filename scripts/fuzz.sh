#!/usr/bin/env bash
# Runs every Go fuzz target of the module for FUZZTIME each (default 2s; `make fuzz` gives 60s).
# Each target starts from its seed corpus plus what earlier runs left in testdata/fuzz; a
# failing input is saved there by go test and fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2s}
total=0
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "fuzz $pkg $target ($fuzztime)"
		saved=$(ls "$dir/testdata/fuzz/$target" 2>/dev/null | wc -l)
		if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/hs-fuzz.$$ 2>&1; then
			# A failure always saves its input. One that saved none is the fuzzing engine running out
			# of time around a slow execution ("context deadline exceeded" on a loaded machine): run
			# the target once more, and fail if it fails again.
			if [ "$(ls "$dir/testdata/fuzz/$target" 2>/dev/null | wc -l)" -eq "$saved" ]; then
				echo "fuzz target $target of $pkg stopped without a failing input (engine timeout); running it again" >&2
				go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/hs-fuzz.$$ 2>&1 && { total=$((total + 1)); continue; }
			fi
			cat /tmp/hs-fuzz.$$; rm -f /tmp/hs-fuzz.$$
			echo "fuzz target $target of $pkg failed; the failing input is in $dir/testdata/fuzz/$target" >&2
			exit 1
		fi
		total=$((total + 1))
	done
done
rm -f /tmp/hs-fuzz.$$
echo "fuzz: $total targets, $fuzztime each, 0 failures"
