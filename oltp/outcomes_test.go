package oltp_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/storetest"
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
