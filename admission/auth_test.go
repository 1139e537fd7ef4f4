package admission

import (
	"context"
	"crypto/sha256"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// An expired cache entry is reloaded and cached again: the key is not read from Postgres on
// every later call, and calls in flight keep being counted across the reload.
func TestAuthCacheReloadsExpiredEntries(t *testing.T) {
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
