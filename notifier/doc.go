// Package notifier is the delivery engine's first half: a long-running part that tails the
// committed ClickHouse ledger by event_seq from its position in Postgres (notifier_position),
// matches each event against the live watches (company watches by company_id, criteria watches
// through package criteria, both through a watch index), applies the pre-send checks in the
// spec's order (the watch's max_fires_per_hour, the plan's monthly delivered-changes allowance,
// the account's hard spend cap) and writes one delivery row per (watch, event) with the position
// advance in one transaction, waking the dispatcher (NOTIFY hs_deliveries).
//
// It owns matching, the pre-send checks and writing delivery rows (SQL in package oltp). It must
// not sign, send or bill anything (package dispatch does), serve HTTP, or write ClickHouse.
// Notifier follows the lifecycle contract (package lifecycle).
package notifier
