#!/usr/bin/env bash
# Runs every Go fuzz target of the module for FUZZTIME each (default 2s; `make fuzz` gives 60s).
# Each target starts from its seed corpus plus what earlier runs left in testdata/fuzz; a
# failing input is saved there by go test and fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2s}
total=0
# inputs counts the failing inputs saved for a target (0 when none was ever saved).
inputs() { if [ -d "$1" ]; then find "$1" -type f | wc -l; else echo 0; fi; }
while read -r pkg dir; do
	grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
	# The targets are read from the sources: `go test -list` would build a test binary per package
	# only to name them.
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$dir"/*_test.go); do
		echo "fuzz $pkg $target ($fuzztime)"
		saved=$(inputs "$dir/testdata/fuzz/$target")
		if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" </dev/null >/tmp/hs-fuzz.$$ 2>&1; then
			# A failure always saves its input. One that saved none is the fuzzing engine running out
			# of time around a slow execution ("context deadline exceeded" on a loaded machine): run
			# the target once more, and fail if it fails again.
			if [ "$(inputs "$dir/testdata/fuzz/$target")" -eq "$saved" ]; then
				echo "fuzz target $target of $pkg stopped without a failing input (engine timeout); running it again" >&2
				go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" </dev/null >/tmp/hs-fuzz.$$ 2>&1 && { total=$((total + 1)); continue; }
			fi
			cat /tmp/hs-fuzz.$$; rm -f /tmp/hs-fuzz.$$
			echo "fuzz target $target of $pkg failed; the failing input is in $dir/testdata/fuzz/$target" >&2
			exit 1
		fi
		total=$((total + 1))
	done
done < <(go list -f '{{.ImportPath}} {{.Dir}}' ./...)
rm -f /tmp/hs-fuzz.$$
echo "fuzz: $total targets, $fuzztime each, 0 failures"
