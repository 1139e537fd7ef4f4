package oltp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// One holder per role: a second owner is refused while the lease runs, the holder renews it and
// takes it again after a lost answer (a new token), a release frees it at once, and each new
// holder gets a larger token.
func TestALeaseHasOneHolderAndEachHolderALargerToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := oltp.Leases{Pool: storetest.Postgres(t, "oltp")}
	const ttl = time.Hour

	a, ok, err := s.Acquire(ctx, oltp.RoleNotifier, "a", ttl)
	require.NoError(t, err)
	require.True(t, ok)
	_, ok, err = s.Acquire(ctx, oltp.RoleNotifier, "b", ttl)
	require.NoError(t, err)
	require.False(t, ok, "b waits while a's lease runs")
	j, ok, err := s.Acquire(ctx, oltp.RoleJanitor, "b", ttl)
	require.NoError(t, err)
	require.True(t, ok, "each role has a lease of its own")
	require.EqualValues(t, 1, j)

	ok, err = s.Renew(ctx, oltp.RoleNotifier, "a", a, ttl)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.Renew(ctx, oltp.RoleNotifier, "b", a, ttl)
	require.NoError(t, err)
	require.False(t, ok, "only the owner renews")

	again, ok, err := s.Acquire(ctx, oltp.RoleNotifier, "a", ttl)
	require.NoError(t, err)
	require.True(t, ok, "the holder takes its own lease again (a renewal whose answer was lost)")
	require.Greater(t, again, a)
	ok, err = s.Renew(ctx, oltp.RoleNotifier, "a", a, ttl)
	require.NoError(t, err)
	require.False(t, ok, "the older token is no longer the lease")

	require.NoError(t, s.Release(ctx, oltp.RoleNotifier, "a", a), "a stale release is ignored")
	_, ok, err = s.Acquire(ctx, oltp.RoleNotifier, "b", ttl)
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, s.Release(ctx, oltp.RoleNotifier, "a", again))
	b, ok, err := s.Acquire(ctx, oltp.RoleNotifier, "b", ttl)
	require.NoError(t, err)
	require.True(t, ok, "a released lease is taken at once")
	require.Greater(t, b, again)
	l, err := oltp.ReadLease(ctx, s.Pool, oltp.RoleNotifier)
	require.NoError(t, err)
	require.Equal(t, "b", l.Owner)
	require.Equal(t, b, l.Token)
}

// A lease that is not renewed lapses on Postgres's clock and the next candidate takes it; the
// lapsed holder can no longer renew it.
func TestALapsedLeaseIsTakenOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := oltp.Leases{Pool: storetest.Postgres(t, "oltp")}
	a, ok, err := s.Acquire(ctx, oltp.RoleJanitor, "a", 50*time.Millisecond)
	require.NoError(t, err)
	require.True(t, ok)
	var b int64
	require.Eventually(t, func() bool {
		b, ok, err = s.Acquire(ctx, oltp.RoleJanitor, "b", time.Hour)
		return err == nil && ok
	}, 10*time.Second, 10*time.Millisecond, "b takes the lease once a's lapsed")
	require.Greater(t, b, a)
	ok, err = s.Renew(ctx, oltp.RoleJanitor, "a", a, time.Hour)
	require.NoError(t, err)
	require.False(t, ok)
}

// A stale holder's write is refused: a notifier batch committed under a fence whose lease was
// taken over (or never held) rolls back and writes nothing; under the current lease it commits.
func TestAStaleLeaseHoldersBatchIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	s := oltp.Leases{Pool: pool}
	_, err := oltp.InitNotifierPosition(ctx, pool, 10)
	require.NoError(t, err)

	b, err := oltp.BeginNotifierBatch(ctx, pool, 10)
	require.NoError(t, err)
	require.ErrorIs(t, b.CommitFenced(ctx, 20, oltp.Fence{Role: oltp.RoleNotifier, Token: 1}), oltp.ErrFenced, "nobody holds the lease")

	old, ok, err := s.Acquire(ctx, oltp.RoleNotifier, "a", time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	stale, err := oltp.BeginNotifierBatch(ctx, pool, 10) // a's batch, begun before it lost the lease
	require.NoError(t, err)
	_, err = pool.Exec(ctx, "UPDATE leader_leases SET expires_at = now() WHERE role = $1", oltp.RoleNotifier) // a paused past its lease
	require.NoError(t, err)
	cur, ok, err := s.Acquire(ctx, oltp.RoleNotifier, "b", time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	require.ErrorIs(t, stale.CommitFenced(ctx, 20, oltp.Fence{Role: oltp.RoleNotifier, Token: old}), oltp.ErrFenced)
	pos, err := oltp.NotifierPosition(ctx, pool)
	require.NoError(t, err)
	require.EqualValues(t, 10, pos, "the refused batch moved nothing")

	b, err = oltp.BeginNotifierBatch(ctx, pool, 10)
	require.NoError(t, err)
	require.NoError(t, b.CommitFenced(ctx, 20, oltp.Fence{Role: oltp.RoleNotifier, Token: cur}))
	pos, err = oltp.NotifierPosition(ctx, pool)
	require.NoError(t, err)
	require.EqualValues(t, 20, pos)
}
