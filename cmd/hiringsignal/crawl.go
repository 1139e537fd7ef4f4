package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"net/url"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
	"github.com/planehq/hiringsignal/sim"
)

type crawlFlags struct {
	simURL                     *string
	workers, perHost, attempts *int
	timeout                    *time.Duration
	epoch                      *string
	memLimitMiB                *int
	sourceDeadline             *time.Duration
	pageBudget, sourceMax      *time.Duration
	maxBodyMiB, bodyBudgetMiB  *int
	pageCacheMiB               *int
	userAgent                  *string
	maxPages, chainDepth       *int

	// Real hosts' flags (addRealHostFlags, crawl only). Left nil, the crawl reads the simulator:
	// any address dialled, no rate per host.
	connectTo    *[]string
	caFile       *string
	hostRate     *float64
	hostRates    *[]string
	allowPrivate *bool
}

func addCrawlFlags(fs *flagenv.Set) *crawlFlags {
	return &crawlFlags{
		simURL:      fs.String("sim-url", "http://127.0.0.1:7070", "base URL of the source directory and sources (the simulator on this machine)"),
		workers:     fs.Int("fetch-workers", 32, "sources fetched at once"),
		perHost:     fs.Int("fetch-per-host", 32, "requests in flight per host"),
		attempts:    fs.Int("fetch-attempts", 4, "attempts per page on 5xx, 429, timeouts"),
		timeout:     fs.Duration("fetch-timeout", 10*time.Second, "timeout of one fetch attempt"),
		epoch:       fs.String("epoch", "2026-01-05T00:00:00Z", "time of tick 0 of the crawl clock (one tick = one crawl window: --window-length on the registry, 3 hours on the simulator)"),
		memLimitMiB: fs.Int("memory-limit-mib", 1400, "soft memory limit of the crawler in MiB (the garbage collector works harder near it); 0 for none"),
		sourceDeadline: fs.Duration("fetch-source-deadline", 2*time.Minute,
			"deadline of one source per cycle: all its pages and retries, plus --fetch-page-budget for each page read (past it the source fails for the cycle)"),
		pageBudget: fs.Duration("fetch-page-budget", pipeline.DefaultPageBudget,
			"time each page read adds to its source's deadline, up to --fetch-source-deadline-max: a board whose pages chain one after another goes on while its pages come; 0: none"),
		sourceMax: fs.Duration("fetch-source-deadline-max", pipeline.DefaultSourceDeadlineMax,
			"longest one source's read may take however many pages it read (a worker renews the source's lease meanwhile)"),
		maxBodyMiB:    fs.Int("fetch-max-body-mib", 8, "largest page body in MiB once decoded (a larger page fails its source)"),
		bodyBudgetMiB: fs.Int("fetch-body-budget-mib", 256, "page bodies held in memory at once, in MiB, across all fetch workers"),
		maxPages: fs.Int("fetch-max-pages", pipeline.DefaultMaxPages,
			"longest chain of pages read of one source; a source with more fails for the cycle, its reqs unknown (none closed), and counts in hs_crawl_page_cap_total"),
		chainDepth: fs.Int("fetch-chain-depth", pipeline.DefaultChainDepth,
			"pages of one source read at once where its pages are numbered (?page=N, an offset), on fetch slots no source is using and within each host's rate; 1: page after page"),
		pageCacheMiB: fs.Int("page-cache-mib", 256, "bound of the page cache that replays 304s, in MiB (pages read in the last two cycles stay; when full, new pages are not kept and are read in full: hs_crawl_page_cache_refused_total)"),
		userAgent: fs.String("user-agent", pipeline.DefaultUserAgent,
			"User-Agent of every crawl request; robots.txt groups are chosen by its product token. Crawling real hosts needs a real one: product token, URL and contact, e.g. \"HiringSignalBot/1.0 (+https://example.com/bot; crawler@example.com)\""),
	}
}

// addRealHostFlags adds the flags of a crawl of real hosts: egress, routing, TLS roots and rate.
func (f *crawlFlags) addRealHostFlags(fs *flagenv.Set) {
	fs.EnvName("connect-to", "HS_CRAWL_CONNECT_TO")
	f.connectTo = fs.List("connect-to", nil, "route a host's requests elsewhere, as curl's --connect-to: HOST:PORT=ADDR:PORT (or HOST:PORT:ADDR:PORT; an empty HOST or PORT matches any); TLS still verifies HOST, and a mapped dial skips the private-address check (tests, dev)")
	fs.EnvName("ca-file", "HS_CRAWL_CA_FILE")
	f.caFile = fs.String("ca-file", "", "PEM bundle of certificates the crawl trusts for TLS besides the system roots")
	f.hostRate = fs.Float("fetch-host-rate", 1, "requests per second to one host across the crawl, halved on each 429 (down to one per 20 s) and back up on successes; a robots.txt Crawl-delay lowers it; 0: unlimited (the simulator)")
	f.hostRates = fs.List("fetch-host-rates", hostRateEntries(pipeline.DefaultHostRates()),
		"HOST=RATE: requests per second to a vendor's shared API host across the crawl in place of --fetch-host-rate, halved and lowered alike "+
			"(the default sizes each for the tenants it serves: docs/decisions.md); with --fetch-host-rate 0 no host is limited; given, the list replaces the default")
	f.allowPrivate = fs.Bool("allow-private-egress", false, "let the crawl dial loopback and private addresses (the simulator on this machine); off, a source, redirect or host name that leads to one is refused at dial time")
}

func (f *crawlFlags) config(log *slog.Logger) pipeline.Config {
	fc := pipeline.FetchConfig{Workers: *f.workers, PerHost: *f.perHost, Attempts: *f.attempts, Timeout: *f.timeout,
		SourceDeadline: *f.sourceDeadline, PageBudget: *f.pageBudget, SourceDeadlineMax: *f.sourceMax, MaxBody: int64(*f.maxBodyMiB) << 20, BodyBudget: int64(*f.bodyBudgetMiB) << 20,
		UserAgent: *f.userAgent, MaxPages: *f.maxPages, ChainDepth: *f.chainDepth}
	if f.allowPrivate == nil { // dev, backfill: the simulator on loopback, at full speed
		fc.AllowPrivate, fc.HostRate = true, 0
	} else {
		fc.AllowPrivate, fc.HostRate, fc.ConnectTo, fc.CAFile = *f.allowPrivate, *f.hostRate, *f.connectTo, *f.caFile
		if fc.HostRate > 0 {
			fc.HostRates, _ = parseHostRates(*f.hostRates) // checked before (checkRealHosts)
		}
	}
	return pipeline.Config{Log: log, PageCacheBytes: int64(*f.pageCacheMiB) << 20, Fetch: fc}
}

// checkRealHosts refuses, before anything starts, real-host flags that cannot work: a bad
// --connect-to entry or --ca-file, a negative rate, and without --allow-private-egress a
// --sim-url on this machine or a private network (the directory is read through the same
// dialer) and the placeholder User-Agent.
func (f *crawlFlags) checkRealHosts(sim bool) error {
	if _, err := pipeline.ParseConnectTo(*f.connectTo); err != nil {
		return fmt.Errorf("--connect-to (HS_CRAWL_CONNECT_TO): %w", err)
	}
	if *f.hostRate < 0 {
		return fmt.Errorf("--fetch-host-rate (HS_FETCH_HOST_RATE) is %g: give requests per second, or 0 for unlimited", *f.hostRate)
	}
	if _, err := parseHostRates(*f.hostRates); err != nil {
		return fmt.Errorf("--fetch-host-rates (HS_FETCH_HOST_RATES): %w", err)
	}
	if *f.caFile != "" {
		fc := f.config(nil).Fetch
		fc.ConnectTo = nil
		if _, err := pipeline.NewFetcher(fc); err != nil {
			return fmt.Errorf("--ca-file (HS_CRAWL_CA_FILE): %w", err)
		}
	}
	if *f.allowPrivate {
		return nil
	}
	if u, err := url.Parse(*f.simURL); sim && err == nil && privateHost(u.Hostname()) {
		if !routed(*f.connectTo, u) {
			return fmt.Errorf("--sim-url %s is on this machine or a private network, which the crawl does not dial without --allow-private-egress "+
				"(HS_ALLOW_PRIVATE_EGRESS=true); crawling the local simulator wants it, and --fetch-host-rate 0 to read it at full speed", *f.simURL)
		}
	}
	// A run whose requests --connect-to maps (captured payloads served offline) reaches no real
	// host: it needs no contact.
	if *f.userAgent == pipeline.DefaultUserAgent && len(*f.connectTo) == 0 {
		return fmt.Errorf("--user-agent (HS_USER_AGENT) is the placeholder %q; crawling real hosts needs a product token, URL and contact, "+
			"e.g. \"HiringSignalBot/1.0 (+https://example.com/bot; crawler@example.com)\" (or --allow-private-egress for the local simulator)", *f.userAgent)
	}
	return nil
}

// hostRateEntries renders rates as --fetch-host-rates entries, HOST=RATE, by host.
func hostRateEntries(rates map[string]float64) []string {
	out := make([]string, 0, len(rates))
	for h, r := range rates {
		out = append(out, h+"="+strconv.FormatFloat(r, 'g', -1, 64))
	}
	slices.Sort(out)
	return out
}

// parseHostRates reads --fetch-host-rates entries, HOST=RATE with a positive rate in requests
// per second, into rates by lower-case host name.
func parseHostRates(entries []string) (map[string]float64, error) {
	rates := make(map[string]float64, len(entries))
	for _, e := range entries {
		host, rate, ok := strings.Cut(strings.TrimSpace(e), "=")
		host = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(host), "."))
		r, err := strconv.ParseFloat(strings.TrimSpace(rate), 64)
		if !ok || host == "" || strings.ContainsAny(host, ":/ ") || err != nil || r <= 0 || math.IsInf(r, 0) {
			return nil, fmt.Errorf("cannot read %q: give HOST=RATE, a host name and its requests per second, such as boards-api.greenhouse.io=4", e)
		}
		rates[host] = r
	}
	return rates, nil
}

// privateHost reports a host that is a non-public address or a name for this machine.
func privateHost(host string) bool {
	if a, err := netip.ParseAddr(host); err == nil {
		return !egress.Public(a)
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// routed reports whether a --connect-to entry maps u's host and port.
func routed(entries []string, u *url.URL) bool {
	routes, _ := pipeline.ParseConnectTo(entries) // checked before
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	for _, r := range routes {
		if r.Matches(u.Hostname(), port) {
			return true
		}
	}
	return false
}

func (f *crawlFlags) tickOf(t time.Time) (int, error) {
	epoch, err := parseEpoch(*f.epoch)
	if err != nil {
		return 0, err
	}
	return sources.Clock{Epoch: epoch}.Tick(t), nil
}

// openCrawler opens the stores, migrates them and builds a crawler on them (m as in
// newCrawler); the caller closes the stores.
func openCrawler(ctx context.Context, log *slog.Logger, f *storeFlags, cf *crawlFlags, m *crawlMetrics) (*pipeline.Crawler, *stores, error) {
	s, err := f.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	c, err := newCrawler(ctx, log, f, s, cf, m)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return c, s, nil
}

// newCrawler readies the opened stores s (prepareStores) and builds a crawler on them; m, when
// set, is told every request the crawler's fetcher sends (crawlMetrics.request) and every source
// cut at --fetch-max-pages (crawlMetrics.pageCap).
func newCrawler(ctx context.Context, log *slog.Logger, f *storeFlags, s *stores, cf *crawlFlags, m *crawlMetrics) (*pipeline.Crawler, error) {
	if *cf.memLimitMiB > 0 {
		debug.SetMemoryLimit(int64(*cf.memLimitMiB) << 20)
	}
	if err := f.prepareStores(ctx, s, log); err != nil {
		return nil, err
	}
	cfg := cf.config(log)
	cfg.CommitLock = oltp.CrawlCommitLock(s.pg, *f.clickhouseDB)
	cfg.Ledger = oltp.LedgerHeads{Pool: s.pg, Ledger: *f.clickhouseDB} // a write that gave up is resent, never numbered over
	cfg.Fetch.HostTurns = oltp.HostTurns{Pool: s.pg}                   // --fetch-host-rate holds across every crawl process
	if m != nil {
		cfg.Fetch.OnRequest, cfg.Fetch.OnPageCap = m.request, m.pageCap
	}
	return pipeline.NewCrawler(ctx, s.ch, cfg)
}

func runCrawl(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("crawl", "Crawl every region of the source directory once per window of the wall clock (--window-length, 3 hours; one cycle per region), or once with --once. "+
		"The directory is the source registry in Postgres (fill it with `hiringsignal sources import`), or the simulator's with --directory=sim.")
	f := addStoreFlags(fs)
	cf := addCrawlFlags(fs)
	dirKind := fs.String("directory", "registry", "where the companies and sources come from: registry (the source registry in Postgres, on the wall clock) or sim (the simulator at --sim-url, on its clock)")
	interval := fs.Duration("interval", 3*time.Hour, "with --directory=sim: time between crawls (the registry crawls once per --window-length window)")
	once := fs.Bool("once", false, "read every source of the current window now, commit the window and exit")
	role := fs.String("role", "all", "with --directory=registry: worker (claim and read due sources), committer (commit each window from the workers' reads, once its grace has passed) or all (both); run any number of workers and one or more committers (the commit lock makes one window commit once)")
	claimEvery := fs.Duration("claim-every", 10*time.Second, "with --directory=registry: how often a worker looks for due sources")
	claimBatch := fs.Int("claim-batch", 64, "with --directory=registry: most sources a worker holds claimed at once, those its --fetch-workers read and the next ones "+
		"(never more than it can read before their leases lapse); it claims again as reads finish, so a slow source holds one fetch slot")
	commitGrace := fs.Duration("commit-grace", 10*time.Minute, "with --directory=registry: how long after a window ends its commit waits for the last reads")
	storeBatch := fs.Int("read-store-batch", sources.DefaultStoreBatch, "with --directory=registry: most finished reads a worker stores in one transaction; "+
		"a batch goes once full, or once its first read waited --read-store-every (a read not yet stored when the process dies is read again once its lease lapses)")
	storeEvery := fs.Duration("read-store-every", sources.DefaultStoreEvery, "with --directory=registry: longest a worker's finished read waits to be stored")
	storeQueue := fs.Int("read-store-queue", sources.DefaultStoreQueue, "with --directory=registry: finished reads that may wait while a store is under way; "+
		"when full the worker waits for Postgres (hs_crawl_read_store_overflows_total)")
	windowLength := fs.Duration("window-length", sources.DefaultWindowLength, "with --directory=registry: one crawl window, the ledger's tick: every source is read once in each, "+
		"at a stable offset before its last twelfth (kept for retries: it must hold --claim-lease and --fetch-source-deadline; at least 1m). "+
		"Every crawl process of a ledger runs the same --window-length and --epoch; with --clock=sim it is the simulator's 3 hours")
	claimLease := fs.Duration("claim-lease", oltp.CrawlReadLease, "with --directory=registry: how long a worker's claim of a source holds before another worker may read it "+
		"(a live worker renews it while it reads; a dead worker's lapses, and its sources are read again in the window)")
	clockKind := fs.String("clock", "wall", "with --directory=registry: the windows' clock: wall, or sim, the simulator's at --sim-url "+
		"(the start of the tick it serves, GET /_sim/tick: pinning its tick moves the windows; tests and dev; --epoch is its --sim-epoch)")
	refetchAfter := fs.Duration("suspect-refetch-after", 0, "with --directory=registry: how long after a read whose postings fell to zero, or by more than 80% from 5 or more, "+
		"any worker reads the source again in the same window; the window's commit takes that refetch as the confirmation (or the end) of the drop. "+
		"A refetch that would fall past the window's end is not asked: the source stays suspect, its reqs open, and the next window confirms. "+
		"0: a twelfth of --window-length (15m of 3h)")
	chainPart := fs.Int("chain-part-pages", sources.DefaultChainPart, "with --directory=registry: pages of a source's chain a worker reads before it records in Postgres "+
		"where the chain stands, so a chain left unread at its window's end goes on in the next window from there, and a killed worker's successor reads no more than this again")
	windowPages := fs.Int("chain-window-pages", 0, "with --directory=registry: most pages of one source's chain read in one window; a chain with more left is carried to the next window "+
		"(its reqs seen count, none closes until a read reaches its end; hs_crawl_chains_carried). 0: no bound but the window's end, where every chain not ended is carried")
	discoveryBudget := fs.Int("discovery-budget", 24, "with --directory=registry: discoveries each worker process runs per window, whenever no source is due, "+
		"through the crawl's fetcher and host rates (coverage requests most-asked first, on-demand reads of companies without a source before them); 0: none")
	cf.addRealHostFlags(fs)
	metricsListen := fs.String("metrics-listen", "", "address serving operator metrics at /metrics (Prometheus text format); empty: none")
	if err := parse(fs, args); err != nil {
		return err
	}
	epoch, err := parseEpoch(*cf.epoch)
	if err != nil {
		return err
	}
	clock := sources.Clock{Epoch: epoch, Length: *windowLength}
	switch *dirKind {
	case "registry":
		switch *clockKind {
		case "wall":
			if fs.Given("sim-url") {
				return fmt.Errorf("--sim-url is read only with --directory=sim or --clock=sim")
			}
		case "sim":
			if *windowLength != sim.TickDuration {
				return fmt.Errorf("--window-length (HS_WINDOW_LENGTH) is %s: with --clock=sim the windows are the simulator's ticks, %s", *windowLength, sim.TickDuration)
			}
		default:
			return fmt.Errorf("unknown --clock %q: use wall or sim", *clockKind)
		}
		if *claimLease < time.Second {
			return fmt.Errorf("--claim-lease (HS_CLAIM_LEASE) is %s: give at least 1s", *claimLease)
		}
		if err := clock.Check(*claimLease, *cf.sourceDeadline); err != nil {
			return fmt.Errorf("--window-length (HS_WINDOW_LENGTH), --claim-lease (HS_CLAIM_LEASE) and --fetch-source-deadline (HS_FETCH_SOURCE_DEADLINE): %w", err)
		}
		switch *role {
		case "all", "worker", "committer":
		default:
			return fmt.Errorf("unknown --role %q: use all, worker or committer", *role)
		}
		if *claimBatch < 1 || *claimBatch > 10_000 {
			return fmt.Errorf("--claim-batch %d: give 1 to 10,000 sources", *claimBatch)
		}
		if *refetchAfter == 0 {
			*refetchAfter = clock.RefetchAfter()
		}
		if *refetchAfter < 0 || *refetchAfter >= clock.Window() {
			return fmt.Errorf("--suspect-refetch-after (HS_SUSPECT_REFETCH_AFTER) is %s: give a duration inside the %s window, such as %s, or 0 for a twelfth of it",
				*refetchAfter, clock.Window(), clock.RefetchAfter())
		}
		if *storeBatch < 1 || *storeQueue < 1 || *storeEvery <= 0 {
			return fmt.Errorf("--read-store-batch %d, --read-store-queue %d and --read-store-every %s (HS_READ_STORE_*): give at least 1 read, 1 read and a positive duration",
				*storeBatch, *storeQueue, *storeEvery)
		}
		if *chainPart < 1 || *windowPages < 0 {
			return fmt.Errorf("--chain-part-pages %d and --chain-window-pages %d (HS_CHAIN_*): give at least 1 page a part, and 0 or more pages a window", *chainPart, *windowPages)
		}
		if *discoveryBudget < 0 {
			return fmt.Errorf("--discovery-budget (HS_DISCOVERY_BUDGET) is %d: give discoveries per window, or 0 for none", *discoveryBudget)
		}
	case "sim":
	default:
		return fmt.Errorf("unknown --directory %q: use registry or sim", *dirKind)
	}
	if *cf.maxPages < 1 || *cf.chainDepth < 1 {
		return fmt.Errorf("--fetch-max-pages %d (HS_FETCH_MAX_PAGES) and --fetch-chain-depth %d (HS_FETCH_CHAIN_DEPTH): give at least 1 page", *cf.maxPages, *cf.chainDepth)
	}
	if err := cf.checkRealHosts(*dirKind == "sim" || *clockKind == "sim"); err != nil {
		return err
	}
	set := metrics.NewSet()
	m := newCrawlMetrics(set)
	c, s, err := openCrawler(ctx, log, f, cf, &m)
	if err != nil {
		return err
	}
	var g lifecycle.Group
	if *dirKind == "sim" {
		d := simDirectory{client: c.Fetcher().Client(), url: *cf.simURL}
		if *once {
			defer s.Close()
			start := time.Now()
			stats, err := crawlOnce(ctx, c, d, -1)
			if err != nil {
				return fmt.Errorf("cannot crawl %s: %w", d.describe(), err)
			}
			logTick(log, stats, time.Since(start))
			return nil
		}
		g.Add("stores", storesPart{s})
		g.Add("crawl loop", crawlLoop(log, c, d, every(*interval, true), func() int { return -1 }, nil, m))
		g.Add("crawl jobs", crawlJobs(log, c, s, d, 2*time.Second, time.Now, nil))
	} else {
		clock := crawlClock{Clock: clock, now: time.Now}
		poll := time.Duration(0) // the committer sleeps until the next window's grace has passed
		if *clockKind == "sim" {
			if clock.now, err = simClockNow(ctx, log, c.Fetcher().Client(), *cf.simURL, clock.Clock); err != nil {
				s.Close()
				return err
			}
			poll = *claimEvery // the simulator's windows move when its tick is pinned, not with the wall clock
		}
		sc := &sources.Crawl{Pool: s.pg, Crawler: c, Codec: pipeline.NewReadCodec(), Clock: clock.Clock, Owner: crawlOwner(),
			Batch: *claimBatch, Lease: *claimLease, ClaimEvery: *claimEvery, RefetchAfter: *refetchAfter, Log: log, OnWindow: m.window,
			StoreBatch: *storeBatch, StoreEvery: *storeEvery, StoreQueue: *storeQueue, ChainPart: *chainPart, WindowPages: *windowPages}
		m.worker(sc)
		if *once {
			defer s.Close()
			return crawlWindowNow(ctx, log, sc, clock)
		}
		sc.Discovery = discoveryRunner(log, s, c, sc.Owner, *discoveryBudget)
		g.Add("stores", storesPart{s})
		if *role != "committer" {
			g.Add("crawl workers", readLoop(log, sc, clock.now, *claimEvery))
			g.Add("crawl jobs", crawlJobs(log, c, s, registryDirectory{pool: s.pg, clock: clock, crawl: sc}, 2*time.Second, time.Now, nil))
		}
		if *role != "worker" {
			g.Add("crawl committer", commitLoop(log, sc, clock.now, *commitGrace, poll, m, nil))
		}
	}
	if *metricsListen != "" {
		g.Add("metrics", &metricsServer{addr: *metricsListen, set: set, log: log})
	}
	return runUntilSignal(ctx, log, &g)
}

// discoveryRunner is a worker's discovery (nil for none): budget runs per window through the
// crawler's own fetcher, so discovery shares its robots.txt cache, host rates and egress policy.
func discoveryRunner(log *slog.Logger, s *stores, c *pipeline.Crawler, owner string, budget int) *sources.DiscoveryRunner {
	if budget <= 0 {
		return nil
	}
	return &sources.DiscoveryRunner{Pool: s.pg, Discover: newDiscoverer(c.Fetcher()), Owner: owner, Budget: budget, Log: log}
}

// crawlWindowNow is `crawl --once` on the registry: every source of the current window without
// a read is read now, and the window is committed.
func crawlWindowNow(ctx context.Context, log *slog.Logger, sc *sources.Crawl, clock crawlClock) error {
	start := time.Now()
	tick := sc.Clock.Tick(clock.now())
	if tick < 0 {
		return fmt.Errorf("the crawl's clock (--clock) is before the crawl epoch %s (--epoch)", sc.Clock.Epoch.Format(time.RFC3339))
	}
	n, err := sc.ReadDue(ctx, tick, true)
	if err != nil {
		return fmt.Errorf("cannot read the sources of window %d: %w", tick, err)
	}
	stats, err := sc.Commit(ctx, tick, time.Time{})
	if err != nil {
		return err
	}
	if stats == nil {
		log.Info("nothing to read: the registry has no active source (hiringsignal sources import FILE --apply)", "tick", tick)
		return nil
	}
	log.Info("window read", "tick", tick, "sources_read", n)
	logTick(log, stats, time.Since(start))
	return nil
}

func logTick(log *slog.Logger, stats []pipeline.CycleStats, took time.Duration) {
	var postings, events, failed, blocked, carried, throttled, live, skipped int
	tick := uint32(0)
	for _, s := range stats {
		tick = s.Tick
		postings += s.Postings
		events += s.Events
		failed += s.SourcesFailed
		carried += s.SourcesCarried
		blocked += s.Blocked
		throttled += s.Throttled
		live += s.ReqsLive
		if s.Skipped {
			skipped++
		}
	}
	log.Info("crawl done", "tick", tick, "regions", len(stats), "skipped", skipped, "postings", postings, "failed_sources", failed,
		"blocked_sources", blocked, "carried_sources", carried, "throttled", throttled, "live_reqs", live, "events", events, "took", took.Round(time.Millisecond))
}

func runBackfill(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("backfill", "Replay crawl cycles from --from to --to on the simulator's virtual clock, so first_seen, momentum and history are real. Committed cycles are skipped, so a rerun resumes.")
	f := addStoreFlags(fs)
	cf := addCrawlFlags(fs)
	from := fs.String("from", "", "first day (YYYY-MM-DD or RFC 3339)")
	to := fs.String("to", "", "last day, inclusive (YYYY-MM-DD or RFC 3339)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the backfill to this file (where a tick's time goes)")
	if err := parse(fs, args); err != nil {
		return err
	}
	t0, err := parseDay(*from, false)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	t1, err := parseDay(*to, true)
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	if t1.Before(t0) {
		return fmt.Errorf("--to %s is before --from %s", *to, *from)
	}
	first, err := cf.tickOf(t0)
	if err != nil {
		return err
	}
	last, err := cf.tickOf(t1)
	if err != nil {
		return err
	}
	if first < 0 {
		return fmt.Errorf("--from %s is before the crawl epoch %s", *from, *cf.epoch)
	}
	c, s, err := openCrawler(ctx, log, f, cf, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	return backfill(ctx, log, c, *cf.simURL, first, last)
}

// startCPUProfile writes a CPU profile to path until the returned stop runs.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot create the CPU profile (--cpuprofile): %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cannot start the CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}

func backfill(ctx context.Context, log *slog.Logger, c *pipeline.Crawler, simURL string, first, last int) error {
	total := last - first + 1
	start := time.Now()
	events, skipped := 0, 0
	lastLog := time.Time{}
	for tick := first; tick <= last; tick++ {
		if err := pipeline.PinSimTick(ctx, c.Fetcher().Client(), simURL, tick); err != nil {
			return err
		}
		stats, err := c.RunTick(ctx, simURL, tick)
		if err != nil {
			return err
		}
		for _, s := range stats {
			events += s.Events
			if s.Skipped {
				skipped++
			}
		}
		done := tick - first + 1
		if time.Since(lastLog) > 2*time.Second || done == total {
			lastLog = time.Now()
			el := time.Since(start)
			eta := time.Duration(float64(el) / float64(done) * float64(total-done))
			log.Info("backfill", "progress", progressBar(done, total), "tick", tick, "events", events, "skipped_cycles", skipped,
				"elapsed", el.Round(time.Second), "eta", eta.Round(time.Second))
		}
	}
	if skipped > 0 {
		log.Info("backfill skipped region cycles already covered by the committed history (committed, or older than a region's latest committed cycle: history is append-only; backfill earlier days into a fresh --clickhouse-database)",
			"skipped_cycles", skipped)
	}
	return nil
}

func progressBar(done, total int) string {
	const width = 30
	n := done * width / total
	b := make([]byte, width)
	for i := range b {
		if i < n {
			b[i] = '#'
		} else {
			b[i] = '.'
		}
	}
	return fmt.Sprintf("[%s] %d/%d (%.1f%%)", b, done, total, 100*float64(done)/float64(total))
}

func parseDay(s string, endOfDay bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("required (YYYY-MM-DD)")
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("cannot parse %q: use YYYY-MM-DD or RFC 3339", s)
	}
	if endOfDay {
		t = t.Add(24*time.Hour - time.Second)
	}
	return t, nil
}
