// Package chaostest holds the tests of the real binary under faults: a steady load of metered
// calls while its private Postgres and then its private ClickHouse are stopped and started again
// (chaos_test.go), and a notifier and dispatcher killed at each step of a push, which must neither
// lose, double nor bill twice (push_crash_test.go). It has no code of its own and nothing imports
// it.
package chaostest
