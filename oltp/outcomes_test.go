package oltp_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// fillLabels writes n labels of company for a's customer, created at created, occurred at
// occurred, positive or not, as one statement.
func fillLabels(t *testing.T, pool *pgxpool.Pool, a oltp.NewAccount, company int64, n int, positive bool, occurred, created time.Time) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `INSERT INTO outcome_labels (customer_id, account_id, company_id, outcome, positive, occurred_at, created_at)
		SELECT $1, $2, $3, 'won', $4, $5::timestamptz - i * interval '1 second', $6 FROM generate_series(1, $7) i`,
		a.CustomerID, a.AccountID, company, positive, occurred, created, n)
	require.NoError(t, err)
}

func label(a oltp.NewAccount, company int64) oltp.NewLabel {
	return oltp.NewLabel{CustomerID: a.CustomerID, AccountID: a.AccountID, CompanyID: company, Outcome: "won", Positive: true, OccurredAt: time.Now().UTC()}
}

// Appending a label is not billable: without a budget a Free key could write one label per call
// of its minute limit (about 28,800 a day) and keep them for 730 days. A customer appends at most
// MaxLabelsPerDay in any 24 hours, also under concurrent calls; older labels do not count, an
// idempotent re-send still answers, and another customer has its own budget.
func TestLabelBudgetHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	a := account(t, pool, "free")
	now := time.Now().UTC()
	ext := "crm-1"
	first := label(a, 7)
	first.ExternalID = &ext
	_, created, err := oltp.AppendLabel(ctx, pool, first)
	require.NoError(t, err)
	require.True(t, created)
	fillLabels(t, pool, a, 7, 5_000, true, now, now.Add(-25*time.Hour)) // outside the window
	fillLabels(t, pool, a, 7, oltp.MaxLabelsPerDay-21, true, now, now.Add(-23*time.Hour))

	// 20 labels fit; 40 concurrent appends: exactly 20 are written.
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for range 40 {
		wg.Go(func() {
			_, created, err := oltp.AppendLabel(ctx, pool, label(a, 8))
			var budget *oltp.LabelBudgetError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && created:
				ok++
			case errors.As(err, &budget):
				refused++
				require.InDelta(t, time.Hour.Seconds(), budget.RetryAfter.Seconds(), 120, "the oldest label of the window leaves it in about an hour")
			default:
				t.Errorf("append: created %v, err %v", created, err)
			}
		})
	}
	wg.Wait()
	require.Equal(t, 20, ok)
	require.Equal(t, 20, refused)
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM outcome_labels WHERE customer_id = $1 AND created_at > now() - interval '24 hours'", a.CustomerID).Scan(&n))
	require.Equal(t, oltp.MaxLabelsPerDay, n)

	// The re-send of a stored external_id is not a new label: still answered.
	l, created, err := oltp.AppendLabel(ctx, pool, first)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, int64(7), l.CompanyID)

	b := account(t, pool, "free")
	_, created, err = oltp.AppendLabel(ctx, pool, label(b, 8))
	require.NoError(t, err)
	require.True(t, created)
}

// Every customer's labels feed the shared intent score, and appending is not billable: one
// customer labelling a company thousands of times, or thousands of companies, must move the
// score as one customer. A customer's labels count at most MaxVotesPerCompany per company (its
// newest) in the counts and the training aggregate, and at most MaxVotesPerCustomer in all in the
// training aggregate (its newest).
func TestOneCustomerCountsAsOneCustomer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	honest, loud := account(t, pool, "growth"), account(t, pool, "free")
	now := time.Now().UTC()
	fillLabels(t, pool, honest, 1, 3, false, now.Add(-time.Hour), now)
	fillLabels(t, pool, loud, 1, 500, true, now, now)                     // 500 wins of company 1 (newest)
	fillLabels(t, pool, loud, 1, 50, false, now.Add(-48*time.Hour), now)  // older losses: beyond its newest 10
	for c := int64(100); c < 100+oltp.MaxVotesPerCustomer+500; c += 500 { // 2,500 more companies, older
		_, err := pool.Exec(ctx, `INSERT INTO outcome_labels (customer_id, account_id, company_id, outcome, positive, occurred_at)
			SELECT $1, $2, $3 + i, 'won', true, $4::timestamptz - ($3 + i) * interval '1 minute' FROM generate_series(0, 499) i`,
			loud.CustomerID, loud.AccountID, c, now.Add(-72*time.Hour))
		require.NoError(t, err)
	}

	counts, err := oltp.CompanyLabelCounts(ctx, pool, 1)
	require.NoError(t, err)
	require.Equal(t, oltp.LabelCounts{Labels: 3 + oltp.MaxVotesPerCompany, Positive: oltp.MaxVotesPerCompany, Negative: 3}, counts)

	agg, err := oltp.TrainingLabels(ctx, pool, now.Add(-365*24*time.Hour))
	require.NoError(t, err)
	by := map[int64]oltp.CompanyLabels{}
	total := 0
	for _, c := range agg {
		by[c.CompanyID] = c
		total += c.Positive + c.Negative
	}
	require.Equal(t, oltp.CompanyLabels{CompanyID: 1, Positive: oltp.MaxVotesPerCompany, Negative: 3}, by[1])
	require.Equal(t, 3+oltp.MaxVotesPerCustomer, total, "the loud customer's votes stop at its bound")
	require.Contains(t, by, int64(100), "its newest companies count")
	require.NotContains(t, by, int64(100+oltp.MaxVotesPerCustomer+499), "its oldest do not")
}

// queryLog keeps the SQL and arguments of the queries a pool sends (a pgx tracer).
type queryLog struct {
	mu      sync.Mutex
	queries []loggedQuery
}

type loggedQuery struct {
	sql  string
	args []any
}

func (q *queryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queries = append(q.queries, loggedQuery{d.SQL, d.Args})
	return ctx
}

func (q *queryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// during is the one query f sent.
func (q *queryLog) during(t *testing.T, f func()) loggedQuery {
	t.Helper()
	q.mu.Lock()
	q.queries = nil
	q.mu.Unlock()
	f()
	q.mu.Lock()
	defer q.mu.Unlock()
	require.Len(t, q.queries, 1)
	return q.queries[0]
}

// labelRowsRead runs q under EXPLAIN (ANALYZE, FORMAT JSON) and sums the rows its scans of the
// label tables (outcome_labels, outcome_votes) read: returned or filtered out, times their loops.
// It returns them with the execution time.
//
// The plan is the one the tables' indexes give (enable_seqscan off, for this statement only): a
// test's votes table holds a dozen rows, which the planner may read whole at every loop instead
// of through its index whenever its statistics say the table is that small (a kept schema's, or
// autovacuum's analyze mid-test), and which plan it takes then is not what is measured here.
func labelRowsRead(t *testing.T, pool *pgxpool.Pool, q loggedQuery) (rows float64, ms float64) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, "SET LOCAL enable_seqscan = off")
	require.NoError(t, err)
	var out []map[string]any
	require.NoError(t, tx.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+q.sql, q.args...).Scan(&out))
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if rel, _ := n["Relation Name"].(string); rel == "outcome_labels" || rel == "outcome_votes" {
			loops, _ := n["Actual Loops"].(float64)
			for _, k := range []string{"Actual Rows", "Rows Removed by Filter", "Rows Removed by Index Recheck"} {
				v, _ := n[k].(float64)
				rows += v * loops
			}
		}
		subs, _ := n["Plans"].([]any)
		for _, s := range subs {
			walk(s.(map[string]any))
		}
	}
	walk(out[0]["Plan"].(map[string]any))
	ms, _ = out[0]["Execution Time"].(float64)
	return rows, ms
}

// tracedPool is a pool on pool's schema whose queries log records.
func tracedPool(t *testing.T, pool *pgxpool.Pool, log *queryLog) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pool.Config().ConnString())
	require.NoError(t, err)
	cfg.ConnConfig.Tracer = log
	traced, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(traced.Close)
	return traced
}

// The intent read (GET /v1/companies/{id}/intent, any key, the demo key too) and the model's
// refit read every customer's labels. One Free customer labelling one company 10,000 times a day
// must not make them sort all of those labels on every call (300,000 in 30 days, past the store's
// timeout): they read the votes, a bounded number of rows whatever the labels behind them, and
// count exactly as before.
func TestLabelReadsAreBoundedWhateverOneCustomerWrote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	var log queryLog
	traced := tracedPool(t, pool, &log)
	honest, loud := account(t, pool, "growth"), account(t, pool, "free")
	now := time.Now().UTC()
	const flood = 20_000
	fillLabels(t, pool, honest, 1, 3, false, now.Add(-time.Hour), now)
	fillLabels(t, pool, loud, 1, flood/2, true, now, now)
	fillLabels(t, pool, loud, 1, flood/2, false, now.Add(-24*time.Hour), now)

	var counts oltp.LabelCounts
	q := log.during(t, func() {
		var err error
		counts, err = oltp.CompanyLabelCounts(ctx, traced, 1)
		require.NoError(t, err)
	})
	require.Equal(t, oltp.LabelCounts{Labels: 3 + oltp.MaxVotesPerCompany, Positive: oltp.MaxVotesPerCompany, Negative: 3}, counts)
	rows, ms := labelRowsRead(t, pool, q)
	t.Logf("CompanyLabelCounts over %d labels of the company: %.0f rows read, %.2f ms", flood+3, rows, ms)
	require.LessOrEqual(t, rows, float64(2*oltp.MaxVotesPerCompany+10), "the counts read the company's votes, not its labels")

	var agg []oltp.CompanyLabels
	q = log.during(t, func() {
		var err error
		agg, err = oltp.TrainingLabels(ctx, traced, now.Add(-180*24*time.Hour))
		require.NoError(t, err)
	})
	require.Equal(t, []oltp.CompanyLabels{{CompanyID: 1, Positive: oltp.MaxVotesPerCompany, Negative: 3}}, agg)
	rows, ms = labelRowsRead(t, pool, q)
	t.Logf("TrainingLabels over %d labels: %.0f rows read, %.2f ms", flood+3, rows, ms)
	require.LessOrEqual(t, rows, float64(2*oltp.MaxVotesPerCompany+10), "the refit reads each customer's newest votes, not every label")

	// Deleting labels (by hand, or the retention janitor) refills the votes from the labels left.
	_, err := pool.Exec(ctx, `DELETE FROM outcome_labels WHERE outcome_id IN (
		SELECT outcome_id FROM outcome_labels WHERE customer_id = $1 AND positive ORDER BY occurred_at DESC LIMIT 5)`, loud.CustomerID)
	require.NoError(t, err)
	counts, err = oltp.CompanyLabelCounts(ctx, pool, 1)
	require.NoError(t, err)
	require.Equal(t, oltp.LabelCounts{Labels: 3 + oltp.MaxVotesPerCompany, Positive: oltp.MaxVotesPerCompany, Negative: 3}, counts)
	n, err := oltp.PruneOutcomeLabels(ctx, pool, now.Add(oltp.OutcomeRetention-12*time.Hour))
	require.NoError(t, err)
	require.EqualValues(t, flood/2, n, "the labels of a day ago")
	_, err = pool.Exec(ctx, `DELETE FROM outcome_labels WHERE customer_id = $1 AND occurred_at > $2`, loud.CustomerID, now.Add(-time.Hour))
	require.NoError(t, err)
	counts, err = oltp.CompanyLabelCounts(ctx, pool, 1)
	require.NoError(t, err)
	require.Equal(t, oltp.LabelCounts{Labels: 3 + oltp.MaxVotesPerCompany, Positive: oltp.MaxVotesPerCompany, Negative: 3}, counts)
	_, err = pool.Exec(ctx, `UPDATE outcome_labels SET positive = false WHERE customer_id = $1`, loud.CustomerID)
	require.NoError(t, err)
	counts, err = oltp.CompanyLabelCounts(ctx, pool, 1)
	require.NoError(t, err)
	require.Equal(t, oltp.LabelCounts{Labels: 3 + oltp.MaxVotesPerCompany, Negative: 3 + oltp.MaxVotesPerCompany}, counts)
	_, err = pool.Exec(ctx, `DELETE FROM outcome_labels WHERE customer_id = $1`, loud.CustomerID)
	require.NoError(t, err)
	counts, err = oltp.CompanyLabelCounts(ctx, pool, 1)
	require.NoError(t, err)
	require.Equal(t, oltp.LabelCounts{Labels: 3, Negative: 3}, counts)
	var votes int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM outcome_votes").Scan(&votes))
	require.Equal(t, 3, votes)
}

// The queries the label reads sent before migration 0024, for the comparison of
// TestLabelReadsBench: a window sort of every label of the company, or of the window.
const (
	oldCountsSQL = `SELECT count(*), count(*) FILTER (WHERE positive), count(*) FILTER (WHERE NOT positive) FROM (
			SELECT positive, row_number() OVER (PARTITION BY customer_id ORDER BY occurred_at DESC, outcome_id DESC) AS nc
			FROM outcome_labels WHERE company_id = $1) v WHERE nc <= $2`
	oldTrainingSQL = `SELECT company_id, count(*) FILTER (WHERE positive), count(*) FILTER (WHERE NOT positive) FROM (
		WITH per_company AS (
			SELECT customer_id, company_id, positive, occurred_at, outcome_id,
				row_number() OVER (PARTITION BY customer_id, company_id ORDER BY occurred_at DESC, outcome_id DESC) AS nc
			FROM outcome_labels WHERE occurred_at >= $1
		), per_customer AS (
			SELECT company_id, positive,
				row_number() OVER (PARTITION BY customer_id ORDER BY occurred_at DESC, outcome_id DESC) AS nu
			FROM per_company WHERE nc <= $2
		)
		SELECT company_id, positive FROM per_customer WHERE nu <= $3) v GROUP BY company_id ORDER BY count(*) DESC, company_id LIMIT $4`
)

// TestLabelReadsBench measures the label reads before and after migration 0024 with EXPLAIN
// ANALYZE (bench/README.md, "Intent label reads"): 300,000 labels of one company by one customer
// (a Free customer's 30 days at the daily budget), then 300,000 labels of as many companies by
// another. Run with HS_BENCH_LABELS=1 and -v.
func TestLabelReadsBench(t *testing.T) {
	// Not parallel: it reports timings, which tests running beside it would skew.
	if os.Getenv("HS_BENCH_LABELS") == "" {
		t.Skip("set HS_BENCH_LABELS=1 to run the label read bench")
	}
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	var log queryLog
	traced := tracedPool(t, pool, &log)
	honest, loud, wide := account(t, pool, "growth"), account(t, pool, "free"), account(t, pool, "free")
	now := time.Now().UTC()
	const n = 300_000
	fillLabels(t, pool, honest, 1, 3, false, now.Add(-time.Hour), now)
	// Bulk inserts of 300,000 rows take longer than the pool's statement timeout here.
	bulk := func(sql string, args ...any) {
		t.Helper()
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, sql, args...)
			return err
		}))
	}
	start := time.Now()
	bulk(`INSERT INTO outcome_labels (customer_id, account_id, company_id, outcome, positive, occurred_at, created_at)
		SELECT $1, $2, 1, 'won', true, $3::timestamptz - i * interval '1 second', $3::timestamptz - interval '2 days' FROM generate_series(1, $4) i`,
		loud.CustomerID, loud.AccountID, now, n)
	t.Logf("insert of %d labels of one company in one statement (votes kept by the triggers): %s", n, time.Since(start).Round(time.Millisecond))
	_, err := pool.Exec(ctx, "ANALYZE outcome_labels; ANALYZE outcome_votes")
	require.NoError(t, err)
	since := now.Add(-180 * 24 * time.Hour)

	report := func(name string, q loggedQuery) {
		t.Helper()
		for range 2 { // the first run warms the cache
			labelRowsRead(t, pool, q)
		}
		rows, ms := labelRowsRead(t, pool, q)
		t.Logf("%-40s %9.0f rows read %10.2f ms", name, rows, ms)
	}
	report("before: counts (one company)", loggedQuery{oldCountsSQL, []any{int64(1), oltp.MaxVotesPerCompany}})
	report("after:  counts (one company)", log.during(t, func() { _, err := oltp.CompanyLabelCounts(ctx, traced, 1); require.NoError(t, err) }))
	report("before: training (one company)", loggedQuery{oldTrainingSQL, []any{since, oltp.MaxVotesPerCompany, oltp.MaxVotesPerCustomer, oltp.MaxTrainingCompanies}})
	report("after:  training (one company)", log.during(t, func() { _, err := oltp.TrainingLabels(ctx, traced, since); require.NoError(t, err) }))

	start = time.Now()
	bulk(`INSERT INTO outcome_labels (customer_id, account_id, company_id, outcome, positive, occurred_at)
		SELECT $1, $2, 1000 + i, 'won', true, $3::timestamptz - i * interval '1 second' FROM generate_series(1, $4) i`, wide.CustomerID, wide.AccountID, now, n)
	t.Logf("insert of %d labels of as many companies in one statement: %s", n, time.Since(start).Round(time.Millisecond))
	_, err = pool.Exec(ctx, "ANALYZE outcome_labels; ANALYZE outcome_votes")
	require.NoError(t, err)
	report("before: training (+ 300k companies)", loggedQuery{oldTrainingSQL, []any{since, oltp.MaxVotesPerCompany, oltp.MaxVotesPerCustomer, oltp.MaxTrainingCompanies}})
	report("after:  training (+ 300k companies)", log.during(t, func() { _, err := oltp.TrainingLabels(ctx, traced, since); require.NoError(t, err) }))

	appendMedian := func() time.Duration {
		var appends []time.Duration
		for range 50 {
			start := time.Now()
			_, _, err := oltp.AppendLabel(ctx, pool, label(loud, 1))
			require.NoError(t, err)
			appends = append(appends, time.Since(start))
		}
		slices.Sort(appends)
		return appends[len(appends)/2].Round(10 * time.Microsecond)
	}
	_, err = pool.Exec(ctx, "ALTER TABLE outcome_labels DISABLE TRIGGER outcome_votes_insert")
	require.NoError(t, err)
	without := appendMedian()
	_, err = pool.Exec(ctx, "ALTER TABLE outcome_labels ENABLE TRIGGER outcome_votes_insert")
	require.NoError(t, err)
	t.Logf("AppendLabel to a company of %d labels: median %s (%s without the votes trigger)", n, appendMedian(), without)

	// The janitor deletes the older half of each customer's labels: the wide customer's are
	// votes, refreshed from nothing.
	start = time.Now()
	pruned, err := oltp.PruneOutcomeLabels(ctx, pool, now.Add(oltp.OutcomeRetention-time.Duration(n/2)*time.Second))
	require.NoError(t, err)
	t.Logf("PruneOutcomeLabels of %d labels (statements of 5,000): %s", pruned, time.Since(start).Round(time.Millisecond))
}
