package admission

import (
	"context"
	"crypto/sha256"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/apikey"
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
	a := NewAuth(pool, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
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
	a := NewAuth(pool, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
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
