package pipeline_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// simServer serves a world on loopback; the directory carries its real base URL.
func simServer(t *testing.T, cfg sim.Config) (*sim.World, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	cfg.BaseURL = base
	w := sim.New(cfg)
	srv := &http.Server{Handler: w.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	t.Cleanup(func() { srv.Close() })
	return w, base
}

// faultyWorld is the faulty world of the crawl tests. Its slow sources sleep SlowDelay, and the
// crawl waits for its fetch timeouts on them, only at the ticks slowAt accepts (nil: none); at
// every other tick the same sources fail at once (sim.Config.SlowTicks), so a long crawl does not
// wait two timeouts a tick while the sources that fail, and so the expected ledger, stay the same.
func faultyWorld(companies int, slowAt func(tick int) bool) sim.Config {
	if slowAt == nil {
		slowAt = func(int) bool { return false }
	}
	return sim.Config{Seed: 42, Companies: companies,
		FaultServerError: 0.03, FaultRateLimit: 0.02, FaultSlow: 0.01, FaultMalformedRecord: 0.03,
		FaultMalformedBody: 0.01, FaultVanish: 0.02,
		SlowDelay: 3 * time.Second, // twice the fetch timeout, so only slow sources fail even on a loaded machine
		SlowTicks: slowAt}
}

func testFetch() pipeline.FetchConfig {
	return pipeline.FetchConfig{Workers: 16, PerHost: 16, Timeout: 1500 * time.Millisecond, Attempts: 4,
		Backoff: 5 * time.Millisecond, MaxRetryWait: 50 * time.Millisecond, // Retry-After is honoured in TestFetchHonoursRetryAfter
		AllowPrivate: true} // the simulator on loopback; HostRate 0: unlimited
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

type observed struct {
	mu     sync.Mutex
	byTick map[int]map[[2]string]string // (source_key, source_id) → req_key
	tick   int
}

func (o *observed) hook(sourceKey, sourceID, reqKey string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := o.byTick[o.tick]
	if m == nil {
		m = map[[2]string]string{}
		o.byTick[o.tick] = m
	}
	m[[2]string{sourceKey, sourceID}] = reqKey
}

type ledgerRow struct {
	seq    uint64
	typ    string
	reqKey string
	tick   uint32
}

func readLedger(t *testing.T, ch driver.Conn) []ledgerRow {
	t.Helper()
	ctx := context.Background()
	var wm uint64
	require.NoError(t, ch.QueryRow(ctx, "SELECT max(seq_to) FROM cycles").Scan(&wm))
	rows, err := ch.Query(ctx, "SELECT event_seq, event_type, req_key, tick FROM events FINAL WHERE event_seq <= ? ORDER BY event_seq", wm)
	require.NoError(t, err)
	defer rows.Close()
	var out []ledgerRow
	for rows.Next() {
		var r ledgerRow
		require.NoError(t, rows.Scan(&r.seq, &r.typ, &r.reqKey, &r.tick))
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

func truthKey(r sim.TruthReq) string {
	country, _ := normalize.CountryName(r.Country)
	return pipeline.ReqKey(pipeline.CompanyID(r.CompanyDomain), normalize.TitleKey(r.Title), country)
}

type expEvent struct {
	tick int
	typ  string
	key  string
}

// TestCrawlMatchesGroundTruth crawls a faulty world for 32 ticks and scores dedup and the ledger
// against the simulator's ground truth. Its slow sources time out for real in the first
// slowTicks ticks (10 of them, at least one each tick); later they fail at once.
func TestCrawlMatchesGroundTruth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const companies, first, ticks, slowTicks = 250, 800, 32, 4
	world, base := simServer(t, faultyWorld(companies, func(tick int) bool { return tick < first+slowTicks }))
	ch, _ := storetest.ClickHouse(t, "pipeline")
	obs := &observed{byTick: map[int]map[[2]string]string{}}
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog(), OnObservation: obs.hook})
	require.NoError(t, err)

	failed := map[int]map[string]bool{}
	truths := map[int]sim.Truth{}
	totalFailed, notModified := 0, 0
	for tick := first; tick < first+ticks; tick++ {
		world.Pin(tick)
		obs.mu.Lock()
		obs.tick = tick
		obs.mu.Unlock()
		t0 := time.Now()
		stats, err := c.RunTick(ctx, base, tick)
		require.NoError(t, err)
		if tick < first+slowTicks {
			t.Logf("tick %d took %s (collect %s, emit %s in na)", tick, time.Since(t0), stats[0].CollectTook, stats[0].EmitTook)
		}
		require.Len(t, stats, 7)
		failed[tick] = map[string]bool{}
		for _, s := range stats {
			notModified += s.NotModified
			for _, f := range s.FailedSources {
				failed[tick][f] = true
				totalFailed++
			}
		}
		truths[tick] = world.Truth(tick)
		// Every source the world says cannot be read was failed by us, never read as empty.
		for _, fs := range truths[tick].FailedSources {
			require.True(t, failed[tick][fs], "tick %d: world-failed source %s was not marked failed", tick, fs)
		}
	}
	require.Positive(t, totalFailed, "the faults must actually bite")
	require.Positive(t, notModified, "unchanged pages must be replayed from the page cache (304)")
	t.Logf("pages answered 304 and replayed: %d", notModified)

	// 1. Dedup: B-cubed precision and recall of our req assignment over the postings, against truth.
	var precSum, recSum float64
	var n, missed int
	for tick := first; tick < first+ticks; tick++ {
		truthOf := map[[2]string]string{}
		for _, r := range truths[tick].Reqs {
			for _, p := range r.Postings {
				truthOf[[2]string{p.SourceKey, p.SourceID}] = r.TruthID
			}
		}
		ours := obs.byTick[tick]
		predMembers := map[string][][2]string{}
		truthMembers := map[string][][2]string{}
		for p, k := range ours {
			predMembers[k] = append(predMembers[k], p)
		}
		for p, id := range truthOf {
			if _, seen := ours[p]; seen {
				truthMembers[id] = append(truthMembers[id], p)
			} else if !failed[tick][p[0]] {
				missed++ // a readable posting we did not resolve
			}
		}
		for p, k := range ours {
			tid, ok := truthOf[p]
			require.True(t, ok, "tick %d: we observed %v which the world does not have", tick, p)
			inter := 0
			for _, q := range predMembers[k] {
				if truthOf[q] == tid {
					inter++
				}
			}
			precSum += float64(inter) / float64(len(predMembers[k]))
			recSum += float64(inter) / float64(len(truthMembers[tid]))
			n++
		}
	}
	precision, recall := precSum/float64(n), recSum/float64(n)
	t.Logf("dedup over %d posting observations: precision %.4f recall %.4f, unresolved readable postings %d", n, precision, recall, missed)
	require.GreaterOrEqual(t, precision, 0.99)
	require.GreaterOrEqual(t, recall, 0.99)
	require.LessOrEqual(t, float64(missed)/float64(n), 0.01)

	// 2. The ledger: event_seq ascending and gap-free.
	ledger := readLedger(t, ch)
	require.NotEmpty(t, ledger)
	for i, r := range ledger {
		require.Equal(t, uint64(i+1), r.seq, "event_seq must be 1..n without gaps")
	}

	// 3. Expected events from the truth and what was observable (a req is seen when any posting of
	// it sits on a source we read; it may close only when every source that carried it when last
	// seen was read).
	expected := map[expEvent]bool{}
	type st struct {
		live    bool
		sources map[string]bool
	}
	state := map[string]*st{}
	liveAt := map[int]map[string]sim.TruthReq{} // tick → req_key → the truth req live then
	for tick := first; tick < first+ticks; tick++ {
		liveNow := map[string]sim.TruthReq{}
		for _, r := range truths[tick].Reqs {
			liveNow[truthKey(r)] = r
		}
		liveAt[tick] = liveNow
		for k, r := range liveNow {
			srcs := map[string]bool{}
			for _, p := range r.Postings {
				if !failed[tick][p.SourceKey] {
					srcs[p.SourceKey] = true
				}
			}
			if len(srcs) == 0 {
				continue // not observable this tick
			}
			s := state[k]
			switch {
			case s == nil:
				expected[expEvent{tick, "opened", k}] = true
				s = &st{}
				state[k] = s
			case !s.live:
				expected[expEvent{tick, "reposted", k}] = true
			}
			s.live, s.sources = true, srcs
		}
		for k, s := range state {
			if _, live := liveNow[k]; live || !s.live {
				continue
			}
			ok := true
			for src := range s.sources {
				if failed[tick][src] {
					ok = false
				}
			}
			if ok {
				expected[expEvent{tick, "closed", k}] = true
				s.live = false
			}
		}
	}
	got := map[expEvent]bool{}
	for _, r := range ledger {
		if r.typ != "reobserved" {
			got[expEvent{int(r.tick), r.typ, r.reqKey}] = true
		}
	}
	var missing, extra []expEvent
	for e := range expected {
		if !got[e] {
			missing = append(missing, e)
		}
	}
	for e := range got {
		if !expected[e] {
			extra = append(extra, e)
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].tick < missing[j].tick })
	sort.Slice(extra, func(i, j int) bool { return extra[i].tick < extra[j].tick })
	t.Logf("ledger: %d events, %d expected transitions; missing %d, extra %d", len(ledger), len(expected), len(missing), len(extra))
	require.Empty(t, missing, "every truth transition has its event (first few: %v)", head(missing))
	require.Empty(t, extra, "every event matches a truth transition (first few: %v)", head(extra))

	// 4. Every truth transition after the first tick is in the ledger at its tick or, when the
	// crawl could not see the req, later; and no close happened while the req was live.
	delayed := 0
	for tick := first + 1; tick < first+ticks; tick++ {
		byID := map[string]string{}
		for _, r := range truths[tick].Reqs {
			byID[r.TruthID] = truthKey(r)
		}
		for _, r := range truths[tick-1].Reqs {
			if _, ok := byID[r.TruthID]; !ok {
				byID[r.TruthID] = truthKey(r)
			}
		}
		for _, tr := range truths[tick].Transitions {
			if !got[expEvent{tick, tr.Kind, byID[tr.TruthID]}] {
				delayed++
			}
		}
	}
	t.Logf("truth transitions seen late because their sources failed: %d", delayed)
	for e := range got {
		if e.typ != "closed" {
			continue
		}
		_, live := liveAt[e.tick][e.key] // the req_keys of every truth req live at e.tick
		require.False(t, live, "req %s closed at tick %d while live", e.key, e.tick)
	}
}

func head(xs []expEvent) []expEvent {
	if len(xs) > 5 {
		return xs[:5]
	}
	return xs
}
