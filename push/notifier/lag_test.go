package notifier_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
)

// TestALaggingReplicaDelaysTheNotifierNeverSkips: a replica that holds a cycle's commit row but
// not yet its events (here: the row written alone, a later cycle committed whole above it) keeps
// the notifier's position below them, on the snapshot path and on the fast path, and once the
// events arrive every event is delivered, each once.
func TestALaggingReplicaDelaysTheNotifierNeverSkips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	a, ep := e.account("growth")
	w := e.watch(a, ep, 7, "", types, 1000)
	n := e.start(0)
	want := e.commit(ev{7, "opened", "Germany"}, ev{7, "opened", "Germany"})
	e.caughtUp(n)

	lagging, seqs := e.cycle(ev{7, "opened", "Germany"}, ev{7, "opened", "France"}, ev{7, "opened", "Spain"})
	want = append(want, seqs...)
	require.NoError(t, analytics.WriteCycle(ctx, e.ch, &analytics.CycleWrite{Cycle: lagging.Cycle, Companies: lagging.Companies}, 1000))
	want = append(want, e.commit(ev{7, "closed", "Germany"})...)
	require.Equal(t, uint64(2), e.watermark(), "the snapshot waits too")
	n.Wake()
	require.Never(t, func() bool { return n.Position() > 2 }, time.Second, 10*time.Millisecond, "no batch passes the missing events")

	require.NoError(t, analytics.WriteCycle(ctx, e.ch, lagging, 1000)) // the events arrive
	n.Wake()
	require.Eventually(t, func() bool { return n.Position() == want[len(want)-1] }, time.Minute, 10*time.Millisecond)
	require.Equal(t, want, seqsOf(e.deliveries(), w, ""), "every event, each once")
}
