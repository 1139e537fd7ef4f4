package pipeline

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memTurns is HostTurns in memory: a virtual clock per host, as oltp.HostTurns keeps in Postgres.
type memTurns struct {
	mu    sync.Mutex
	next  map[string]time.Time
	takes map[string]int
	every []time.Duration
}

func (m *memTurns) Take(_ context.Context, host string, n int, every time.Duration) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	first := time.Now()
	if m.next[host].After(first) {
		first = m.next[host]
	}
	m.next[host] = first.Add(time.Duration(n) * every)
	m.takes[host]++
	m.every = append(m.every, every)
	return first, nil
}

// TestSharedTurnsPaceEveryFetcher: two fetchers (two worker processes) with one HostTurns take
// every request's turn from it, spaced by the host's rate, instead of pacing each on its own.
func TestSharedTurnsPaceEveryFetcher(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	turns := &memTurns{next: map[string]time.Time{}, takes: map[string]int{}}
	u, err := url.Parse(srv.URL + "/jobs")
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 2 {
		f, err := NewFetcher(FetchConfig{AllowPrivate: true, HostRate: 200, HostTurns: turns})
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 6 {
				resp, done, err := f.send(context.Background(), u, validators{}, false)
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, resp.StatusCode)
				done("")
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 12, hits)
	host := hostKey(u)
	require.GreaterOrEqual(t, turns.takes[host], 12/turnBlock, "every request took a shared turn")
	for _, e := range turns.every {
		require.Equal(t, 5*time.Millisecond, e, "turns are spaced by the host's rate")
	}

	// Unlimited (the simulator): no turn is taken at all.
	f, err := NewFetcher(FetchConfig{AllowPrivate: true, HostTurns: turns})
	require.NoError(t, err)
	before := turns.takes[host]
	resp, done, err := f.send(context.Background(), u, validators{}, false)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	done("")
	require.Equal(t, before, turns.takes[host])
}
