package sources_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// TestAWindowOfAnyLengthKeepsItsShapes: a clock of another window length numbers its windows by
// that length and keeps the same shapes inside each: a source due at its stable offset before the
// last twelfth (the retry margin), a long source at the window's start, the refetch a twelfth
// later; the zero length is the default 3 hours.
func TestAWindowOfAnyLengthKeepsItsShapes(t *testing.T) {
	t.Parallel()
	epoch := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	def := sources.Clock{Epoch: epoch}
	require.Equal(t, sources.DefaultWindowLength, def.Window())
	require.Equal(t, 15*time.Minute, def.RetryMargin())
	require.Equal(t, sources.DefaultRefetchAfter, def.RefetchAfter())
	require.Equal(t, 8, def.Tick(epoch.Add(24*time.Hour)))

	short := sources.Clock{Epoch: epoch, Length: 2 * time.Minute}
	require.Equal(t, 10*time.Second, short.RetryMargin())
	require.Equal(t, 10*time.Second, short.RefetchAfter())
	require.Equal(t, -1, short.Tick(epoch.Add(-time.Second)))
	require.Equal(t, 0, short.Tick(epoch.Add(119*time.Second)))
	require.Equal(t, 720, short.Tick(epoch.Add(24*time.Hour)))
	require.Equal(t, epoch.Add(6*time.Minute), short.Start(3))
	for _, key := range []string{"greenhouse:acme", "lever:northwind", "jsonld:www.jobsnorth.example/jobs?page=1", "aggregator:feed.jobmesh.example/v1/feed?region=na"} {
		off := short.Offset(key)
		require.GreaterOrEqual(t, off, time.Duration(0), key)
		require.Less(t, off, 110*time.Second, "%s: due before the window's retry margin", key)
		require.Equal(t, short.Start(4).Add(off), short.Due(4, key, 1), key)
		require.Equal(t, short.Start(4), short.Due(4, key, oltp.LongSourcePages), "%s: a long source at the window's start", key)
		require.Less(t, def.Offset(key), def.Window()-def.RetryMargin(), key)
	}
}

// TestAWindowWithoutRoomIsRefused: a window shorter than a minute, or whose retry margin cannot
// hold a lapsed claim and the read again of its source, is refused with what to change.
func TestAWindowWithoutRoomIsRefused(t *testing.T) {
	t.Parallel()
	require.NoError(t, sources.Clock{}.Check(oltp.CrawlReadLease, 2*time.Minute), "the defaults")
	require.NoError(t, sources.Clock{Length: 2 * time.Minute}.Check(4*time.Second, 5*time.Second))
	require.ErrorContains(t, sources.Clock{Length: 30 * time.Second}.Check(time.Second, time.Second), "too short: give at least 1m0s")
	err := sources.Clock{Length: time.Hour}.Check(oltp.CrawlReadLease, 2*time.Minute)
	require.ErrorContains(t, err, "keeps its last 5m0s (a twelfth) for retries, less than a claim's lease (5m0s) and a source's read deadline (2m0s)")
	require.ErrorContains(t, err, "give a window of at least 1h24m0s")
}
