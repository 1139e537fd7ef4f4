package oltp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SchemaChange is one recorded change of the API description.
type SchemaChange struct {
	ID               int64     `json:"id"`
	RecordedAt       time.Time `json:"recorded_at"`
	APIVersion       string    `json:"api_version"`
	DocHash          string    `json:"doc_hash"`
	EndpointsChanged []string  `json:"endpoints_changed"`
}

// RecordSchema compares the document hash with the last recorded one and, when it differs,
// records a change listing the endpoints ("METHOD /path") whose operation hash was added,
// removed or changed. ops maps endpoint to the hash of its operation. A document that differs
// with no endpoint changed (its operations hash as the last entry's) records nothing: the log
// has no entry without a change. Concurrent instances serialise on a lock, so one change is
// recorded once. It returns the change recorded, if any.
func RecordSchema(ctx context.Context, pool *pgxpool.Pool, version, docHash string, ops map[string]string) (*SchemaChange, error) {
	var out *SchemaChange
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('schema-changelog'))"); err != nil {
			return fmt.Errorf("cannot lock the schema changelog: %w", err)
		}
		var lastHash string
		var lastOps map[string]string
		err := tx.QueryRow(ctx, "SELECT doc_hash, operations FROM schema_changelog ORDER BY id DESC LIMIT 1").Scan(&lastHash, &lastOps)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("cannot read the schema changelog: %w", err)
		}
		if lastHash == docHash {
			return nil
		}
		var changed []string
		for ep, h := range ops {
			if lastOps[ep] != h {
				changed = append(changed, ep)
			}
		}
		for ep := range lastOps {
			if _, ok := ops[ep]; !ok {
				changed = append(changed, ep)
			}
		}
		sort.Strings(changed)
		if len(changed) == 0 {
			return nil // the document differs outside its operations: no endpoint changed
		}
		opsJSON, err := json.Marshal(ops)
		if err != nil {
			return err
		}
		c := SchemaChange{APIVersion: version, DocHash: docHash, EndpointsChanged: changed}
		err = tx.QueryRow(ctx, `INSERT INTO schema_changelog (api_version, doc_hash, operations, endpoints_changed)
			VALUES ($1, $2, $3, $4) ON CONFLICT (doc_hash) DO UPDATE SET doc_hash = EXCLUDED.doc_hash
			RETURNING id, recorded_at`, version, docHash, opsJSON, changed).Scan(&c.ID, &c.RecordedAt)
		if err != nil {
			return fmt.Errorf("cannot record the schema change: %w", err)
		}
		out = &c
		return nil
	})
	return out, err
}

// SchemaChanges lists recorded changes, newest first, at most limit.
func SchemaChanges(ctx context.Context, pool *pgxpool.Pool, limit int) ([]SchemaChange, error) {
	rows, err := pool.Query(ctx, `SELECT id, recorded_at, api_version, doc_hash, endpoints_changed FROM schema_changelog
		ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("cannot list schema changes: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (SchemaChange, error) {
		var c SchemaChange
		err := r.Scan(&c.ID, &c.RecordedAt, &c.APIVersion, &c.DocHash, &c.EndpointsChanged)
		return c, err
	})
}
