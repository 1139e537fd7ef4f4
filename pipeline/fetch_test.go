package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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

// workdayServer answers Workday's list as the real one does: POST only, a JSON body with the
// offset, total on the first page alone, a Date header the relative dates are read against.
// /moved/… answers a 307 to the real path.
func workdayServer(t *testing.T, total int, asked *atomic.Int32) *httptest.Server {
	t.Helper()
	return httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/moved"); ok {
			http.Redirect(w, r, rest, http.StatusTemporaryRedirect)
			return
		}
		asked.Add(1)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "POST a JSON body", http.StatusMethodNotAllowed)
			return
		}
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			http.Error(w, "a POST is never conditional", http.StatusBadRequest)
			return
		}
		var req struct {
			Limit, Offset int
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Limit != 20 {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		var b strings.Builder
		stated := 0
		if req.Offset == 0 {
			stated = total
		}
		fmt.Fprintf(&b, `{"total":%d,"jobPostings":[`, stated)
		for i := req.Offset; i < min(total, req.Offset+req.Limit); i++ {
			if i > req.Offset {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"title":"Engineer %d","externalPath":"/job/Berlin/Engineer_JR%d","postedOn":"Posted Yesterday","bulletFields":["JR%d"]}`, i, i, i)
		}
		b.WriteString(`]}`)
		w.Header().Set("ETag", `"same"`)
		w.Header().Set("Date", "Fri, 09 Oct 2026 14:05:00 GMT")
		w.Write([]byte(b.String()))
	}))
}

func TestFetchPostsWorkdaysListAndKeepsItsPlaceInTheURL(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	srv := workdayServer(t, 45, &asked)
	defer srv.Close()
	ad, ok := ats.For("workday")
	require.True(t, ok)
	f := testFetcher(t, FetchConfig{})
	ctx := context.Background()

	var ids []string
	var first fetched
	for u, n := srv.URL+"/moved/wday/cxs/acme/External/jobs", 0; u != ""; n++ {
		res, err := f.fetchPage(ctx, ad, u, validators{}, nil)
		require.NoError(t, err, u)
		if n == 0 {
			first = res
		}
		for _, p := range res.page.Postings {
			ids = append(ids, p.SourceID)
			require.Equal(t, time.Date(2026, 10, 8, 0, 0, 0, 0, time.UTC), p.PostedAt, "Posted Yesterday, read against the Date served")
		}
		require.Less(t, n, 5, "paging ends")
		u = res.page.NextURL
		if u != "" {
			u = strings.Replace(u, "/wday/", "/moved/wday/", 1) // every page through the 307, its place kept
		}
	}
	require.Len(t, ids, 45)
	require.Equal(t, "/job/Berlin/Engineer_JR44", ids[44])
	require.EqualValues(t, 3, asked.Load(), "offsets 0, 20 and 40, the total carried past the first page")

	again, err := f.fetchPage(ctx, ad, srv.URL+"/wday/cxs/acme/External/jobs", first.val, nil)
	require.NoError(t, err)
	require.True(t, again.notModified && again.bodyUnchanged, "a POSTed page sends no validators; its unchanged body is known by its hash")
}
