package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadSourcesIndexesADirectoryOnce checks that a worker reading a window in claimed batches
// pays for the directory (its resolver, its sources by key) once, not once per batch: at
// 100,000 companies the resolver alone cost 140 ms and 200,000 allocations a batch, 1,500
// batches a window. It also
// checks what the index must not change: the named sources are read once each, in the
// directory's order, unknown keys are skipped, and another directory gets its own index.
func TestReadSourcesIndexesADirectoryOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, htmlPage(""))
	}))
	t.Cleanup(srv.Close)
	c, err := newCrawler(nil, newState(), Config{Fetch: FetchConfig{AllowPrivate: true}, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)

	const companies = 20_000
	dir := &Directory{Tick: 1, Regions: []string{"eu"}, Companies: make([]Company, companies)}
	for i := range dir.Companies {
		dir.Companies[i] = Company{Domain: fmt.Sprintf("company%d.example", i), Name: fmt.Sprintf("Company Number %d GmbH", i), Region: "eu"}
	}
	for _, k := range []string{"b1", "b2", "b3"} {
		dir.Sources = append(dir.Sources, Source{Key: k, Vendor: "jsonld", Kind: "board", Region: "eu", URL: srv.URL + "/" + k + "/jobs"})
	}
	ctx := context.Background()

	reads, err := c.ReadSources(ctx, dir, 1, []string{"b3", "nope", "b1", "b3"})
	require.NoError(t, err)
	require.Len(t, reads, 2)
	require.Equal(t, "b1", reads[0].SourceKey, "reads come in the directory's order")
	require.Equal(t, "b3", reads[1].SourceKey)
	for _, r := range reads {
		require.Equal(t, StatusOK, r.Status, r.Reason)
		require.Equal(t, 1, r.Pages)
	}

	idx := c.readIdx
	require.NotNil(t, idx)
	require.Len(t, idx.res.byDomain, companies)
	for range 3 {
		_, err := c.ReadSources(ctx, dir, 1, []string{"b2"})
		require.NoError(t, err)
		require.Same(t, idx, c.readIdx, "a later batch of the same directory builds no index")
	}

	next := &Directory{Tick: 2, Regions: dir.Regions, Companies: dir.Companies,
		Sources: append([]Source{{Key: "b4", Vendor: "jsonld", Kind: "board", Region: "eu", URL: srv.URL + "/b4/jobs"}}, dir.Sources...)}
	reads, err = c.ReadSources(ctx, next, 2, []string{"b4", "b2"})
	require.NoError(t, err)
	require.Len(t, reads, 2, "another directory gets its own index")
	require.Equal(t, "b4", reads[0].SourceKey)
	require.Equal(t, "b2", reads[1].SourceKey)
	require.NotSame(t, idx, c.readIdx)
}
