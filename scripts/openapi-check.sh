#!/usr/bin/env bash
# scripts/openapi-check.sh: checks the API's document and live answers with outside validators
# (from the npm registry; node and npm from Debian when missing). The sweep test
# (api.TestEveryRouteAnswersItsDocumentStrictly: every route, valid and error calls, over a
# crawled world; needs the stores, as make test) writes the document and its answers; then
# @seriousme/openapi-schema-validator validates the document against the OpenAPI 3.1 schema and
# Ajv (JSON Schema 2020-12) validates each answer against its operation's schema for its status.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v npm >/dev/null 2>&1 || ./scripts/deps.sh nodejs npm
(cd scripts/openapi-check && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
HS_SWEEP_DIR="$out" go test ./api/ -run '^TestEveryRouteAnswersItsDocumentStrictly$' -count=1
node scripts/openapi-check/document.mjs "$out/openapi.json"
node scripts/openapi-check/answers.mjs "$out/openapi.json" "$out/answers.jsonl"
