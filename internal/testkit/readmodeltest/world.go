// Package readmodeltest crawls a simulated world (every crawl region, or those a test names) into
// a test ClickHouse database (through command crawlworld, a process built without the race
// detector) and keeps the simulator's ground truth of what the crawl saw, for the tests of the
// company read model and of its handlers; and it counts every company's
// technologies straight from the ledger (TechLedger), the reference of the technographics
// handlers. It is imported by tests only; it must not import readmodel or the search index (the
// tests compare them against this independent truth).
package readmodeltest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/proctest"
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

// Crawl crawls the world fault-free into a fresh ClickHouse database and records the truth at
// every crawled tick; the world stays served on loopback (Base) for CrawlAt. The crawl runs in
// a process of its own built without the race detector (command crawlworld, on the listener the
// world keeps): the read side's tests run under -race, and there the crawl only builds their
// fixture (package pipeline's tests crawl under -race). The world serves its bodies uncompressed
// (sim.Config.NoGzip) for the same reason.
func Crawl(t testing.TB, cfg Config) *World {
	t.Helper()
	ctx := context.Background()
	if cfg.Step <= 0 {
		cfg.Step = 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	ch, opts := storetest.ClickHouse(t, "readmodel")
	crawlApart(t, cfg, ln, opts)
	sw := sim.New(SimConfig(cfg, base))
	srv := &http.Server{Handler: sw.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	t.Cleanup(func() { srv.Close() })

	c, err := pipeline.NewCrawler(ctx, ch, CrawlerConfig()) // the state the crawl committed
	require.NoError(t, err)
	w := &World{Sim: sw, CH: ch, Crawler: c, Base: base, Regions: cfg.Regions, Companies: map[uint64]sim.Company{}, Covered: map[uint64]bool{},
		FirstSeen: map[uint64]map[string]time.Time{}, OpenedByWeek: map[uint64]map[time.Time]int{}}
	for _, tick := range cfg.TickList() {
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
	sw.Pin(w.Ticks[len(w.Ticks)-1]) // where the crawl left the world's served tick
	for _, co := range sw.Directory(w.Ticks[len(w.Ticks)-1]).Companies {
		if w.crawls(co.Region) {
			w.Companies[pipeline.CompanyID(co.Domain)] = co
		}
	}
	return w
}

// TickList is the ticks cfg crawls, in order.
func (cfg Config) TickList() []int {
	step := max(cfg.Step, 1)
	var ticks []int
	for tick := cfg.First; tick <= cfg.Last; tick += step {
		ticks = append(ticks, tick)
	}
	return ticks
}

// SimConfig is the simulated world of cfg served at base.
func SimConfig(cfg Config, base string) sim.Config {
	return sim.Config{Seed: cfg.Seed, Companies: cfg.Companies, BaseURL: base, NoGzip: true}
}

// CrawlerConfig is the fixture crawler's configuration: the simulator on loopback, at full speed
// (HostRate 0), quiet.
func CrawlerConfig() pipeline.Config {
	return pipeline.Config{Log: slog.New(slog.DiscardHandler), Fetch: pipeline.FetchConfig{AllowPrivate: true}}
}

// CrawlTick crawls tick of sw, served at base, with c: every region, or only regions.
func CrawlTick(ctx context.Context, c *pipeline.Crawler, sw *sim.World, base string, regions []string, tick int) error {
	sw.Pin(tick)
	if len(regions) == 0 {
		_, err := c.RunTick(ctx, base, tick)
		return err
	}
	dir, err := pipeline.FetchDirectory(ctx, http.DefaultClient, base, tick)
	if err != nil {
		return err
	}
	_, err = c.RunRegions(ctx, dir, regions)
	return err
}

// crawlApart runs command crawlworld, built without the race detector, to crawl cfg into the
// database of opts, serving the world on ln.
func crawlApart(t testing.TB, cfg Config, ln net.Listener, opts analytics.Options) {
	t.Helper()
	world, err := json.Marshal(cfg)
	require.NoError(t, err)
	f, err := ln.(*net.TCPListener).File()
	require.NoError(t, err)
	defer f.Close()
	bin := filepath.Join(t.TempDir(), "crawlworld")
	build := exec.Command("go", "build", "-o", bin, "github.com/planehq/hiringsignal/internal/testkit/readmodeltest/crawlworld")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "cannot build command crawlworld:\n%s", out)
	cmd := exec.Command(bin, "-world", string(world), "-clickhouse-addr", opts.Addr, "-clickhouse-database", opts.Database)
	cmd.ExtraFiles = []*os.File{f}
	proctest.DieWithParent(cmd)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "cannot crawl the fixture world:\n%s", out)
}

// crawls reports whether the crawl reads region.
func (w *World) crawls(region string) bool {
	return len(w.Regions) == 0 || slices.Contains(w.Regions, region)
}

// CrawlAt crawls one more tick (every region, or Config.Regions) without updating the recorded
// truth, e.g. to commit a cycle at the wall clock's tick.
func (w *World) CrawlAt(t testing.TB, tick int) {
	t.Helper()
	require.NoError(t, CrawlTick(context.Background(), w.Crawler, w.Sim, w.Base, w.Regions, tick))
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
