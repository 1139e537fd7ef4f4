package pipeline

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/pipeline/ats"
)

const leverBody = `[{"id":"a1","text":"Backend Engineer","categories":{"location":"Berlin"},"country":"DE","createdAt":1767225600000,"hostedUrl":"https://jobs.example/a1"}]`

// testFetcher is a fetcher for servers on loopback (AllowPrivate).
func testFetcher(t testing.TB, cfg FetchConfig) *Fetcher {
	t.Helper()
	cfg.AllowPrivate = true
	f, err := NewFetcher(cfg)
	require.NoError(t, err)
	return f
}

// noRobots serves h, and a 404 for /robots.txt (no rules) without calling h.
func noRobots(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	})
}

func lever(t *testing.T) ats.Adapter {
	ad, ok := ats.For("lever")
	require.True(t, ok)
	return ad
}

func TestFetchHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var first time.Time
	srv := httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		require.GreaterOrEqual(t, time.Since(first), 900*time.Millisecond, "retried before Retry-After")
		w.Write([]byte(leverBody))
	}))
	defer srv.Close()
	f := testFetcher(t, FetchConfig{Backoff: time.Millisecond})
	res, err := f.fetchPage(context.Background(), lever(t), srv.URL+"/v0/postings/x?mode=json", validators{}, nil)
	require.NoError(t, err)
	require.Len(t, res.page.Postings, 1)
	require.EqualValues(t, 2, calls.Load())
}

func TestFetchRetries5xxThenGivesUpAndDoesNotRetry404(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	f := testFetcher(t, FetchConfig{Backoff: time.Millisecond, Attempts: 3})
	_, err := f.fetchPage(context.Background(), lever(t), srv.URL+"/down", validators{}, nil)
	require.Error(t, err)
	require.EqualValues(t, 3, calls.Load())
	calls.Store(0)
	_, err = f.fetchPage(context.Background(), lever(t), srv.URL+"/gone", validators{}, nil)
	require.Error(t, err)
	require.EqualValues(t, 1, calls.Load(), "a 404 is not retried")
}

func TestFetchTimesOutSlowSources(t *testing.T) {
	// Not parallel: it times a 50 ms timeout against a 2 s bound, which the crawls beside it would
	// stretch.
	srv := httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	f := testFetcher(t, FetchConfig{Timeout: 50 * time.Millisecond, Backoff: time.Millisecond})
	start := time.Now()
	_, err := f.fetchPage(context.Background(), lever(t), srv.URL, validators{}, nil)
	require.Error(t, err)
	require.Less(t, time.Since(start), 2*time.Second, "a slow source must not hold the cycle")
}

func TestFetchConditionalAndGzip(t *testing.T) {
	t.Parallel()
	var notModified atomic.Int32
	srv := httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		require.Equal(t, "gzip", r.Header.Get("Accept-Encoding"))
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(leverBody))
		zw.Close()
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(buf.Bytes())
	}))
	defer srv.Close()
	f := testFetcher(t, FetchConfig{})
	p1, err := f.fetchPage(context.Background(), lever(t), srv.URL, validators{}, nil)
	require.NoError(t, err)
	require.Len(t, p1.page.Postings, 1)
	require.Equal(t, `"v1"`, p1.val.etag)
	p2, err := f.fetchPage(context.Background(), lever(t), srv.URL, p1.val, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, notModified.Load())
	require.True(t, p2.notModified, "a 304 is reported so the crawler replays what it kept")
}
