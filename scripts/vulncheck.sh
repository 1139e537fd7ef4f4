#!/usr/bin/env bash
# Runs govulncheck over the module. The vulnerability database is built here from the
# golang.org/x/vulndb module (served by the Go module proxy) with its own indexdb command, since
# vuln.go.dev is not reachable from every build machine. Both versions are pinned: raise
# VULNDB_VERSION (`go list -m -versions golang.org/x/vulndb` lists them) to take newer advisories.
set -euo pipefail
cd "$(dirname "$0")/.."
GOVULNCHECK_VERSION=${GOVULNCHECK_VERSION:-v1.9.0}
VULNDB_VERSION=${VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}
bin=$PWD/bin
db=$bin/vulndb-$VULNDB_VERSION
govulncheck=$bin/govulncheck-$GOVULNCHECK_VERSION
if [ ! -x "$govulncheck" ]; then
	echo "building govulncheck $GOVULNCHECK_VERSION into bin/"
	tmp=$(mktemp -d); GOBIN=$tmp go install "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION"
	mv "$tmp/govulncheck" "$govulncheck"; rm -rf "$tmp"
fi
if [ ! -f "$db/index/db.json" ]; then
	echo "building the vulnerability database $VULNDB_VERSION into bin/ (once)"
	tmp=$(mktemp -d)
	GOBIN=$tmp go install "golang.org/x/vulndb/cmd/indexdb@$VULNDB_VERSION"
	src=$(cd "$tmp" && go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	rm -rf "$db.tmp"; "$tmp/indexdb" -vulns "$src/data/osv" -out "$db.tmp"; mv "$db.tmp" "$db"; rm -rf "$tmp"
fi
"$govulncheck" -db "file://$db" ./...
