package sources_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
)

// turnLog records every block of turns a fetcher reserves in Postgres (oltp.HostTurns).
type turnLog struct {
	oltp.HostTurns
	mu     sync.Mutex
	blocks map[string][]turnBlock // by host
}

type turnBlock struct {
	first time.Time
	n     int
	every time.Duration
}

func (l *turnLog) Take(ctx context.Context, host string, n int, every time.Duration) (time.Time, error) {
	first, err := l.HostTurns.Take(ctx, host, n, every)
	if err == nil {
		l.mu.Lock()
		l.blocks[host] = append(l.blocks[host], turnBlock{first, n, every})
		l.mu.Unlock()
	}
	return first, err
}

// TestAVendorHostsBudgetHoldsAcrossTwoWorkers: two workers' fetchers (two processes) share the
// host turns in Postgres. Greenhouse's API host, serving every tenant, has its own rate (20
// requests a second here, FetchConfig.HostRates); a careers site keeps the default (HostRate, 4
// here).
// Every turn either reserves for the API host is spaced by its rate, and the two workers' turns
// never overlap: together they send what one worker at that rate would. The careers site's turns
// are spaced by the default.
func TestAVendorHostsBudgetHoldsAcrossTwoWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var served atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"jobs":[],"meta":{"total":0}}`)
	})
	const careers = "careers.acme.example"
	connectTo, pem := hosttest.Serve(t, mux, append(atsurl.Hosts(), careers), nil)
	pool := storetest.Postgres(t, "sources")
	turns := &turnLog{HostTurns: oltp.HostTurns{Pool: pool}, blocks: map[string][]turnBlock{}}
	cfg := pipeline.FetchConfig{ConnectTo: connectTo, CAFile: pem, HostRate: 4, HostTurns: turns,
		HostRates: map[string]float64{"boards-api.greenhouse.io": 20}}

	const boards = 12
	var wg sync.WaitGroup
	for w := range 2 {
		f, err := pipeline.NewFetcher(cfg)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range boards {
				resp, err := f.Get(ctx, fmt.Sprintf("https://boards-api.greenhouse.io/v1/boards/w%dt%d/jobs", w, i))
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, resp.Status)
			}
			resp, err := f.Get(ctx, "https://"+careers+"/jobs")
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.Status)
		}()
	}
	wg.Wait()
	require.Equal(t, int32(2*(boards+1+2)), served.Load(), "every page and each worker's two robots.txt")

	spacedBy := func(host string, every time.Duration) {
		t.Helper()
		blocks := slices.Clone(turns.blocks[host])
		require.NotEmpty(t, blocks, host)
		slices.SortFunc(blocks, func(a, b turnBlock) int { return a.first.Compare(b.first) })
		for i, b := range blocks {
			require.Equal(t, every, b.every, "%s: turns spaced by its rate", host)
			if i > 0 {
				prev := blocks[i-1]
				end := prev.first.Add(time.Duration(prev.n) * prev.every)
				require.False(t, b.first.Before(end), "%s: a block of turns starts at %s, inside the one before (to %s): two workers overlap",
					host, b.first.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano))
			}
		}
	}
	spacedBy("boards-api.greenhouse.io:443", 50*time.Millisecond)
	spacedBy(careers+":443", 250*time.Millisecond)
}
