package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAChainOfPagesGoesOnWhileItsPagesCome: a board of 60 pages, each 30 ms, read one after
// another (each page links the next), takes longer than its source deadline of 1 s. With a
// per-page budget each page read moves the deadline on, so the chain is read whole; its bound
// still stops it (at 1.2 s, short of the 1.8 s the pages take at least), and a chain whose page
// stops coming (3 s, past the 100 ms that each of the 4 pages before it earned) still fails.
func TestAChainOfPagesGoesOnWhileItsPagesCome(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("p"))
		wait := 30 * time.Millisecond
		if r.URL.Path == "/stuck" && n == 4 {
			wait = 3 * time.Second
		}
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			return
		}
		next := ""
		if n+1 < 60 {
			next = fmt.Sprintf("%s?p=%d", r.URL.Path, n+1)
		}
		w.Write([]byte(htmlPage(next)))
	}))
	t.Cleanup(srv.Close) // after the parallel subtests
	read := func(t *testing.T, path string, cfg FetchConfig) sourceStatus {
		cfg.Backoff = time.Millisecond
		cfg.ChainDepth = 1 // page after page: ?p=N is numbered, and read ahead the 60 pages take far less than 1 s
		c := quietCrawler(t, Config{Fetch: cfg})
		status, _ := collectSources(t, context.Background(), c, Source{Key: "jsonld:" + path, Vendor: "jsonld", Kind: "board", URL: srv.URL + path})
		return status["jsonld:"+path]
	}
	for _, tc := range []struct {
		name, path string
		cfg        FetchConfig
		want       sourceStatus
	}{
		{"no budget: the deadline is the source's", "/chain", FetchConfig{SourceDeadline: time.Second}, sourceFailed},
		{"a budget per page read", "/chain", FetchConfig{SourceDeadline: time.Second, PageBudget: 2 * time.Second}, sourceOK},
		{"the bound holds", "/chain", FetchConfig{SourceDeadline: time.Second, PageBudget: 2 * time.Second, SourceDeadlineMax: 1200 * time.Millisecond}, sourceFailed},
		{"a page that stops coming", "/stuck", FetchConfig{SourceDeadline: time.Second, PageBudget: 100 * time.Millisecond}, sourceFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, read(t, tc.path, tc.cfg))
		})
	}
	var cfg FetchConfig
	cfg.PageBudget = DefaultPageBudget
	cfg.defaults()
	require.Equal(t, DefaultSourceDeadlineMax, cfg.SourceDeadlineMax, "a budget without a bound takes the crawl's bound")
}
