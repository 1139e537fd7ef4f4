// Package notifier is the delivery engine's first half: a long-running part that tails the
// committed ClickHouse ledger by event_seq from its position in Postgres (notifier_position),
// matches each event against the live watches (company watches by company_id, criteria watches
// through package criteria, both through a watch index), applies the pre-send checks in the
// spec's order (the watch's max_fires_per_hour, the plan's monthly delivered-changes allowance,
// the account's hard spend cap; then a disabled endpoint fails the delivery unsent) and writes
// one delivery row per (watch, event) with the position advance in one transaction, waking the
// dispatcher (NOTIFY hs_deliveries). A blocked row keeps no body: only what shows it (watch,
// event, status); a change held at the wall under overflow queue keeps its body, unserved, for a
// replay once there is room, and one admitted past the wall under overflow overage is marked so
// its bill charges it. The wall and the cap are package admit's rule (admit.Decide), the one a
// replay that admits a delivery again is held to; the accounts' admission locks are held shared
// for the batch, so such a replay (oltp.ReplayDelivery) is counted before or after it, never
// beside it. In the same transaction it raises the allowance warnings (80% and 100% of the
// delivered-changes allowance, admit.Warnings) its admissions reached: account events, each
// delivered to every live endpoint of the customer (warnings.go).
//
// A criteria watch is matched against the event's req as a search index holds it. A batch reads
// either the read snapshot's index (events up to the snapshot's watermark) or, when the
// committed watermark it polls every CommitPoll is past both the position and the snapshot's
// watermark, a small delta index it builds at that committed watermark from the batch's reqs
// only (the fast path, fast.go): a committed cycle is matched within about CommitPoll plus one
// batch of its commit instead of after the snapshot's full rebuild. Neither passes an event the
// ClickHouse replica it reads does not hold yet: the fast path moves only to the watermark the
// replica holds every event of (analytics.PresentWatermark), and a batch's page ends before a
// position it lacks (analytics.ReadFeed), so a lagging replica delays deliveries, never skips one. Both give the same rows and
// bodies: what a match and a body ask of the index is per req and per company (fast.go says
// why), so the delta answers as the snapshot built at the same watermark would.
//
// It owns matching, the pre-send checks and writing delivery rows (SQL in package oltp). It must
// not sign, send or bill anything (package dispatch does), serve HTTP, or write ClickHouse; it
// reads the ledger only through package analytics and builds indexes only through package
// searchindex (it holds no index rules of its own).
// It learns of new work from the read snapshot (Wake, on every build) and from the committed
// watermark it polls in ClickHouse; nothing it waits for is in Postgres, so it takes no Postgres
// listener (package pglisten). Notifier follows the lifecycle contract (package lifecycle).
//
// Several serve instances each build a Notifier; the one holding the notifier lease
// (oltp.RoleNotifier, package internal/leader) runs it. Config.Fence gives each batch that
// lease's fencing token, and the batch commits only while it is still the role's lease, so an
// instance that lost the lease (paused, cut off) writes nothing after another took over; the
// position row's check (ErrPositionMoved) still keeps two writers from doubling a batch.
package notifier
