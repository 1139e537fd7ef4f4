// Package chaostest holds the chaos test: the real binary under a steady load of
// metered calls while its private Postgres and then its private ClickHouse are stopped and
// started again. It has no code of its own; see chaos_test.go.
package chaostest
