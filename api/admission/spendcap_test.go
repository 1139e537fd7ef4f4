package admission_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// pages is GET /v1/reqs/search as api/search declares it, serving a full page (limit rows)
// after a short pause, so that many calls are in flight at once.
func pages() *api.Route {
	for _, rt := range search.Routes(search.Deps{}) {
		if rt.Name == "reqs.search" {
			rt.Handler = func(c *api.Call) (int, error) {
				time.Sleep(3 * time.Millisecond)
				n := c.Limit()
				return n, c.JSON(200, map[string]any{"companies": make([]int, n)})
			}
			return rt
		}
	}
	panic("api/search declares no reqs.search")
}

func startPages(t *testing.T, cfg func(*api.Config)) *apitest.Server {
	t.Helper()
	return startPagesOn(t, nil, cfg)
}

// startPagesOn is startPages on pool's schema (nil: a fresh one), e.g. a second instance.
func startPagesOn(t *testing.T, pool *pgxpool.Pool, cfg func(*api.Config)) *apitest.Server {
	t.Helper()
	return apitest.StartServer(t, apitest.Options{DB: "admission", Pool: pool, Config: cfg, Register: func(srv *api.Server, _ *pgxpool.Pool) {
		srv.Register(pages())
	}})
}

// cappedAccount is a Starter account with hard cap hard (units) and no practical rate limit.
func cappedAccount(t *testing.T, s *apitest.Server, hard int64) oltp.NewAccount {
	t.Helper()
	ctx := context.Background()
	a := s.Account(t, "starter")
	perMinute := int64(1_000_000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, s.Pool, a.AccountID, &perMinute))
	require.NoError(t, oltp.SetCaps(ctx, s.Pool, a.AccountID, nil, &hard))
	return a
}

func monthUnits(t *testing.T, s *apitest.Server, accountID int64) int64 {
	t.Helper()
	require.NoError(t, s.API.FlushUsage(context.Background()))
	units, _, err := oltp.MonthUnits(context.Background(), s.Pool, accountID)
	require.NoError(t, err)
	return units
}

// spendPages is the load of the spend cap tests: workers concurrent callers, each asking up to
// 200 pages of page rows with key, round-robin over servers, until a call is refused (402). It
// returns the calls served and refused; any other status fails t.
func spendPages(t *testing.T, servers []*apitest.Server, key string, page, workers int) (ok, refused int64) {
	t.Helper()
	var served, refusals atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				s := servers[(w+i)%len(servers)]
				r := s.Get(t, "/v1/reqs/search?limit="+strconv.Itoa(page), key, nil)
				switch r.Status {
				case 200:
					served.Add(1)
				case 402:
					refusals.Add(1)
					return
				default:
					t.Errorf("status %d: %s", r.Status, r.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
	return served.Load(), refusals.Load()
}

// TestSpendCapHoldsUnderConcurrency is a load run of the spend cap: many concurrent metered calls
// of 100-row pages against an account with a small hard cap. Every call reserves its page before
// the handler, so the units recorded reach the cap and pass it by less than one page.
func TestSpendCapHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := startPages(t, nil)
	const hard, page, workers = 2_500, 100, 64
	a := cappedAccount(t, s, hard)
	ok, refused := spendPages(t, []*apitest.Server{s}, a.Key, page, workers)
	units := monthUnits(t, s, a.AccountID)
	t.Logf("hard cap %d units: %d pages served, %d refused, %d units recorded (overshoot %d)", hard, ok, refused, units, units-hard)
	require.Equal(t, ok*page, units, "every page served is metered")
	require.GreaterOrEqual(t, units, int64(hard), "the cap is reached")
	require.Less(t, units, int64(hard+page), "the cap is passed by less than one page")
	require.EqualValues(t, workers, refused)
}

// TestSpendCapHoldsAcrossInstances is TestSpendCapHoldsUnderConcurrency on two instances of
// one Postgres, every worker alternating between them: together they pass the cap by less than
// one page, as one instance does, and stop at most one block (the other instance's hold) short
// of it. Without the shared holds each instance admitted against its own view and they passed
// the cap by up to the pages in flight on the other plus its unflushed units.
func TestSpendCapHoldsAcrossInstances(t *testing.T) {
	t.Parallel()
	s1 := startPages(t, nil)
	s2 := startPagesOn(t, s1.Pool, nil)
	const hard, page, workers = 2_500, 100, 64
	a := cappedAccount(t, s1, hard)
	ok, refused := spendPages(t, []*apitest.Server{s1, s2}, a.Key, page, workers)
	require.NoError(t, s2.API.FlushUsage(context.Background()))
	units := monthUnits(t, s1, a.AccountID)
	t.Logf("hard cap %d units on two instances: %d pages served, %d refused, %d units recorded (overshoot %d)", hard, ok, refused, units, units-hard)
	require.Equal(t, ok*page, units, "every page served is metered")
	require.Less(t, units, int64(hard+page), "the two instances together pass the cap by less than one page")
	require.GreaterOrEqual(t, units, hard-admission.SpendBlock(hard), "they stop at most the other instance's block short of it")
	require.EqualValues(t, workers, refused)
	var held int64
	require.NoError(t, s1.Pool.QueryRow(context.Background(), "SELECT coalesce(sum(held), 0) FROM spend_holds WHERE account_id = $1", a.AccountID).Scan(&held))
	require.LessOrEqual(t, held, 2*admission.SpendBlock(hard), "every flushed unit left its instance's hold: what is left is at most a block each")
}

// TestInstancesShareTheCapThroughTheirHolds: the caps of two instances on one Postgres admit
// together what one instance would (their reservations pass the cap by less than one page); a
// flush moves units from a hold to the month's units in one transaction, so they count once;
// a hold whose instance stops asking lapses after its TTL and no longer counts.
func TestInstancesShareTheCapThroughTheirHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "admission")
	a := admission.NewCaps(pool, func() string { return "inst-a" })
	b := admission.NewCaps(pool, func() string { return "inst-b" })
	a.SetHoldTTL(2 * time.Second)
	now := time.Now()
	y, m, _ := now.UTC().Date()
	month := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	const hard, page = int64(1_000), int64(100)
	capped := hard
	reserve := func(c *admission.Caps) (*admission.Reservation, admission.Spend) {
		r, sp, err := c.Reserve(ctx, 1, &capped, page, now)
		require.NoError(t, err)
		return r, sp
	}
	var onA []*admission.Reservation
	for range 6 {
		r, _ := reserve(a)
		require.NotNil(t, r)
		onA = append(onA, r)
	}
	n := int64(0)
	var last admission.Spend
	for {
		r, sp := reserve(b)
		if r == nil {
			last = sp
			break
		}
		n++
	}
	total := 6*page + n*page
	require.Less(t, total, hard+page, "both instances' reservations pass the cap by less than one page")
	require.GreaterOrEqual(t, total+admission.SpendBlock(hard), hard, "b is refused at most a's block early")
	require.GreaterOrEqual(t, last.Used+last.Reserved, hard, "the refusal counts a's hold")

	// a meters 100 units and its log flushes them: usage_monthly gains them in the transaction
	// that takes them off a's hold.
	onA[0].Settle(page)
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `INSERT INTO usage_monthly (account_id, month, units) VALUES (1, $1, $2)`, month, page)
	require.NoError(t, err)
	require.NoError(t, oltp.SettleSpendHolds(ctx, tx, "inst-a", []oltp.SpendHoldUnits{{AccountID: 1, Month: month, Units: page}}))
	require.NoError(t, tx.Commit(ctx))
	a.Committed(1, month, page)
	r, sp := reserve(b)
	require.Nil(t, r)
	require.Equal(t, last.Used+last.Reserved, sp.Used+sp.Reserved, "the flushed units count once: in the month's units, no longer in a's hold")
	require.Equal(t, page, sp.Used)

	// a stops asking (it died with its calls in flight): its hold lapses and b is admitted.
	time.Sleep(2100 * time.Millisecond)
	r, _ = reserve(b)
	require.NotNil(t, r, "a lapsed hold no longer counts")
	r.Release()
}

// TestSpendCapFailsClosedWhenTheSpendCannotBeRead: when the month's units cannot be read from
// Postgres, a call of a capped account answers 503 instead of being served unchecked.
func TestSpendCapFailsClosedWhenTheSpendCannotBeRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := startPages(t, nil)
	a := cappedAccount(t, s, 1_000)
	_, err := s.Pool.Exec(ctx, "ALTER TABLE usage_monthly RENAME TO usage_monthly_away")
	require.NoError(t, err)
	r := s.Get(t, "/v1/reqs/search", a.Key, nil)
	require.Equal(t, 503, r.Status, string(r.Body))
	_, err = s.Pool.Exec(ctx, "ALTER TABLE usage_monthly_away RENAME TO usage_monthly")
	require.NoError(t, err)
	require.Equal(t, 200, s.Get(t, "/v1/reqs/search", a.Key, nil).Status)
}

// TestSpendCapCountsUnflushedUnitsAcrossRefreshes: units this instance metered but has not
// flushed to Postgres yet still count after the cached total is re-read (the refresh must not
// forget them).
func TestSpendCapCountsUnflushedUnitsAcrossRefreshes(t *testing.T) {
	t.Parallel()
	s := startPages(t, func(cfg *api.Config) { cfg.MeteringFlush = time.Hour })
	a := cappedAccount(t, s, 100)
	require.Equal(t, 200, s.Get(t, "/v1/reqs/search?limit=100", a.Key, nil).Status)
	time.Sleep(1100 * time.Millisecond) // past the 1 s refresh: Postgres still holds 0 units
	r := s.Get(t, "/v1/reqs/search?limit=100", a.Key, nil)
	require.Equal(t, 402, r.Status, "100 unflushed units reach the cap of 100: %s", r.Body)
}

func capsOn(t *testing.T) (*admission.Caps, *pgxpool.Pool) {
	pool := storetest.Postgres(t, "admission")
	return admission.NewCaps(pool, nil), pool
}

func setMonthUnits(t *testing.T, pool *pgxpool.Pool, accountID, units int64) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `INSERT INTO usage_monthly (account_id, month, units) VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, $2)
		ON CONFLICT (account_id, month) DO UPDATE SET units = EXCLUDED.units`, accountID, units)
	require.NoError(t, err)
}

// TestReservationsHoldTheCapUntilSettled: reservations in flight count against the cap; Settle
// replaces a reservation with the units recorded, Release drops it, and once the metering log
// reports them committed they are counted from Postgres, once.
func TestReservationsHoldTheCapUntilSettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	caps, pool := capsOn(t)
	now := time.Now()
	hard := int64(250)
	reserve := func() (*admission.Reservation, admission.Spend) {
		r, sp, err := caps.Reserve(ctx, 1, &hard, 100, now)
		require.NoError(t, err)
		return r, sp
	}
	r1, _ := reserve()
	r2, _ := reserve()
	r3, sp := reserve()
	require.NotNil(t, r3)
	require.Equal(t, admission.Spend{Used: 0, Reserved: 200}, sp)
	r4, sp := reserve()
	require.Nil(t, r4, "300 units reserved reach the cap of 250")
	require.Equal(t, int64(300), sp.Reserved)

	r1.Settle(10)
	r1.Release() // after Settle: nothing
	r2.Release()
	r2.Settle(99) // after Release: nothing
	r5, sp := reserve()
	require.NotNil(t, r5)
	require.Equal(t, admission.Spend{Used: 10, Reserved: 100}, sp)

	// The 10 units reach Postgres and the metering log reports them: the next admission re-reads
	// the rollup (no Invalidate needed) and counts them once.
	setMonthUnits(t, pool, 1, 10)
	y, m, _ := now.UTC().Date()
	caps.Committed(1, time.Date(y, m, 1, 0, 0, 0, 0, time.UTC), 10)
	r6, sp := reserve()
	require.NotNil(t, r6)
	require.Equal(t, admission.Spend{Used: 10, Reserved: 200}, sp)
	r3.Release()
	r5.Release()
	r6.Release()

	// No cap: always admitted, nothing read.
	r, sp, err := caps.Reserve(ctx, 2, nil, 100, now)
	require.NoError(t, err)
	require.NotNil(t, r)
	require.Zero(t, sp)
}

// TestInvalidateDropsOnlyThatAccountsCachedTotal: a usage read drops the cached month total of
// the caller's account only; other accounts keep theirs until their refresh.
func TestInvalidateDropsOnlyThatAccountsCachedTotal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	caps, pool := capsOn(t)
	now := time.Now()
	hard := int64(1_000_000)
	used := func(account int64) int64 {
		r, sp, err := caps.Reserve(ctx, account, &hard, 0, now)
		require.NoError(t, err)
		r.Release()
		return sp.Used
	}
	setMonthUnits(t, pool, 1, 100)
	setMonthUnits(t, pool, 2, 200)
	require.Equal(t, int64(100), used(1))
	require.Equal(t, int64(200), used(2))
	setMonthUnits(t, pool, 1, 150)
	setMonthUnits(t, pool, 2, 250)
	caps.Invalidate(1)
	require.Equal(t, int64(150), used(1), "the caller's account is re-read")
	require.Equal(t, int64(200), used(2), "another account keeps its cached total")
}

// TestCommittedUnitsAreCountedOnce: a segment committed to Postgres before a read of the rollup
// but reported by the metering log after it is counted on both sides only until that report;
// the next admission counts it once (a lasting double count refused calls well below the cap).
// One committed after the read is never missing.
func TestCommittedUnitsAreCountedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	caps, pool := capsOn(t)
	now := time.Now()
	hard := int64(1_000)
	reserve := func(max int64) (*admission.Reservation, admission.Spend) {
		r, sp, err := caps.Reserve(ctx, 1, &hard, max, now)
		require.NoError(t, err)
		return r, sp
	}
	r, _ := reserve(100)
	r.Settle(100) // recorded in the metering log, not in Postgres yet
	setMonthUnits(t, pool, 1, 100)
	caps.Invalidate(1)
	_, sp := reserve(0) // reads 100 from Postgres while the 100 still count as unflushed
	require.Equal(t, int64(200), sp.Used, "errs high until the report")
	y, m, _ := now.UTC().Date()
	caps.Committed(1, time.Date(y, m, 1, 0, 0, 0, 0, time.UTC), 100)
	_, sp = reserve(0)
	require.Equal(t, int64(100), sp.Used, "counted once after the report")

	// The other order: read before the commit, reported after it. Never missing.
	r, _ = reserve(100)
	r.Settle(100)
	_, sp = reserve(0)
	require.Equal(t, int64(200), sp.Used)
	setMonthUnits(t, pool, 1, 200)
	caps.Committed(1, time.Date(y, m, 1, 0, 0, 0, 0, time.UTC), 100)
	_, sp = reserve(0)
	require.Equal(t, int64(200), sp.Used, "the report takes them off the unflushed side only with a re-read")
}
