#!/usr/bin/env bash
# Runs every Go fuzz target of the module for FUZZTIME each (default 2s; `make fuzz` gives 60s), with
# FUZZ_WORKERS fuzzing processes a target (default: one a core; `make test`, whose -race pass
# keeps both cores busy beside it, gives 1).
# Each target starts from its seed corpus plus what earlier runs left in testdata/fuzz; a
# failing input is saved there and fails this script.
#
# Each package's instrumented test binary is built once (`go test -c -fuzz=.`) and run once per
# target, as `go test -fuzz` would run it (in the package's directory, with go's fuzz cache), so
# a package with thirty targets is linked once instead of thirty times.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2s}
workers=${FUZZ_WORKERS:-$(nproc)}
cache=$(go env GOCACHE)/fuzz
bins=$(mktemp -d)
out=$bins/out
trap 'rm -rf "$bins"' EXIT
total=0
# inputs counts the failing inputs saved for a target (0 when none was ever saved).
inputs() { if [ -d "$1" ]; then find "$1" -type f | wc -l; else echo 0; fi; }
# run fuzzes one target of the package in the current directory with its binary.
run() { "$1" -test.run='^$' -test.fuzz="^$2\$" -test.fuzztime="$fuzztime" -test.parallel="$workers" -test.fuzzcachedir="$cache/$3" </dev/null >"$out" 2>&1; }
while read -r pkg dir; do
	grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
	bin=$bins/$(echo "$pkg" | tr / _).test
	go test -c -fuzz=. -o "$bin" "$pkg"
	# The targets are read from the sources: `-test.list` would run the binary only to name them.
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$dir"/*_test.go); do
		echo "fuzz $pkg $target ($fuzztime)"
		saved=$(inputs "$dir/testdata/fuzz/$target")
		if ! (cd "$dir" && run "$bin" "$target" "$pkg"); then
			# A failure always saves its input. One that saved none is the fuzzing engine running out
			# of time around a slow execution ("context deadline exceeded" on a loaded machine): run
			# the target once more, and fail if it fails again.
			if [ "$(inputs "$dir/testdata/fuzz/$target")" -eq "$saved" ]; then
				echo "fuzz target $target of $pkg stopped without a failing input (engine timeout); running it again" >&2
				(cd "$dir" && run "$bin" "$target" "$pkg") && { total=$((total + 1)); continue; }
			fi
			cat "$out"
			echo "fuzz target $target of $pkg failed; the failing input is in $dir/testdata/fuzz/$target" >&2
			exit 1
		fi
		total=$((total + 1))
	done
done < <(go list -f '{{.ImportPath}} {{.Dir}}' ./...)
echo "fuzz: $total targets, $fuzztime each with $workers workers, 0 failures"
