package sources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/discovery"
	"github.com/planehq/hiringsignal/pipeline/sources"
	"github.com/planehq/hiringsignal/sim"
)

// worldMove is a company of a simulated world that moves ATS vendor: its source before and
// after, and the first tick on the new one (the old tenant answers 404 from then on).
type worldMove struct {
	domain   string
	from, to string // source keys
	tick     int
}

// movesIn lists the companies of world that move vendor in (first, last] and that discovery can
// find on the new vendor (DiscoveryTruth discoverable, the tenant the source it publishes).
func movesIn(world *sim.World, first, last int) []worldMove {
	before, after := world.DiscoveryTruth(first), world.DiscoveryTruth(last)
	var out []worldMove
	for i := range before {
		b, a := before[i], after[i]
		if len(b.Own) == 0 || len(a.Own) == 0 || b.Own[0] == a.Own[0] || !a.Discoverable || a.Site == sim.SiteJSONLD {
			continue
		}
		m := worldMove{domain: a.Domain, from: b.Own[0], to: a.Own[0], tick: last}
		for tick := first + 1; tick < last; tick++ {
			if world.DiscoveryTruth(tick)[i].Own[0] == a.Own[0] {
				m.tick = tick
				break
			}
		}
		out = append(out, m)
	}
	return out
}

// TestAVendorMoveFoundByDiscoveryKeepsEveryReq runs the production path across companies of a
// simulated world that move ATS vendor, with nothing scripted: the world's registry is imported
// once, before the moves; two workers read each window's due sources and, whenever none is due,
// run the queued discoveries (discovery.Discover over the worker's own fetcher, as the binary
// does); one committer commits each window. When a company's old tenant starts answering 404,
// the registry must learn the move by itself: the worker that read the 404 queues the company,
// its re-discovery finds the new vendor on the company's own site and makes it active with its
// evidence, and the committer retires the old source ("moved to NEW") once a committed window
// read the new one ok. No req the truth keeps open closes or opens again across the move, the
// ATS history (the source of GET /v1/companies/{id}/ats-migrations) dates the move within a
// window of the world's, and no company that did not move is touched.
func TestAVendorMoveFoundByDiscoveryKeepsEveryReq(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Seed 7's companies 0..599 hold four discoverable moves at ticks 593 to 601.
	const seed, companies, first, last = 7, 600, 592, 602
	world, fetch := hostWorld(t, sim.Config{Seed: seed, Companies: companies, NoGzip: true})
	moves := movesIn(world, first, last)
	require.GreaterOrEqual(t, len(moves), 3, "the range holds several moves discovery can find")
	for _, m := range moves {
		require.Greater(t, m.tick, first, "%s moves after the import", m.domain)
		require.Less(t, m.tick, last, "%s moves with a window left to see it", m.domain)
	}

	pool := storetest.Postgres(t, "sources_move")
	ch, _ := storetest.ClickHouse(t, "sources_move")
	importWorld(t, pool, world, first) // once: the moves are the registry's to learn
	run := crawltruth.New()
	quiet := slog.New(slog.DiscardHandler)
	newCrawler := func(hook func(string, string, string)) *pipeline.Crawler {
		c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: fetch, Log: quiet, OnObservation: hook})
		require.NoError(t, err)
		return c
	}
	codec := pipeline.NewReadCodec()
	clock := sources.Clock{Epoch: world.CycleTime(0)}
	var workers []*sources.Crawl
	for i := range 2 {
		c := newCrawler(nil)
		owner := fmt.Sprintf("worker-%d", i+1)
		workers = append(workers, &sources.Crawl{Pool: pool, Crawler: c, Codec: codec, Clock: clock, Owner: owner, Batch: 32,
			Discovery: &sources.DiscoveryRunner{Pool: pool, Owner: owner, Budget: 20, Log: quiet,
				Discover: func(ctx context.Context, co discovery.Company) (discovery.Result, error) {
					return discovery.Discover(ctx, c.Fetcher(), co, discovery.Options{}), nil
				}}})
	}
	committer := &sources.Crawl{Pool: pool, Crawler: newCrawler(run.Hook), Codec: codec, Clock: clock, Owner: "committer"}

	source := func(key string) (oltp.RegistrySource, bool) {
		s, _, err := oltp.GetSource(ctx, pool, key)
		if err != nil {
			require.ErrorIs(t, err, oltp.ErrSourceNotFound)
			return s, false
		}
		return s, true
	}
	// The window in which each move's new source was first in the registry, first read ok, and
	// its old source retired (-1: not yet).
	type seen struct{ added, readOK, retired int }
	progress := make([]seen, len(moves))
	for i := range progress {
		progress[i] = seen{-1, -1, -1}
	}
	for tick := first; tick <= last; tick++ {
		world.Pin(tick)
		var wg sync.WaitGroup
		errs := make([]error, len(workers))
		for i, w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = w.ReadDue(ctx, tick, false)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		run.Begin(tick)
		stats, err := committer.Commit(ctx, tick, world.CycleTime(tick))
		require.NoError(t, err)
		require.Len(t, stats, 7)
		run.End(t, tick, world.Truth(tick), crawltruth.Unread(stats))

		for i, m := range moves {
			p := &progress[i]
			old, ok := source(m.from)
			require.True(t, ok)
			nu, found := source(m.to)
			if found && p.added < 0 {
				require.GreaterOrEqual(t, tick, m.tick, "%s: %s is found only once the company is on it", m.domain, m.to)
				p.added = tick
			}
			if found && nu.LastOKAt != nil && p.readOK < 0 {
				p.readOK = tick
			}
			if old.Status != oltp.SourceRetired {
				require.Equal(t, oltp.SourceActive, old.Status, "%s: %s", m.domain, old.StatusReason)
				continue
			}
			if p.retired < 0 {
				p.retired = tick
				require.True(t, found && nu.LastOKAt != nil && !nu.LastOKAt.After(old.StatusAt),
					"%s: %s is retired only after %s was read ok", m.domain, m.from, m.to)
			}
		}
	}

	for i, m := range moves {
		p := progress[i]
		nu, ok := source(m.to)
		t.Logf("%s moved %s -> %s at tick %d: new source found at %d, read ok at %d, old retired at %d (new source: last status %q %q, failures %d, next due %s, cooldown %v)",
			m.domain, m.from, m.to, m.tick, p.added, p.readOK, p.retired, nu.LastStatus, nu.LastReason, nu.Failures, nu.NextDueAt, nu.CooldownUntil)
		require.True(t, ok, "%s: discovery found %s", m.domain, m.to)
		require.Equal(t, oltp.SourceActive, nu.Status)
		require.Equal(t, sources.DiscoverBy, nu.AddedBy)
		var ev map[string]any
		require.NoError(t, json.Unmarshal(nu.Evidence, &ev), "%s: the new source carries discovery's evidence", m.domain)
		require.NotEmpty(t, ev["via"])
		require.NotEmpty(t, ev["checked_url"])
		require.NotEmpty(t, ev["at"])
		d, err := oltp.GetDiscovery(ctx, pool, m.domain)
		require.NoError(t, err)
		require.Equal(t, oltp.DiscoveryCovered, d.Status)
		require.Equal(t, oltp.DiscoveryByRediscovery, d.RequestedBy, "%s: queued because its old tenant broke", m.domain)

		old, _ := source(m.from)
		require.Equal(t, oltp.SourceRetired, old.Status, "%s: the old source is retired", m.domain)
		require.Equal(t, "moved to "+m.to, old.StatusReason)
		require.Equal(t, sources.DiscoverBy, old.StatusBy)
		require.LessOrEqual(t, p.readOK, p.retired)
		require.LessOrEqual(t, p.retired, m.tick+1, "%s: the move is done within two windows", m.domain)
	}

	// Only the companies that moved were touched: their old sources are the only ones retired,
	// their new ones the only ones discovery added.
	var wantRetired, wantAdded []string
	for _, m := range moves {
		wantRetired, wantAdded = append(wantRetired, m.from), append(wantAdded, m.to)
	}
	keys := func(q string) []string {
		rows, err := pool.Query(ctx, q)
		require.NoError(t, err)
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return out
	}
	require.ElementsMatch(t, wantRetired, keys("SELECT source_key FROM crawl_sources WHERE status <> 'active'"))
	require.ElementsMatch(t, wantAdded, keys("SELECT source_key FROM crawl_sources WHERE added_by = 'discovery'"))

	// The movers' reqs across the move: none the truth keeps open closes, reopens or opens twice,
	// and every one live at the end is open in the ledger.
	ledger := crawltruth.Ledger(t, ch)
	for _, m := range moves {
		live := map[int]map[string]bool{}
		mine := map[string]bool{}
		for tick := first; tick <= last; tick++ {
			live[tick] = map[string]bool{}
			for _, r := range run.Truths[tick].Reqs {
				if r.CompanyDomain == m.domain {
					k := crawltruth.TruthKey(r)
					live[tick][k], mine[k] = true, true
				}
			}
		}
		require.NotEmpty(t, live[m.tick], "%s has live reqs across its move", m.domain)
		open := map[string]bool{}
		for _, e := range ledger {
			if !mine[e.ReqKey] {
				continue
			}
			tick := int(e.Tick)
			switch e.Type {
			case "opened", "reposted":
				require.False(t, open[e.ReqKey], "%s: req %s %s at tick %d while open", m.domain, e.ReqKey, e.Type, tick)
				require.False(t, tick > first && live[tick-1][e.ReqKey] && live[tick][e.ReqKey],
					"%s: req %s %s at tick %d though the truth kept it open", m.domain, e.ReqKey, e.Type, tick)
				open[e.ReqKey] = true
			case "closed":
				require.False(t, live[tick][e.ReqKey], "%s: req %s closed at tick %d while live", m.domain, e.ReqKey, tick)
				open[e.ReqKey] = false
			}
		}
		for k := range live[last] {
			require.True(t, open[k], "%s: req %s, live at the end, is open in the ledger", m.domain, k)
		}
	}
	run.Score(t, ch, first, last)

	// The ATS history reports both vendors, the new one from the window that first read it.
	history, err := analytics.ATSHistory(ctx, ch)
	require.NoError(t, err)
	for _, m := range moves {
		id := pipeline.CompanyID(m.domain)
		var got []string
		var movedAt time.Time
		for _, v := range history {
			if v.CompanyID != id {
				continue
			}
			got = append(got, v.Vendor+":"+v.Tenant)
			movedAt = v.FirstSeen
		}
		require.Equal(t, []string{m.from, m.to}, got, "%s: both vendors, in order", m.domain)
		require.InDelta(t, m.tick, world.TickAt(movedAt), 1, "%s: the move is dated within a window of tick %d", m.domain, m.tick)
	}
}
