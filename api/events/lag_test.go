package events_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// TestAPageReadOnALaggingReplicaEndsBeforeWhatItLacks: the read snapshot was built on a replica
// that holds every event (here: a database of its own) and the pages are read on one that lacks
// some (another database: the same ledger but for three events), as after a failover to a
// replica still catching up. A page ends before the first event it lacks, filtered or not, with
// has_more; once the events arrive, paging goes on from there and nothing was skipped.
func TestAPageReadOnALaggingReplicaEndsBeforeWhatItLacks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := newLedger(t)
	for range 4 {
		l.commit(t, 5, "cycle") // 1..20
	}
	var full string
	require.NoError(t, l.ch.QueryRow(ctx, "SELECT currentDatabase()").Scan(&full))
	lag, _ := storetest.ClickHouse(t, "events")
	require.NoError(t, lag.Exec(ctx, "INSERT INTO cycles SELECT * FROM `"+full+"`.cycles"))
	require.NoError(t, lag.Exec(ctx, "INSERT INTO events SELECT * FROM `"+full+"`.events WHERE NOT (event_seq BETWEEN 12 AND 14)"))

	snaps := snapshot.New(snapshot.Config{ClickHouse: l.ch, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(ctx, true)
	require.NoError(t, err)
	require.Equal(t, uint64(20), snaps.Current().Watermark)
	srv := apitest.StartServer(t, apitest.Options{DB: "events", Register: func(s *api.Server, _ *pgxpool.Pool) {
		events.Register(s, events.Deps{Snapshots: snaps, ClickHouse: lag, Log: apitest.Quiet()})
	}})
	c := newCaller(t, srv, "growth")

	for _, tc := range []struct {
		q    url.Values
		want []uint64
	}{
		{everyType, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{url.Values{"company_id": {"7"}}, []uint64{2, 3, 4, 6, 7, 8, 10, 11}}, // reobserved left out: a filtered page
	} {
		p := c.page(t, 0, 100, tc.q)
		require.Equal(t, tc.want, seqsOf(p.Events))
		require.Equal(t, uint64(11), p.NextCursor, "the page ends before event 12, which this replica lacks")
		require.True(t, p.HasMore)
		p = c.page(t, 11, 100, tc.q)
		require.Empty(t, p.Events)
		require.Equal(t, uint64(11), p.NextCursor, "the cursor waits")
		require.True(t, p.HasMore)
	}

	require.NoError(t, lag.Exec(ctx, "INSERT INTO events SELECT * FROM `"+full+"`.events WHERE event_seq BETWEEN 12 AND 14")) // they arrive
	got, cursor := c.all(t, 0, 4, everyType)
	var want []uint64
	for s := uint64(1); s <= 20; s++ {
		want = append(want, s)
	}
	require.Equal(t, want, seqsOf(got))
	require.Equal(t, uint64(20), cursor)
	c.requireUnits(t)
}
