// Package connector benchmarks POST /v1/migration-import: a 10,000-company import (JSON and
// text/csv) through the real chain, read model and Postgres coverage requests, beside decoding and
// encoding the same bodies alone. It owns no production code and must not be imported.
package connector
