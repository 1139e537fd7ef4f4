package oltp_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// storeRead stores one read of key in window tick, read at readAt.
func storeRead(t *testing.T, pool *pgxpool.Pool, key string, tick int, status, reason string, readAt time.Time) {
	t.Helper()
	require.NoError(t, oltp.StoreCrawlReads(context.Background(), pool, []oltp.CrawlRead{{Tick: tick, SourceKey: key, ReadAt: readAt,
		Worker: "w", Status: status, Reason: reason, Sightings: []byte{}, NextDue: readAt.Add(-time.Minute)}}))
}

// claimable reports whether a worker may claim key in window tick (every source due, as --once).
func claimable(t *testing.T, pool *pgxpool.Pool, key string, tick int) bool {
	t.Helper()
	keys, err := oltp.ClaimDueSources(context.Background(), pool, "probe", tick, 100, time.Millisecond, true)
	require.NoError(t, err)
	time.Sleep(2 * time.Millisecond) // the probe's lease lapses
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

// TestFailingSourceCoolsDownTurnsSuspectAndNeverRetires reads one source through a sequence of
// windows: two failures change nothing but the count; from the third it cools down 6 h, 12 h,
// then 24 h at most, and is not claimed while it cools; blocked and not-fetched windows neither
// count nor forgive; the eighth failure makes it suspect with a reason, never retired; an ok read
// resets the count, the cooldown and the suspect status.
func TestFailingSourceCoolsDownTurnsSuspectAndNeverRetires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	_, err := oltp.UpsertRegistry(ctx, pool, registryBatch(), true)
	require.NoError(t, err)
	const key = "greenhouse:acme"
	get := func() oltp.RegistrySource {
		t.Helper()
		s, _, err := oltp.GetSource(ctx, pool, key)
		require.NoError(t, err)
		return s
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	past := now.Add(-48 * time.Hour) // reads whose cooldown is over
	tick := 100

	// Two failures: counted, no cooldown.
	for i := 1; i <= 2; i++ {
		storeRead(t, pool, key, tick, "failed", "status 503", past)
		tick++
		s := get()
		require.Equal(t, i, s.Failures)
		require.Nil(t, s.CooldownUntil)
		require.Equal(t, "failed", s.LastStatus)
		require.Equal(t, "status 503", s.LastReason)
	}
	require.True(t, claimable(t, pool, key, tick))

	// The third failure cools it down 6 h from the read; a read now keeps it unclaimed.
	storeRead(t, pool, key, tick, "failed", "status 503", now)
	tick++
	s := get()
	require.Equal(t, 3, s.Failures)
	require.NotNil(t, s.CooldownUntil)
	require.WithinDuration(t, now.Add(6*time.Hour), *s.CooldownUntil, time.Millisecond)
	require.False(t, claimable(t, pool, key, tick), "a source cooling down is not claimed, not even by --once")
	left, err := oltp.PendingCrawlSources(ctx, pool, tick)
	require.NoError(t, err)
	require.Equal(t, 2, left, "a cooling source is not left to read")
	byStatus, cooling, err := oltp.RegistryHealth(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, map[string]int{oltp.SourceCandidate: 0, oltp.SourceActive: 3, oltp.SourceSuspect: 0, oltp.SourcePaused: 0, oltp.SourceRetired: 0}, byStatus)
	require.Equal(t, 1, cooling)

	// Blocked and not-fetched windows neither count nor clear the cooldown.
	storeRead(t, pool, key, tick, "blocked", "robots.txt disallows /v1", now)
	tick++
	storeRead(t, pool, key, tick, "not_fetched", "", now)
	tick++
	s = get()
	require.Equal(t, 3, s.Failures)
	require.WithinDuration(t, now.Add(6*time.Hour), *s.CooldownUntil, time.Millisecond)

	// Each further failure doubles the cooldown, up to 24 h.
	for _, step := range []struct {
		failures int
		cooldown time.Duration
	}{{4, 12 * time.Hour}, {5, 24 * time.Hour}, {6, 24 * time.Hour}, {7, 24 * time.Hour}} {
		storeRead(t, pool, key, tick, "failed", "status 404", now)
		tick++
		s = get()
		require.Equal(t, step.failures, s.Failures)
		require.WithinDuration(t, now.Add(step.cooldown), *s.CooldownUntil, time.Millisecond, "after %d failures", step.failures)
		require.Equal(t, oltp.SourceActive, s.Status, "after %d failures", step.failures)
	}

	// The same window read again (a lapsed lease) is stored once and counted once.
	storeRead(t, pool, key, tick-1, "failed", "status 404", now)
	require.Equal(t, 7, get().Failures)

	// The eighth failure: suspect, with a reason, by the crawl; still in the crawl, never retired.
	storeRead(t, pool, key, tick, "failed", "status 404", past)
	tick++
	s = get()
	require.Equal(t, 8, s.Failures)
	require.Equal(t, oltp.SourceSuspect, s.Status)
	require.Equal(t, "failed 8 windows in a row; last: status 404", s.StatusReason)
	require.Equal(t, oltp.HealthBy, s.StatusBy)
	require.True(t, claimable(t, pool, key, tick), "a suspect source whose cooldown is over is read again")
	byStatus, cooling, err = oltp.RegistryHealth(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, 1, byStatus[oltp.SourceSuspect])
	require.Equal(t, 2, byStatus[oltp.SourceActive])
	require.Zero(t, cooling)
	storeRead(t, pool, key, tick, "failed", "", now)
	tick++
	s = get()
	require.Equal(t, 9, s.Failures)
	require.Equal(t, oltp.SourceSuspect, s.Status)
	require.Equal(t, "failed 8 windows in a row; last: status 404", s.StatusReason, "already suspect: the reason stands")
	require.WithinDuration(t, now.Add(24*time.Hour), *s.CooldownUntil, time.Millisecond)

	// An ok read resets the count and the cooldown, and the suspect status the crawl set.
	storeRead(t, pool, key, tick, "ok", "", now)
	tick++
	s = get()
	require.Zero(t, s.Failures)
	require.Nil(t, s.CooldownUntil)
	require.Equal(t, oltp.SourceActive, s.Status)
	require.Empty(t, s.StatusReason)
	require.NotNil(t, s.LastOKAt)
	require.True(t, claimable(t, pool, key, tick))
}

// TestHealthLeavesOperatorsStatusesAlone: a paused source that keeps failing is not made suspect;
// an ok read does not make active a source an operator made suspect; resuming a cooling source
// makes it due at once.
func TestHealthLeavesOperatorsStatusesAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	_, err := oltp.UpsertRegistry(ctx, pool, registryBatch(), true)
	require.NoError(t, err)
	now := time.Now().UTC()

	const paused = "greenhouse:acme"
	_, err = oltp.SetSourceStatus(ctx, pool, paused, oltp.SourcePaused, "tenant moving", "ops")
	require.NoError(t, err)
	for tick := range oltp.SuspectAfter + 1 {
		storeRead(t, pool, paused, tick, "failed", "status 404", now)
	}
	s, _, err := oltp.GetSource(ctx, pool, paused)
	require.NoError(t, err)
	require.Equal(t, oltp.SourcePaused, s.Status)
	require.Equal(t, "tenant moving", s.StatusReason)
	require.NotNil(t, s.CooldownUntil)

	// Resumed: due now, cooldown lifted, the count kept.
	_, err = oltp.SetSourceStatus(ctx, pool, paused, oltp.SourceActive, "", "ops")
	require.NoError(t, err)
	s, _, err = oltp.GetSource(ctx, pool, paused)
	require.NoError(t, err)
	require.Nil(t, s.CooldownUntil)
	require.Equal(t, oltp.SuspectAfter+1, s.Failures)
	require.True(t, claimable(t, pool, paused, 50))

	const flagged = "lever:beta:eu"
	_, err = oltp.SetSourceStatus(ctx, pool, flagged, oltp.SourceSuspect, "", "ops")
	require.NoError(t, err)
	storeRead(t, pool, flagged, 1, "ok", "", now)
	s, _, err = oltp.GetSource(ctx, pool, flagged)
	require.NoError(t, err)
	require.Equal(t, oltp.SourceSuspect, s.Status, "an operator's suspect stands until they change it")
}
