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

// TestOnRequestReportsEveryRequestsOutcome: every request the fetcher sends (robots.txt, each
// attempt and redirect hop) is reported once, with the vendor of the source it was for, its host
// and what it came to.
func TestOnRequestReportsEveryRequestsOutcome(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	flaky := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		case "/etag":
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Write([]byte(leverBody))
		case "/plain": // no validators: the second read is a body unchanged
			w.Write([]byte(leverBody))
		case "/flaky": // a 503, a 429, then the page
			mu.Lock()
			flaky++
			n := flaky
			mu.Unlock()
			switch n {
			case 1:
				w.WriteHeader(http.StatusServiceUnavailable)
			case 2:
				w.WriteHeader(http.StatusTooManyRequests)
			default:
				w.Write([]byte(leverBody))
			}
		case "/moved":
			http.Redirect(w, r, "/plain", http.StatusFound)
		case "/broken":
			w.Write([]byte("{not json"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var got []FetchOutcome
	f := testFetcher(t, FetchConfig{Backoff: time.Millisecond, Attempts: 3, OnRequest: func(o FetchOutcome) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, o)
	}})
	ctx := withVendor(context.Background(), "lever")
	outcomes := func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for _, o := range got {
			u, _ := url.Parse(srv.URL)
			require.Equal(t, "lever", o.Vendor)
			require.Equal(t, u.Hostname(), o.Host)
			require.Greater(t, o.Took, time.Duration(0))
			out[o.Outcome]++
		}
		got = nil
		return out
	}

	p, err := f.fetchPage(ctx, lever(t), srv.URL+"/etag", validators{}, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]int{OutcomeOK: 2}, outcomes(), "robots.txt and the page")
	_, err = f.fetchPage(ctx, lever(t), srv.URL+"/etag", p.val, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]int{OutcomeNotModified: 1}, outcomes())

	p, err = f.fetchPage(ctx, lever(t), srv.URL+"/plain", validators{}, nil)
	require.NoError(t, err)
	_, err = f.fetchPage(ctx, lever(t), srv.URL+"/plain", p.val, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]int{OutcomeOK: 1, OutcomeBodyUnchanged: 1}, outcomes())

	_, err = f.fetchPage(ctx, lever(t), srv.URL+"/flaky", validators{}, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]int{Outcome5xx: 1, Outcome429: 1, OutcomeOK: 1}, outcomes())

	_, err = f.fetchPage(ctx, lever(t), srv.URL+"/moved", validators{}, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]int{OutcomeRedirect: 1, OutcomeOK: 1}, outcomes())

	_, err = f.fetchPage(ctx, lever(t), srv.URL+"/gone", validators{}, nil)
	require.Error(t, err)
	require.Equal(t, map[string]int{Outcome4xx: 1}, outcomes())

	_, err = f.fetchPage(ctx, lever(t), srv.URL+"/broken", validators{}, nil)
	require.Error(t, err)
	require.Equal(t, map[string]int{OutcomeError: 3}, outcomes(), "an unparsable body is retried, each attempt an error")

	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	_, err = f.fetchPage(ctx, lever(t), deadURL+"/x", validators{}, nil)
	require.Error(t, err)
	// robots.txt unanswered is not a fetch error: the page is blocked without being asked.
	require.Equal(t, map[string]int{OutcomeError: 1}, outcomes())
}
