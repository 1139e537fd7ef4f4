// Package readmodeltest crawls a simulated world (every crawl region, or those a test names) into
// a test ClickHouse database and keeps the simulator's ground truth of what the crawl saw, for
// the tests of the company read model and of its handlers; and it counts every company's
// technologies straight from the ledger (TechLedger), the reference of the technographics
// handlers. It is imported by tests only; it must not import readmodel or the search index (the
// tests compare them against this independent truth).
package readmodeltest

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// Config is the world to crawl: Companies companies of seed Seed, crawled at ticks First,
// First+Step, ... up to Last.
type Config struct {
	Seed      int64
	Companies int
	First     int
	Last      int
	Step      int
	// Regions are the crawl regions to crawl (nil: every region of the directory, as a tick of
	// the service does). Each region's cycle is a handful of ClickHouse inserts, so a test that
	// crawls many ticks crawls fewer regions; the truth then keeps only their companies.
	Regions []string
}

// World is a crawled world and its truth as the crawl saw it.
type World struct {
	Sim     *sim.World
	CH      driver.Conn
	Crawler *pipeline.Crawler
	Base    string
	Regions []string // Config.Regions: the regions each crawl reads (nil: every region)
	Ticks   []int
	Now     time.Time // cycle time of the last crawled tick

	// Companies of the directory by company_id.
	Companies map[uint64]sim.Company
	// Covered: companies with an ATS tenant at some crawled tick.
	Covered map[uint64]bool
	// Live: company → req_key → truth req at the last tick.
	Live map[uint64]map[string]sim.TruthReq
	// FirstSeen: company → req_key → cycle time of the first crawled tick that showed it.
	FirstSeen map[uint64]map[string]time.Time
	// OpenedByWeek: company → Monday → reqs first seen that week, after the first crawled tick
	// (the reqs live at it are left-censored: no opening).
	OpenedByWeek map[uint64]map[time.Time]int
}

// TruthKey is the req_key the crawl gives a truth req.
func TruthKey(r sim.TruthReq) string {
	country, _ := normalize.CountryName(r.Country)
	return pipeline.ReqKey(pipeline.CompanyID(r.CompanyDomain), normalize.TitleKey(r.Title), country)
}

// Monday returns the Monday 00:00 UTC of t's week.
func Monday(t time.Time) time.Time {
	t = t.UTC().Truncate(24 * time.Hour)
	for t.Weekday() != time.Monday {
		t = t.Add(-24 * time.Hour)
	}
	return t
}

// Crawl serves the world on loopback, crawls it fault-free into a fresh ClickHouse database and
// records the truth at every crawled tick. The world serves its bodies uncompressed
// (sim.Config.NoGzip): the crawl only builds a fixture, and gzip under the race detector was a
// large share of its time (package pipeline's tests crawl gzipped bodies).
func Crawl(t testing.TB, cfg Config) *World {
	t.Helper()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	sw := sim.New(sim.Config{Seed: cfg.Seed, Companies: cfg.Companies, BaseURL: base, NoGzip: true})
	srv := &http.Server{Handler: sw.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	t.Cleanup(func() { srv.Close() })

	ch, _ := storetest.ClickHouse(t, "readmodel")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler), Fetch: pipeline.FetchConfig{AllowPrivate: true}}) // the simulator on loopback, at full speed (HostRate 0)
	require.NoError(t, err)
	w := &World{Sim: sw, CH: ch, Crawler: c, Base: base, Regions: cfg.Regions, Companies: map[uint64]sim.Company{}, Covered: map[uint64]bool{},
		FirstSeen: map[uint64]map[string]time.Time{}, OpenedByWeek: map[uint64]map[time.Time]int{}}
	if cfg.Step <= 0 {
		cfg.Step = 1
	}
	for tick := cfg.First; tick <= cfg.Last; tick += cfg.Step {
		w.CrawlAt(t, tick)
		w.Ticks = append(w.Ticks, tick)
		at := sw.CycleTime(tick).UTC()
		w.Now = at
		dir := sw.Directory(tick)
		regionOf := map[string]string{} // company domain → region
		if len(w.Regions) > 0 {
			for _, co := range dir.Companies {
				regionOf[co.Domain] = co.Region
			}
		}
		crawled := func(domain string) bool { return w.crawls(regionOf[domain]) }
		for _, s := range dir.Sources {
			if s.Kind == sim.KindATSTenant && crawled(s.CompanyDomain) {
				w.Covered[pipeline.CompanyID(s.CompanyDomain)] = true
			}
		}
		live := map[uint64]map[string]sim.TruthReq{}
		for _, r := range sw.Truth(tick).Reqs {
			if !crawled(r.CompanyDomain) {
				continue
			}
			id := pipeline.CompanyID(r.CompanyDomain)
			k := TruthKey(r)
			if live[id] == nil {
				live[id] = map[string]sim.TruthReq{}
			}
			live[id][k] = r
			if w.FirstSeen[id] == nil {
				w.FirstSeen[id] = map[string]time.Time{}
				w.OpenedByWeek[id] = map[time.Time]int{}
			}
			if _, ok := w.FirstSeen[id][k]; !ok {
				w.FirstSeen[id][k] = at
				if tick != cfg.First { // live at the first crawl: left-censored, no opening
					w.OpenedByWeek[id][Monday(at)]++
				}
			}
		}
		w.Live = live
	}
	for _, co := range sw.Directory(w.Ticks[len(w.Ticks)-1]).Companies {
		if w.crawls(co.Region) {
			w.Companies[pipeline.CompanyID(co.Domain)] = co
		}
	}
	return w
}

// crawls reports whether the crawl reads region.
func (w *World) crawls(region string) bool {
	return len(w.Regions) == 0 || slices.Contains(w.Regions, region)
}

// CrawlAt crawls one more tick (every region, or Config.Regions) without updating the recorded
// truth, e.g. to commit a cycle at the wall clock's tick.
func (w *World) CrawlAt(t testing.TB, tick int) {
	t.Helper()
	ctx := context.Background()
	w.Sim.Pin(tick)
	if len(w.Regions) == 0 {
		_, err := w.Crawler.RunTick(ctx, w.Base, tick)
		require.NoError(t, err)
		return
	}
	dir, err := pipeline.FetchDirectory(ctx, http.DefaultClient, w.Base, tick)
	require.NoError(t, err)
	_, err = w.Crawler.RunRegions(ctx, dir, w.Regions)
	require.NoError(t, err)
}

// TickAt is the first tick whose cycle time is at or after at.
func (w *World) TickAt(at time.Time) int {
	epoch := w.Sim.CycleTime(0)
	d := at.Sub(epoch)
	tick := int(d / sim.TickDuration)
	if epoch.Add(time.Duration(tick) * sim.TickDuration).Before(at) {
		tick++
	}
	return tick
}
