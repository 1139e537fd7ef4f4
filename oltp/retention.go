package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Retired rows: a revoked key, a deleted webhook endpoint and a canceled watch keep their rows
// (deliveries, rotations and usage may name them), and the creation budgets bound how fast they
// come, not how many stay; a blocked delivery is written per matched event past a watch's limits.
// PruneRetired deletes those past their retention that nothing names any more, for a periodic job
// (the API server's janitor) to call.

// Retention of retired rows, counted from revoked_at, deleted_at and canceled_at. A revoked key is
// kept past the longest usage window (90 days), so a usage answer never names a key GET /v1/keys
// cannot list; a watch is kept past its fire counters' longest span (30 days).
const (
	RevokedKeyRetention      = 180 * 24 * time.Hour
	DeletedEndpointRetention = 30 * 24 * time.Hour
	CanceledWatchRetention   = 30 * 24 * time.Hour
	// BlockedDeliveryRetention keeps a blocked delivery (rate_limited, wall_blocked, cap_blocked:
	// no body, never sent, not replayable) for this and the previous billing month's answers:
	// GET /v1/webhook-deliveries lists it and the usage dashboard counts it by month.
	BlockedDeliveryRetention = 62 * 24 * time.Hour
)

// MaxPrunedPerRun bounds the rows of each table one PruneRetired deletes, so one run stays short
// whatever piled up; the next run takes the rest.
const MaxPrunedPerRun = 10_000

// Pruned counts what one PruneRetired deleted.
type Pruned struct {
	Watches, Endpoints, Keys, Quickstarts, BlockedDeliveries int64
}

// PruneRetired deletes, as of now, at most MaxPrunedPerRun of each: blocked deliveries past
// BlockedDeliveryRetention (a watch matching everything writes one per event past its limits),
// canceled watches past
// CanceledWatchRetention that no delivery names (with their fires), the quickstarts rows whose
// watch is gone, deleted endpoints past DeletedEndpointRetention that no watch or delivery names,
// and revoked keys past RevokedKeyRetention that no other key (parent_key_id, limit_id) or watch
// names. A key whose rotation replacement lives on stays (its lineage names it), as does anything
// a delivery names.
func PruneRetired(ctx context.Context, pool *pgxpool.Pool, now time.Time) (Pruned, error) {
	var p Pruned
	// Blocked deliveries first: a canceled watch or a deleted endpoint they name goes in this run.
	tag, err := pool.Exec(ctx, `DELETE FROM webhook_deliveries WHERE delivery_id IN (
			SELECT delivery_id FROM webhook_deliveries WHERE status IN ('rate_limited', 'wall_blocked', 'cap_blocked') AND created_at < $1
			ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`, now.Add(-BlockedDeliveryRetention), MaxPrunedPerRun)
	if err != nil {
		return p, fmt.Errorf("cannot delete blocked webhook deliveries past their retention: %w", err)
	}
	p.BlockedDeliveries = tag.RowsAffected()
	tag, err = pool.Exec(ctx, `WITH doomed AS (
			SELECT watch_id FROM watches w WHERE canceled_at < $1
				AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.watch_id = w.watch_id)
			ORDER BY canceled_at LIMIT $2 FOR UPDATE SKIP LOCKED
		), fires AS (
			DELETE FROM watch_fires WHERE watch_id IN (SELECT watch_id FROM doomed)
		)
		DELETE FROM watches WHERE watch_id IN (SELECT watch_id FROM doomed)`, now.Add(-CanceledWatchRetention), MaxPrunedPerRun)
	if err != nil {
		return p, fmt.Errorf("cannot delete canceled watches past their retention: %w", err)
	}
	p.Watches = tag.RowsAffected()
	// A quickstart whose watch is gone would set up again anyway; without its row it counts as a
	// new quickstart of the url. A row Quickstart holds (FOR UPDATE) is skipped.
	tag, err = pool.Exec(ctx, `DELETE FROM quickstarts WHERE ctid IN (
			SELECT q.ctid FROM quickstarts q WHERE NOT EXISTS (SELECT 1 FROM watches w WHERE w.watch_id = q.watch_id)
			LIMIT $1 FOR UPDATE SKIP LOCKED)`, MaxPrunedPerRun)
	if err != nil {
		return p, fmt.Errorf("cannot delete quickstarts whose watch is gone: %w", err)
	}
	p.Quickstarts = tag.RowsAffected()
	tag, err = pool.Exec(ctx, `DELETE FROM webhook_endpoints WHERE endpoint_id IN (
			SELECT endpoint_id FROM webhook_endpoints e WHERE deleted_at < $1
				AND NOT EXISTS (SELECT 1 FROM watches w WHERE w.endpoint_id = e.endpoint_id)
				AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id)
			ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED)`, now.Add(-DeletedEndpointRetention), MaxPrunedPerRun)
	if err != nil {
		return p, fmt.Errorf("cannot delete deleted webhook endpoints past their retention: %w", err)
	}
	p.Endpoints = tag.RowsAffected()
	tag, err = pool.Exec(ctx, `DELETE FROM api_keys WHERE key_id IN (
			SELECT key_id FROM api_keys k WHERE revoked_at < $1
				AND NOT EXISTS (SELECT 1 FROM api_keys c WHERE c.parent_key_id = k.key_id)
				AND NOT EXISTS (SELECT 1 FROM api_keys c WHERE c.limit_id = k.key_id)
				AND NOT EXISTS (SELECT 1 FROM watches w WHERE w.key_id = k.key_id)
			ORDER BY revoked_at LIMIT $2 FOR UPDATE SKIP LOCKED)`, now.Add(-RevokedKeyRetention), MaxPrunedPerRun)
	if err != nil {
		return p, fmt.Errorf("cannot delete revoked keys past their retention: %w", err)
	}
	p.Keys = tag.RowsAffected()
	return p, nil
}
