package snapshot_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// TestALaggingReplicaDelaysTheSnapshotNeverTearsIt: a replica that holds a cycle's commit row but
// not yet its events (here: the row written alone) gets no snapshot at that cycle, only the one
// before; once the events arrive, the next refresh builds at it, with every req of it.
func TestALaggingReplicaDelaysTheSnapshotNeverTearsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "snapshot")
	at := func(tick uint32) time.Time {
		return time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(tick) * 3 * time.Hour)
	}
	acme := analytics.Company{CompanyID: 7, Domain: "acme.com", Name: "Acme", Region: "eu", Covered: true, UpdatedAt: at(1)}
	cycle := func(tick uint32, from, to uint64) *analytics.CycleWrite {
		w := &analytics.CycleWrite{Cycle: analytics.Cycle{Region: "eu", Tick: tick, CycleTime: at(tick), StartedAt: at(tick), Events: to - from + 1, SeqFrom: from, SeqTo: to}}
		for s := from; s <= to; s++ {
			w.Events = append(w.Events, analytics.Event{Seq: s, Type: analytics.EventOpened, ReqKey: fmt.Sprintf("%016x", s), CompanyID: 7, Region: "eu",
				Tick: tick, OccurredAt: at(tick), ObservedAt: at(tick), FirstSeen: at(tick), RawTitle: "Backend Engineer", Title: "Backend Engineer",
				Country: "Germany", SourceType: "board", Board: "greenhouse"})
		}
		return w
	}
	first := cycle(1, 1, 3)
	first.Companies = []analytics.Company{acme}
	require.NoError(t, analytics.WriteCycle(ctx, ch, first, 100))
	s := snapshot.New(snapshot.Config{ClickHouse: ch, Log: slog.New(slog.DiscardHandler), Poll: time.Hour})
	built, err := s.Refresh(ctx, false)
	require.NoError(t, err)
	require.True(t, built)
	require.Equal(t, uint64(3), s.Current().Watermark)

	second := cycle(2, 4, 8)
	require.NoError(t, analytics.WriteCycle(ctx, ch, &analytics.CycleWrite{Cycle: second.Cycle}, 100)) // the commit row alone
	for range 2 {
		built, err = s.Refresh(ctx, false)
		require.NoError(t, err)
		require.False(t, built, "no snapshot at a cycle whose events the replica lacks")
	}
	snap, err := snapshot.Build(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, uint64(3), snap.Watermark, "a build stays below it too")
	require.Equal(t, 3, snap.Model.LiveReqs())

	require.NoError(t, analytics.WriteCycle(ctx, ch, second, 100)) // the events arrive
	built, err = s.Refresh(ctx, false)
	require.NoError(t, err)
	require.True(t, built)
	cur := s.Current()
	require.Equal(t, uint64(8), cur.Watermark)
	require.True(t, at(2).Equal(cur.AsOf))
	require.Equal(t, 8, cur.Model.LiveReqs(), "every req of the cycle")
	built, err = s.Refresh(ctx, false)
	require.NoError(t, err)
	require.False(t, built, "nothing moved since")
}
