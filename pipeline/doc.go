// Package pipeline owns the crawl: for one region at one tick it fetches every source of the
// directory, parses each page with its format adapter (pipeline/ats), normalizes postings
// (pipeline/normalize), deduplicates them into reqs (one per company, title and country, all boards
// listed), diffs them against the ledger state (opened, reobserved, reposted, closed) and emits the
// events and sightings to ClickHouse in batches, committing the cycle last.
//
// Stages are bounded goroutine pools joined by bounded channels, so a slow stage holds back the one
// before it. A source that fails is unknown, never empty: none of its reqs is closed. A cycle is
// idempotent: a committed (region, tick) is skipped, and a crashed one is recomputed from the
// committed ledger and overwrites its own partial rows.
//
// It must not serve HTTP or touch Postgres: reads belong to api, accounts to oltp.
package pipeline
