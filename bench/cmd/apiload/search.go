package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	neturl "net/url"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/bench/benchapi"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// The reqs/search target: the real handler on the search index and read model built from a
// crawled world in ClickHouse (--search-clickhouse-database), loaded with a mix of queries by an
// Enterprise key (no daily quota, no spend cap; calls_per_minute override) so every call is
// metered. Rows served are counted from the answers and compared with the source_row units the
// metering log wrote to Postgres.

type searchTarget struct {
	key     string
	account int64
	urls    []string
	rows    atomic.Int64 // company rows served in 200 answers (warm-up included)

	hiringURLs []string // is-hiring calls for the metered company-read target
	notes      []string
}

func setupSearch(ctx context.Context, pool *pgxpool.Pool, srv *api.Server, chAddr, db string) (*searchTarget, error) {
	opts := analytics.Options{Addr: chAddr, Database: db}
	ch, err := analytics.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("cannot open ClickHouse %s/%s: %w", chAddr, db, err)
	}
	// A world crawled by an older build lacks the newest columns the snapshot reads: add them
	// (migrations only add; the world's rows are not touched).
	if err := analytics.Migrate(ctx, ch, opts, nil); err != nil {
		return nil, fmt.Errorf("cannot bring %s up to the current schema: %w", db, err)
	}
	st := &searchTarget{}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	snap := snapshot.New(snapshot.Config{ClickHouse: ch, Log: slog.New(slog.DiscardHandler), Poll: time.Hour})
	if _, err := snap.Refresh(ctx, true); err != nil {
		return nil, err
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	x := snap.Current().Index
	s := x.Stats()
	st.notes = append(st.notes, fmt.Sprintf("read snapshot (search index and read model from one ledger read): %d reqs (%d live), %d companies, %d distinct titles, %d stems, %d postings indexed; %d companies in the read model; built in %s; heap +%d MiB after GC",
		s.Reqs, s.LiveReqs, s.Companies, s.Titles, s.Stems, s.Postings, snap.Current().Model.Companies(), snap.Current().BuildTook.Round(time.Millisecond),
		(int64(after.HeapAlloc)-int64(before.HeapAlloc))>>20))
	search.Register(srv, search.Deps{Snapshots: snap})

	acct, err := benchapi.Account(ctx, pool, "enterprise", "search-bench@example.com")
	if err != nil {
		return nil, err
	}
	st.key, st.account = acct.Key, acct.AccountID

	// The metered is-hiring target: the real company-read handler on the same read model, over
	// 2,000 companies spread across the world. The bench world is not re-crawled while it runs, so
	// the cold-company check (which would answer 202 and enqueue crawls) is off.
	companies.Register(srv, companies.Deps{Snapshots: snap, Pool: pool, ColdAfter: -1})
	all, err := analytics.Companies(ctx, ch)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(all) && len(st.hiringURLs) < 2000; i += max(1, len(all)/2000) {
		st.hiringURLs = append(st.hiringURLs, fmt.Sprintf("/v1/companies/%d/is-hiring", all[i].CompanyID))
	}
	mid := x.CycleTime.Add(-7 * 24 * time.Hour).Format(time.RFC3339)
	for _, q := range []string{
		"q=engineer", "q=senior+software+engineer", "q=sales", "q=product+manager&geo=United+States", "q=data",
		"", "q=engineers&geo=Germany&geo=France", "q=manager&exclude_agencies=true&headcount_band=51-200",
		"q=designer&since=" + neturl.QueryEscape(mid), "q=account+executive&source_type=board", "q=nurse",
		"q=engineer&cursor=140737488355328", "industry_terms=soft&q=developer", "q=marketing&limit=50",
	} {
		st.urls = append(st.urls, "/v1/reqs/search?"+q)
	}
	return st, nil
}

var companyRowMarker = []byte(`"matched_req_count":`)

// load is loadMix over the target's URLs with its key, counting the company rows of every 200
// answer.
func (st *searchTarget) load(name, base string, conns int, dur time.Duration, maxReq int64) result {
	return loadMix(name, base, st.urls, map[string]string{"X-API-Key": st.key}, conns, dur, maxReq, func(body []byte) {
		st.rows.Add(int64(bytes.Count(body, companyRowMarker)))
	})
}

// report prints the reqs/search table and checks metered units against rows served.
func (st *searchTarget) report(ctx context.Context, pool *pgxpool.Pool, srv *api.Server, r, hiring, trivial result) error {
	fmt.Println()
	for _, n := range st.notes {
		fmt.Println(n)
	}
	fmt.Printf("\n| target | requests | errors | req/s | p50 | p95 | p99 |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range []result{trivial, hiring, r} {
		fmt.Printf("| %s | %d | %d | %.0f | %s | %s | %s |\n", x.Name, x.Requests, x.Errors, x.RPS(),
			x.Pct(0.50).Round(time.Microsecond), x.Pct(0.95).Round(time.Microsecond), x.Pct(0.99).Round(time.Microsecond))
	}
	fmt.Printf("\nthroughput ratio (is-hiring / trivial): %.2f\n", hiring.RPS()/trivial.RPS())
	if err := srv.FlushUsage(ctx); err != nil {
		return err
	}
	var units int64
	if err := pool.QueryRow(ctx, "SELECT COALESCE(sum(units),0) FROM usage_events WHERE account_id = $1 AND meter_class = 'source_row'", st.account).Scan(&units); err != nil {
		return err
	}
	ok := "OK"
	if units != st.rows.Load() {
		ok = "MISMATCH"
	}
	fmt.Printf("\nreqs/search: company rows served %d, source_row units metered %d: %s\n", st.rows.Load(), units, ok)
	return nil
}

// hiring is the is-hiring target: the same key, the company-read URLs. Its answers carry no
// company-row marker, so it adds nothing to the reqs/search row count.
func (st *searchTarget) hiring() *searchTarget {
	return &searchTarget{key: st.key, account: st.account, urls: st.hiringURLs}
}
