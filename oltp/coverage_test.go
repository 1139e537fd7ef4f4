package oltp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// An import is not billable and takes 10,000 companies a call: without a bound a Free key could
// grow coverage_requests by 200,000 rows a minute for ever. A customer keeps at most
// MaxCoverageRequests; past it no new company is recorded, and one already requested still counts.
func TestCoverageRequestsStopAtTheBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	a, err := oltp.CreateAccount(ctx, pool, "free", "coverage-bound@example.com")
	require.NoError(t, err)
	asks := func(from, n int) []oltp.CoverageAsk {
		out := make([]oltp.CoverageAsk, n)
		for i := range out {
			d := fmt.Sprintf("c%d.example.com", from+i)
			out[i] = oltp.CoverageAsk{Key: "domain:" + d, Domain: d}
		}
		return out
	}
	const batch = 10_000
	for from := 0; from < oltp.MaxCoverageRequests; from += batch {
		ids, err := oltp.RequestCoverage(ctx, pool, a.CustomerID, "migration_import", asks(from, batch))
		require.NoError(t, err)
		require.Len(t, ids, batch)
	}
	// Full: three new companies are not recorded; the first company, asked again, is.
	ids, err := oltp.RequestCoverage(ctx, pool, a.CustomerID, "migration_import", append(asks(oltp.MaxCoverageRequests, 3), asks(0, 1)...))
	require.NoError(t, err)
	require.Len(t, ids, 1)
	require.Contains(t, ids, "domain:c0.example.com")
	var n, times int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM coverage_requests WHERE customer_id = $1", a.CustomerID).Scan(&n))
	require.Equal(t, oltp.MaxCoverageRequests, n)
	require.NoError(t, pool.QueryRow(ctx, "SELECT times_requested FROM coverage_requests WHERE customer_id = $1 AND match_key = 'domain:c0.example.com'",
		a.CustomerID).Scan(&times))
	require.Equal(t, 2, times)

	// Another customer has its own bound.
	b, err := oltp.CreateAccount(ctx, pool, "free", "coverage-bound-2@example.com")
	require.NoError(t, err)
	ids, err = oltp.RequestCoverage(ctx, pool, b.CustomerID, "migration_import", asks(0, 2))
	require.NoError(t, err)
	require.Len(t, ids, 2)
}
