package admission

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// counter is a LeaseStore over one process's memory: the shared count of every scope's window.
type counter map[string]int64

func (c counter) Lease(_ context.Context, scope string, windowStart, _, want, limit int64) (int64, int64, error) {
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
