package sources_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// TestASuspectDropIsShownInTheRegistryAndClearedByAConfirmingRead: a Greenhouse board that falls
// from 6 reqs to none is suspect in the registry after its window (its reqs open); the next
// window's read, with the board endpoint still answering, confirms the drop: the reqs close and
// the source is active again.
func TestASuspectDropIsShownInTheRegistryAndClearedByAConfirmingRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var jobs atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/acme/jobs", func(w http.ResponseWriter, r *http.Request) {
		var parts []string
		for i := range int(jobs.Load()) {
			parts = append(parts, fmt.Sprintf(`{"id":%d,"title":"Engineer %s","absolute_url":"https://job-boards.greenhouse.io/acme/jobs/%d","location":{"name":"Berlin, Germany"},"updated_at":"2026-11-20T10:00:00Z"}`,
				100+i, strings.Repeat("I", i+1), 100+i))
		}
		fmt.Fprintf(w, `{"jobs":[%s],"meta":{"total":%d}}`, strings.Join(parts, ","), len(parts))
	})
	mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/acme", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"name":"Acme","content":""}`)
	})
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), nil)

	pool := storetest.Postgres(t, "sources")
	ch, _ := storetest.ClickHouse(t, "sources")
	_, err := sources.Import(ctx, pool, strings.NewReader("domain,name,vendor,tenant,hq_country\nacme.de,Acme,greenhouse,acme,DE\n"),
		sources.ImportOptions{File: "one.csv", By: "test", Apply: true})
	require.NoError(t, err)
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler),
		Fetch: pipeline.FetchConfig{ConnectTo: connectTo, CAFile: pem}})
	require.NoError(t, err)
	epoch := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	crawl := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: sources.Clock{Epoch: epoch}, Owner: "w"}
	window := func(tick int) pipeline.CycleStats {
		t.Helper()
		_, err := crawl.ReadDue(ctx, tick, true)
		require.NoError(t, err)
		stats, err := crawl.Commit(ctx, tick, epoch.Add(time.Duration(tick)*sources.DefaultWindowLength+time.Hour))
		require.NoError(t, err)
		for _, st := range stats {
			if st.Region == "dach" {
				return st
			}
		}
		t.Fatal("no dach cycle")
		return pipeline.CycleStats{}
	}
	status := func() (string, string) {
		s, _, err := oltp.GetSource(ctx, pool, "greenhouse:acme")
		require.NoError(t, err)
		return s.Status, s.StatusReason
	}

	jobs.Store(6)
	require.Equal(t, 6, window(0).ByType["opened"])
	jobs.Store(0)
	st := window(1)
	require.Equal(t, 1, st.SourcesSuspect)
	require.Zero(t, st.ByType["closed"])
	got, why := status()
	require.Equal(t, oltp.SourceSuspect, got)
	require.Contains(t, why, "far fewer reqs")

	st = window(2) // still empty, a window later, the board still there: confirmed
	require.Zero(t, st.SourcesSuspect)
	require.Equal(t, 6, st.ByType["closed"])
	got, _ = status()
	require.Equal(t, oltp.SourceActive, got)
}
