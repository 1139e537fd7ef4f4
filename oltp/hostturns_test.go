package oltp_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// TestHostTurnsNeverOverlap: workers taking turns for one host at once get consecutive,
// non-overlapping blocks, so the host sees the rate whatever the number of workers; another host
// is independent.
func TestHostTurnsNeverOverlap(t *testing.T) {
	t.Parallel()
	pool := storetest.Postgres(t, "oltp")
	turns := oltp.HostTurns{Pool: pool}
	ctx := context.Background()
	const every, n, takers = 100 * time.Millisecond, 4, 8
	var mu sync.Mutex
	var firsts []time.Time
	var wg sync.WaitGroup
	for range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first, err := turns.Take(ctx, "boards-api.greenhouse.io:443", n, every)
			require.NoError(t, err)
			mu.Lock()
			firsts = append(firsts, first)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(firsts, func(i, j int) bool { return firsts[i].Before(firsts[j]) })
	for i := 1; i < len(firsts); i++ {
		require.GreaterOrEqual(t, firsts[i].Sub(firsts[i-1]), n*every, "block %d overlaps the one before", i)
	}
	other, err := turns.Take(ctx, "api.lever.co:443", n, every)
	require.NoError(t, err)
	require.True(t, other.Before(firsts[len(firsts)-1]), "another host's turns do not queue behind this one's")
}
