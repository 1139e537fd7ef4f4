package sources_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testkit/hosttest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// signalLog is a log handler that signals on (never blocking) each record whose message is msg.
type signalLog struct {
	msg string
	on  chan string
}

func (h signalLog) Enabled(context.Context, slog.Level) bool { return true }
func (h signalLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h signalLog) WithGroup(string) slog.Handler            { return h }
func (h signalLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		select {
		case h.on <- r.Message:
		default:
		}
	}
	return nil
}

// TestAnOnDemandCrawlAndAWorkerNeverReadOneSourceAtOnce: a company with two Greenhouse boards.
// A worker (claiming one source at a time) is inside the first board's read, which hangs, when
// an on-demand crawl of the company starts: it leases the second board, finds the first leased
// and waits, without sending a request to it. Once the worker's read returns and is stored, the
// on-demand crawl leases the first board too, reads both and gives the leases back; the worker
// then reads what it had not. No board ever has two requests in flight, and each is read once
// for the window.
func TestAnOnDemandCrawlAndAWorkerNeverReadOneSourceAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	entered := make(chan string, 16) // a request to the hanging board arrived
	release := make(chan struct{})
	var inflight, most [2]atomic.Int32
	var hung sync.Once
	mux := http.NewServeMux()
	for i, tenant := range []string{"acme", "acmejobs"} {
		mux.HandleFunc("GET boards-api.greenhouse.io/v1/boards/"+tenant+"/jobs", func(w http.ResponseWriter, r *http.Request) {
			n := inflight[i].Add(1)
			defer inflight[i].Add(-1)
			for m := most[i].Load(); n > m && !most[i].CompareAndSwap(m, n); m = most[i].Load() {
			}
			if i == 0 {
				entered <- tenant
				hang := false
				hung.Do(func() { hang = true })
				if hang {
					<-release
				}
			}
			fmt.Fprintf(w, `{"jobs":[{"id":%d,"title":"Engineer","absolute_url":"https://job-boards.greenhouse.io/%s/jobs/1","location":{"name":"Berlin, Germany"},"updated_at":"2026-11-20T10:00:00Z"}],"meta":{"total":1}}`,
				100+i, tenant)
		})
	}
	connectTo, pem := hosttest.Serve(t, mux, atsurl.Hosts(), nil)
	var released sync.Once
	letGo := func() { released.Do(func() { close(release) }) }
	t.Cleanup(letGo) // before the server closes: a failed test leaves no request hanging
	pool := storetest.Postgres(t, "sources")
	ch, _ := storetest.ClickHouse(t, "sources")
	_, err := sources.Import(ctx, pool, strings.NewReader("domain,name,vendor,tenant,hq_country\nacme.de,Acme,greenhouse,acme,DE\nacme.de,Acme,greenhouse,acmejobs,DE\n"),
		sources.ImportOptions{File: "acme.csv", By: "test", Apply: true})
	require.NoError(t, err)
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler),
		Fetch: pipeline.FetchConfig{ConnectTo: connectTo, CAFile: pem}})
	require.NoError(t, err)
	waiting := make(chan string, 1)
	const tick = 40
	clock := sources.Clock{Epoch: time.Now().Add(-tick*sources.DefaultWindowLength - time.Hour)}
	crawl := &sources.Crawl{Pool: pool, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: clock, Owner: "host:1", Batch: 1,
		OnDemandWait: time.Hour, Log: slog.New(signalLog{msg: "on-demand crawl waits for sources a crawl worker is reading", on: waiting})}
	dir, err := sources.Directory(ctx, pool, tick, time.Now())
	require.NoError(t, err)

	type result struct {
		n   int
		st  pipeline.CycleStats
		err error
	}
	workerDone, onDemandDone := make(chan result, 1), make(chan result, 1)
	go func() {
		n, err := crawl.ReadDue(ctx, tick, true)
		workerDone <- result{n: n, err: err}
	}()
	require.Equal(t, "acme", <-entered, "the worker reads the first board first")
	go func() {
		st, err := crawl.CrawlCompany(ctx, dir, "acme.de", time.Now())
		onDemandDone <- result{st: st, err: err}
	}()
	select {
	case <-waiting:
	case <-entered:
		t.Fatal("the on-demand crawl sent a request to a board the worker was reading")
	case r := <-onDemandDone:
		t.Fatalf("the on-demand crawl did not wait for the board the worker was reading: %+v", r)
	}
	letGo()

	od := <-onDemandDone
	require.NoError(t, od.err)
	require.Equal(t, 2, od.st.SourcesOK, "the on-demand crawl read both boards once the worker gave the first back")
	require.Zero(t, od.st.NotFetched)
	w := <-workerDone
	require.NoError(t, w.err)
	more, err := crawl.ReadDue(ctx, tick, true)
	require.NoError(t, err)
	require.Equal(t, 2, w.n+more, "the on-demand crawl took no read from the window: each board is read once for it")
	for i := range most {
		require.Equal(t, int32(1), most[i].Load(), "board %d never had two requests in flight", i)
	}
}
