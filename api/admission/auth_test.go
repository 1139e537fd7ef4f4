package admission

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// An expired cache entry is reloaded and cached again: the key is not read from Postgres on
// every later call, and calls in flight keep being counted across the reload.
func TestAuthCacheReloadsExpiredEntries(t *testing.T) {
	// Not parallel: its entries live 50 ms, which a busy process would outlast between two lookups.
	ctx := context.Background()
	pool := storetest.Postgres(t, "admission")
	acct, err := oltp.CreateAccount(ctx, pool, "growth", "ttl@example.com")
	require.NoError(t, err)
	a := NewAuth(pool, nil, slog.New(slog.DiscardHandler), nil)
	a.healthy.Store(true)
	a.ttl = 50 * time.Millisecond

	first, err := a.Lookup(ctx, acct.Key, "")
	require.NoError(t, err)
	require.NotNil(t, first)
	again, err := a.Lookup(ctx, acct.Key, "")
	require.NoError(t, err)
	require.Same(t, first, again, "served from the cache")
	first.inflight.Add(1) // a call in flight

	time.Sleep(60 * time.Millisecond)
	reloaded, err := a.Lookup(ctx, acct.Key, "")
	require.NoError(t, err)
	require.NotSame(t, first, reloaded, "an expired entry is read again")
	require.Equal(t, int64(1), reloaded.inflight.Load(), "the in-flight count survives the reload")
	h := sha256.Sum256([]byte(acct.Key))
	a.mu.RLock()
	cached := a.entries[h]
	a.mu.RUnlock()
	require.Same(t, reloaded, cached, "the reloaded entry replaces the expired one")
	next, err := a.Lookup(ctx, acct.Key, "")
	require.NoError(t, err)
	require.Same(t, reloaded, next, "and later calls are served from the cache again")
	require.Equal(t, uint64(2), a.stats.hits.Get(), "two lookups served from the cache")
	require.Equal(t, uint64(2), a.stats.lookups.Get(), "two read Postgres")
}

// The cache forgets keys it no longer serves: expired entries and misses go at the heartbeat's
// sweep, and so does a lineage's in-flight counter once no call is in flight, while a call in
// flight keeps its count.
func TestAuthSweepDropsExpiredEntriesAndIdleCounters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "admission")
	busy, err := oltp.CreateAccount(ctx, pool, "growth", "sweep-busy@example.com")
	require.NoError(t, err)
	idle, err := oltp.CreateAccount(ctx, pool, "growth", "sweep-idle@example.com")
	require.NoError(t, err)
	a := NewAuth(pool, nil, slog.New(slog.DiscardHandler), nil)
	a.healthy.Store(true)

	b, err := a.Lookup(ctx, busy.Key, "")
	require.NoError(t, err)
	require.NotNil(t, b)
	_, err = a.Lookup(ctx, idle.Key, "")
	require.NoError(t, err)
	unknown, err := apikey.New()
	require.NoError(t, err)
	_, err = a.Lookup(ctx, unknown, "198.51.100.1")
	require.NoError(t, err)
	b.Enter() // a call of busy in flight
	later := time.Now()

	a.sweep(later)
	require.Len(t, a.entries, 2, "fresh entries stay")
	require.Len(t, a.misses, 1)
	require.Len(t, a.flight, 2)

	a.sweep(later.Add(a.ttl + a.missTTL))
	require.Empty(t, a.entries, "expired entries go")
	require.Empty(t, a.misses, "expired misses go")
	require.Len(t, a.flight, 1, "the idle lineage's counter goes, the busy one's stays")
	again, err := a.Lookup(ctx, busy.Key, "")
	require.NoError(t, err)
	require.Equal(t, int64(1), again.inflight.Load(), "the call in flight is still counted")
	b.Leave()
	require.Zero(t, again.inflight.Load())
}

// killListener ends the backend of l's connection from another connection, as a failover or an
// operator would, and waits until l has reconnected.
func killListener(t *testing.T, pool *pgxpool.Pool, l *pglisten.Listener) {
	t.Helper()
	pid := l.PID()
	require.NotZero(t, pid)
	var killed bool
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", pid).Scan(&killed))
	require.True(t, killed)
	require.Eventually(t, func() bool { p := l.PID(); return p != 0 && p != pid }, 10*time.Second, 5*time.Millisecond, "the listener never reconnected")
}

// A change whose notification never arrived (here: written without one, as if sent while the
// listener was down) is seen once the listener reconnects: the cache starts afresh.
func TestAuthCacheStartsAfreshWhenItsListenerReconnects(t *testing.T) {
	ctx := context.Background()
	pool := storetest.Postgres(t, "admission")
	acct, err := oltp.CreateAccount(ctx, pool, "growth", "reconnect@example.com")
	require.NoError(t, err)
	a, l := listeningAuth(t, pool)
	k, err := a.Lookup(ctx, acct.Key, "")
	require.NoError(t, err)
	require.NotNil(t, k)
	_, err = pool.Exec(ctx, "UPDATE api_keys SET revoked_at = now() WHERE key_id = $1", acct.KeyID)
	require.NoError(t, err)
	cached, err := a.Lookup(ctx, acct.Key, "")
	require.NoError(t, err)
	require.Same(t, k, cached, "unnotified, the change is not seen yet")

	killListener(t, pool, l)
	require.Eventually(t, a.Listening, 10*time.Second, 5*time.Millisecond, "the cache is used again once the listener LISTENs again")
	k, err = a.Lookup(ctx, acct.Key, "")
	require.NoError(t, err)
	require.Nil(t, k, "the revoked key is read again and refused")

	// And notifications are heard again: a change is acknowledged at once.
	other, err := oltp.CreateAccount(ctx, pool, "growth", "reconnect-other@example.com")
	require.NoError(t, err)
	_, err = a.Lookup(ctx, other.Key, "")
	require.NoError(t, err)
	token, w := a.Expect(ctx)
	require.NoError(t, oltp.RevokeKey(ctx, pool, other.CustomerID, other.KeyID, token))
	start := time.Now()
	a.Settle(token, w)
	require.Less(t, time.Since(start), ackTimeout, "acknowledged before the timeout")
	k, err = a.Lookup(ctx, other.Key, "")
	require.NoError(t, err)
	require.Nil(t, k)
}

// Two instances, each with a listener of its own: a change made on one is answered only once
// the other dropped what it touched and acknowledged, before and after the other's listener
// reconnects; while it is down, the other reads every key from Postgres.
func TestAChangeWaitsForEveryInstanceAcrossReconnects(t *testing.T) {
	ctx := context.Background()
	pool := storetest.Postgres(t, "admission")
	a, _ := listeningAuth(t, pool)
	b, lb := listeningAuth(t, pool)
	require.Eventually(t, func() bool {
		live, err := oltp.LiveInstances(ctx, pool)
		return err == nil && len(live) == 2
	}, 5*time.Second, 10*time.Millisecond)

	for round := range 3 {
		acct, err := oltp.CreateAccount(ctx, pool, "growth", "acks-"+string(rune('a'+round))+"@example.com")
		require.NoError(t, err)
		kb, err := b.Lookup(ctx, acct.Key, "")
		require.NoError(t, err)
		require.NotNil(t, kb)
		again, err := b.Lookup(ctx, acct.Key, "")
		require.NoError(t, err)
		require.Same(t, kb, again, "b caches the key")

		token, w := a.Expect(ctx)
		require.Equal(t, 2, w.waitFor, "a waits for both instances")
		require.NoError(t, oltp.RevokeKey(ctx, pool, acct.CustomerID, acct.KeyID, token))
		start := time.Now()
		a.Settle(token, w)
		require.Less(t, time.Since(start), ackTimeout, "b acknowledged (round %d)", round)
		gone, err := b.Lookup(ctx, acct.Key, "")
		require.NoError(t, err)
		require.Nil(t, gone, "b refuses the revoked key on its next call (round %d)", round)

		killListener(t, pool, lb)
		require.Eventually(t, b.Listening, 10*time.Second, 5*time.Millisecond)
	}
}
