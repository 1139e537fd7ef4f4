package deliverykit

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Work is what a sender asked of Postgres in one round, counted independently of the machine's
// load: round trips (a query, an Exec, a batch or a COPY each; every one is its own transaction
// and commit here, no sender opens one explicitly), statements (a batch counts its queries),
// and, from the schema's own statistics views, the rows written and the buffer pages (heap,
// index, TOAST) the server read to do it.
type Work struct {
	RoundTrips, Statements int64
	Inserted, Updated, HOT int64            // tuples inserted, updated, of those heap-only (HOT)
	Pages                  int64            // buffer pages hit or read, tables and their indexes
	ByRelation             map[string]int64 // the pages by table (heap and TOAST) and by index
}

// tracer counts the round trips and statements of a pool.
type tracer struct{ roundTrips, statements atomic.Int64 }

func (t *tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	t.roundTrips.Add(1)
	t.statements.Add(1)
	return ctx
}
func (t *tracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (t *tracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	t.roundTrips.Add(1)
	return ctx
}
func (t *tracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	t.statements.Add(1)
}
func (t *tracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
func (t *tracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	t.roundTrips.Add(1)
	t.statements.Add(1)
	return ctx
}
func (t *tracer) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}

// tracedPool is a pool like base (same server, schema and settings) whose calls t counts.
func tracedPool(ctx context.Context, base *pgxpool.Pool, t *tracer) (*pgxpool.Pool, error) {
	cfg := base.Config()
	cfg.ConnConfig.Tracer = t
	return pgxpool.NewWithConfig(ctx, cfg)
}

// tableWork reads the schema's cumulative statistics. Backends report them at most once a
// second and at exit, so callers close the pools whose work is to be counted first (settle).
func tableWork(ctx context.Context, pool *pgxpool.Pool) (Work, error) {
	var w Work
	err := pool.QueryRow(ctx, `SELECT COALESCE(sum(t.n_tup_ins), 0)::int8, COALESCE(sum(t.n_tup_upd), 0)::int8, COALESCE(sum(t.n_tup_hot_upd), 0)::int8,
			COALESCE(sum(s.heap_blks_hit + s.heap_blks_read + COALESCE(s.idx_blks_hit, 0) + COALESCE(s.idx_blks_read, 0)
				+ COALESCE(s.toast_blks_hit, 0) + COALESCE(s.toast_blks_read, 0) + COALESCE(s.tidx_blks_hit, 0) + COALESCE(s.tidx_blks_read, 0)), 0)::int8
		FROM pg_stat_user_tables t JOIN pg_statio_user_tables s USING (relid)
		WHERE t.schemaname = current_schema()`).Scan(&w.Inserted, &w.Updated, &w.HOT, &w.Pages)
	if err != nil {
		return Work{}, fmt.Errorf("cannot read the schema's statistics: %w", err)
	}
	rows, err := pool.Query(ctx, `SELECT relname, heap_blks_hit + heap_blks_read + COALESCE(toast_blks_hit, 0) + COALESCE(toast_blks_read, 0)
			+ COALESCE(tidx_blks_hit, 0) + COALESCE(tidx_blks_read, 0)
		FROM pg_statio_user_tables WHERE schemaname = current_schema()
		UNION ALL
		SELECT indexrelname, idx_blks_hit + idx_blks_read FROM pg_statio_user_indexes WHERE schemaname = current_schema()`)
	if err != nil {
		return Work{}, fmt.Errorf("cannot read the schema's statistics: %w", err)
	}
	w.ByRelation = map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			rows.Close()
			return Work{}, fmt.Errorf("cannot read the schema's statistics: %w", err)
		}
		w.ByRelation[name] = n
	}
	if err := rows.Err(); err != nil {
		return Work{}, fmt.Errorf("cannot read the schema's statistics: %w", err)
	}
	return w, nil
}

// settle closes every connection of pool (a backend reports its statistics when it exits) and
// gives the exits a moment.
func settle(pool *pgxpool.Pool) {
	pool.Reset()
	time.Sleep(time.Second)
}

func (w Work) minus(o Work) Work {
	by := map[string]int64{}
	for k, v := range w.ByRelation {
		if d := v - o.ByRelation[k]; d != 0 {
			by[k] = d
		}
	}
	return Work{RoundTrips: w.RoundTrips - o.RoundTrips, Statements: w.Statements - o.Statements, Inserted: w.Inserted - o.Inserted,
		Updated: w.Updated - o.Updated, HOT: w.HOT - o.HOT, Pages: w.Pages - o.Pages, ByRelation: by}
}

// logByRelation logs (debug) where a round's pages went, per delivery, the largest first.
func logByRelation(log *slog.Logger, name string, n int, w Work) {
	type rel struct {
		name  string
		pages int64
	}
	var rs []rel
	for k, v := range w.ByRelation {
		rs = append(rs, rel{k, v})
	}
	slices.SortFunc(rs, func(a, b rel) int { return cmp.Compare(b.pages, a.pages) })
	for _, r := range rs {
		log.Debug("postgres pages per delivery", "sender", name, "relation", r.name, "pages", float64(r.pages)/float64(n))
	}
}
