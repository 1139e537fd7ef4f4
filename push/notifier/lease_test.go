package notifier_test

import (
	"context"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/leader"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/notifier"
)

// candidate is one instance's notifier under the notifier lease, as serve runs it.
type candidate struct {
	n *notifier.Notifier
	e *leader.Elector
}

func (e *env) candidate(owner string) *candidate {
	e.t.Helper()
	c := &candidate{}
	c.n = notifier.New(notifier.Config{Pool: e.pool, ClickHouse: e.ch, Snapshots: e.snaps, Poll: 20 * time.Millisecond, Log: quiet,
		Fence: func() (oltp.Fence, bool) {
			t, ok := c.e.Token()
			return oltp.Fence{Role: oltp.RoleNotifier, Token: t}, ok
		}})
	c.e = leader.New(leader.Config{Store: oltp.Leases{Pool: e.pool}, Role: oltp.RoleNotifier, Owner: owner, Part: c.n, TTL: time.Second, Log: quiet})
	require.NoError(e.t, c.e.Start(context.Background()))
	e.t.Cleanup(func() { _ = c.e.Stop(context.Background()) })
	return c
}

func (c *candidate) leads() bool { _, ok := c.e.Token(); return ok }

// Two instances compete for the notifier lease: only the holder notifies (the other never
// starts its notifier), and once the holder stops the other takes over and delivers what
// followed, each (watch, event) once.
func TestOnlyTheLeaseHolderNotifiesAndAnotherTakesOver(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, ep := e.account("growth")
	w := e.watch(a, ep, 9, "", types, 1000)
	one, two := e.candidate("instance-1"), e.candidate("instance-2")
	require.Eventually(t, func() bool { return one.leads() || two.leads() }, time.Minute, 10*time.Millisecond)
	holder, other := one, two
	if two.leads() {
		holder, other = two, one
	}
	require.False(t, other.leads())

	want := e.commit(ev{9, "opened", "Spain"}, ev{8, "opened", "Spain"}, ev{9, "closed", "Spain"})
	want = []uint64{want[0], want[2]}
	e.caughtUp(holder.n)
	require.Equal(t, want, seqsOf(e.deliveries(), w, oltp.DeliveryPending))
	require.Zero(t, other.n.Position(), "the instance without the lease never started its notifier")

	require.NoError(t, holder.e.Stop(context.Background()))
	require.Eventually(t, other.leads, time.Minute, 10*time.Millisecond, "the other instance takes the lease over")
	more := e.commit(ev{9, "reposted", "Spain"}, ev{7, "opened", "Spain"})
	want = append(want, more[0])
	e.caughtUp(other.n)
	require.Equal(t, want, seqsOf(e.deliveries(), w, oltp.DeliveryPending))
	require.EqualValues(t, len(want), e.fires(w))
}

// A notifier that still believes it holds the lease after another instance took it over (a
// process paused past its lease) has every batch refused: nothing written, the position kept.
func TestAStaleLeaseHolderWritesNoDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	a, ep := e.account("growth")
	e.watch(a, ep, 9, "", types, 1000)
	leases := oltp.Leases{Pool: e.pool}
	stale, ok, err := leases.Acquire(ctx, oltp.RoleNotifier, "paused", time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, leases.Release(ctx, oltp.RoleNotifier, "paused", stale)) // lapsed while paused
	_, ok, err = leases.Acquire(ctx, oltp.RoleNotifier, "current", time.Hour)
	require.NoError(t, err)
	require.True(t, ok)

	set := metrics.NewSet()
	n := notifier.New(notifier.Config{Pool: e.pool, ClickHouse: e.ch, Snapshots: e.snaps, Poll: 20 * time.Millisecond, Log: quiet, Metrics: set,
		Fence: func() (oltp.Fence, bool) { return oltp.Fence{Role: oltp.RoleNotifier, Token: stale}, true }})
	require.NoError(t, n.Start(ctx))
	t.Cleanup(func() { _ = n.Stop(context.Background()) })
	require.Eventually(t, func() bool { _, err := oltp.NotifierPosition(ctx, e.pool); return err == nil }, time.Minute, 10*time.Millisecond)
	from := e.position()
	e.commit(ev{9, "opened", "Spain"})
	n.Wake()
	fenced := set.GetOrCreateCounter("hs_notifier_batches_fenced_total")
	require.Eventually(t, func() bool { return fenced.Get() > 0 }, time.Minute, 10*time.Millisecond)
	require.Empty(t, e.deliveries())
	require.Equal(t, from, e.position())
}
