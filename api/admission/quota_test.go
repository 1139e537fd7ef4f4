package admission

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// counter is a LeaseStore over one process's memory: the shared count of every scope's window.
type counter map[string]int64

// counterMu guards every counter: a window that prefetches leases from another goroutine.
var counterMu sync.Mutex

func (c counter) Lease(_ context.Context, scope string, windowStart, _, want, limit int64) (int64, int64, error) {
	counterMu.Lock()
	defer counterMu.Unlock()
	k := scope + "@" + time.Unix(windowStart, 0).String()
	granted := min(want, max(0, limit-c[k]))
	c[k] += granted
	return granted, c[k], nil
}

func (c counter) Expire(context.Context, int64) error { return nil }

// A Quota comes back to the key unless committed: refunding is the default way out.
func TestDailyQuotaIsRefundedUnlessCommitted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := NewLimiter(counter{}, slog.New(slog.DiscardHandler))
	free, ok := plans.ByID("tier_0")
	require.True(t, ok)
	require.NotNil(t, free.DailyQuota)
	now := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	key := &Key{Auth: oltp.KeyAuth{KeyID: 7, LimitID: 7, AccountID: 3}, Plan: free}
	take := func() *Quota {
		q := l.TakeDaily(ctx, key, now)
		require.NotNil(t, q)
		return q
	}
	for i := 0; i < 3**free.DailyQuota; i++ { // three quotas' worth of refunded calls
		q := take()
		require.True(t, q.OK, "call %d", i)
		q.Refund()
		q.Refund() // a second refund gives nothing more back
	}
	for i := 0; i < *free.DailyQuota; i++ {
		q := take()
		require.True(t, q.OK, "call %d", i)
		q.Commit()
		q.Refund() // after Commit, Refund does nothing
	}
	q := take()
	require.False(t, q.OK, "the quota is spent")
	require.EqualValues(t, *free.DailyQuota, q.Limit)
	q.Refund() // a refused call took nothing: its refund gives nothing
	require.False(t, take().OK)
	var none *Quota
	none.Refund()
	none.Commit()
	enterprise, _ := plans.ByID("enterprise")
	require.Nil(t, l.TakeDaily(ctx, &Key{Auth: key.Auth, Plan: enterprise}, now), "a plan without a daily quota takes nothing")
}

// heldStore is a LeaseStore whose leases after the first wait until released.
type heldStore struct {
	counter
	leases  chan struct{} // a lease began (after the first)
	release chan struct{}
	n       int
}

func (h *heldStore) Lease(ctx context.Context, scope string, windowStart, expiresAt, want, limit int64) (int64, int64, error) {
	counterMu.Lock()
	h.n++
	first := h.n == 1
	counterMu.Unlock()
	if !first {
		h.leases <- struct{}{}
		<-h.release
	}
	return h.counter.Lease(ctx, scope, windowStart, expiresAt, want, limit)
}

// A window of large blocks leases its next block in the background once a quarter of the block
// is left: its calls spend the rest meanwhile instead of waiting for the round trip, one lease at
// a time, and the block leased joins the window when it returns.
func TestLargeBlocksAreLeasedAheadWithoutStallingCalls(t *testing.T) {
	t.Parallel()
	s := &heldStore{counter: counter{}, leases: make(chan struct{}, 4), release: make(chan struct{})}
	l := NewLimiter(s, slog.New(slog.DiscardHandler))
	now := time.Now()
	const limit = 100_000 // blocks of 1,000 a minute
	take := func() Decision { return l.Take(context.Background(), "rk:ahead", limit, time.Minute, now) }
	// The first lease, then the block down to a quarter and one call. (The prefetch starts in
	// the call that leaves a quarter, in a goroutine of its own: checked one call earlier, the
	// check does not race it.)
	for range 749 {
		require.True(t, take().OK)
	}
	select {
	case <-s.leases:
		t.Fatal("leased again with more than a quarter of the block left")
	default:
	}
	require.True(t, take().OK) // a quarter left: the next block is leased in the background
	<-s.leases
	for range 250 { // the rest of the block, while that lease is held up
		require.True(t, take().OK)
	}
	select {
	case <-s.leases:
		t.Fatal("a second lease began while one was in flight")
	default:
	}
	close(s.release)
	d := take() // waits for the block in flight, then spends from it
	require.True(t, d.OK)
	require.EqualValues(t, 1001, d.Used, "two blocks leased, 1,001 calls spent")
	require.EqualValues(t, limit-1001, d.Remaining)
}
