package sources_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// statements counts what a pool asks Postgres: every statement (batched ones each) and every
// round trip (a batch is one).
type statements struct{ stmts, trips atomic.Int64 }

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	s.stmts.Add(1)
	s.trips.Add(1)
	return ctx
}
func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	s.trips.Add(1)
	return ctx
}
func (s *statements) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	s.stmts.Add(1)
}
func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TestAWorkerStoresItsReadsInBatches: a worker reading 40 Greenhouse boards through 4 fetch slots
// stores each read on its own with StoreBatch 1 (a transaction each: 40 stores), and in a few
// batches by size or age with the defaults, asking Postgres far fewer statements and round trips
// for the same 40 reads stored.
func TestAWorkerStoresItsReadsInBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mux := http.NewServeMux()
	csv := "domain,name,vendor,tenant,hq_country\n"
	const boards = 40
	for i := range boards {
		tenant := fmt.Sprintf("board%d", i)
		mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/"+tenant+"/jobs", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"jobs":[{"id":%d,"title":"Engineer","absolute_url":"https://job-boards.greenhouse.io/%s/jobs/1","location":{"name":"Berlin, Germany"},"updated_at":"2026-11-20T10:00:00Z"}],"meta":{"total":1}}`,
				100+i, tenant)
		})
		csv += fmt.Sprintf("%s.de,Board %d,greenhouse,%s,DE\n", tenant, i, tenant)
	}
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), nil)
	read := func(batch int) (stored int, stores int64, st *statements) {
		base := storetest.Postgres(t, "sources")
		_, err := sources.Import(ctx, base, strings.NewReader(csv), sources.ImportOptions{File: "boards.csv", By: "test", Apply: true})
		require.NoError(t, err)
		cfg := base.Config().Copy()
		st = &statements{}
		cfg.ConnConfig.Tracer = st
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		require.NoError(t, err)
		t.Cleanup(pool.Close)
		ch, _ := storetest.ClickHouse(t, "sources")
		c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler),
			Fetch: pipeline.FetchConfig{Workers: 4, ConnectTo: connectTo, CAFile: pem}})
		require.NoError(t, err)
		const tick = 30
		worker := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Owner: "w", StoreBatch: batch,
			Clock: sources.Clock{Epoch: time.Now().Add(-tick*sources.DefaultWindowLength - time.Hour)}}
		n, err := worker.ReadDue(ctx, tick, true)
		require.NoError(t, err)
		require.Equal(t, boards, n)
		require.NoError(t, base.QueryRow(ctx, "SELECT count(*) FROM crawl_reads WHERE tick = $1", tick).Scan(&stored))
		require.Zero(t, worker.StoreOverflows())
		return stored, worker.Stores(), st
	}
	oneStored, oneStores, one := read(1)
	batchStored, batchStores, batched := read(0)
	require.Equal(t, boards, oneStored)
	require.Equal(t, boards, batchStored)
	require.Equal(t, int64(boards), oneStores, "StoreBatch 1: a store, so a transaction, for each read")
	require.Less(t, batchStores, int64(boards)/4, "batched by size or age: a few stores")
	t.Logf("worker's statements (round trips): each read stored on its own %d (%d), batched %d (%d); stores %d and %d",
		one.stmts.Load(), one.trips.Load(), batched.stmts.Load(), batched.trips.Load(), oneStores, batchStores)
	require.Less(t, batched.stmts.Load(), one.stmts.Load())
	require.Less(t, batched.trips.Load(), one.trips.Load()/2)
}
