package analytics_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// Writes whose callers end their contexts as soon as each write returns (a deferred cancel of a
// per-call deadline) never break the write that takes the pooled connection next: clickhouse-go's
// Send closes the connection when its context ends, from a goroutine that could still run after
// Send returned and the connection went back to the pool, so the next write on it failed with
// "use of closed network connection".
func TestWritesWhoseContextsEndRightAfterDoNotBreakTheNext(t *testing.T) {
	t.Parallel()
	_, opts := storetest.ClickHouse(t, "analytics_cancel")
	ch, err := clickhouse.Open(&clickhouse.Options{Addr: opts.Addrs(), Auth: clickhouse.Auth{Database: opts.Database, Username: "default"},
		MaxOpenConns: 1, MaxIdleConns: 1}) // every write on the same connection, taken as the last one gives it back
	require.NoError(t, err)
	t.Cleanup(func() { ch.Close() })

	// Goroutines that keep every core busy, as a crawl's fetches and parsing do: a goroutine the
	// driver starts then waits its turn, as it does under load.
	stop := make(chan struct{})
	var spin sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		spin.Add(1)
		go func() {
			defer spin.Done()
			for x := 0; ; x++ {
				select {
				case <-stop:
					return
				default:
				}
				for range 1 << 14 {
					x ^= x << 1
				}
			}
		}()
	}
	defer spin.Wait()
	defer close(stop)

	const writers, writes = 4, 40
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				text := fmt.Sprintf("description %d of writer %d", i, w)
				ds := []analytics.Description{{ReqKey: fmt.Sprintf("%016x", w*writes+i+1), Hash: analytics.DescriptionHash(text), Text: text}}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err := analytics.WriteDescriptions(ctx, ch, ds, time.Now().UTC())
				cancel()
				if err != nil {
					errs[w] = fmt.Errorf("write %d of writer %d: %w", i, w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	var n uint64
	require.NoError(t, ch.QueryRow(context.Background(), "SELECT count() FROM req_descriptions").Scan(&n))
	require.EqualValues(t, writers*writes, n)
}
