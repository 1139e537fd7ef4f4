package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/sourcegraph/conc/pool"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/pipeline/ats"
)

// CycleStats describes one cycle (one region at one tick).
type CycleStats struct {
	Region         string
	Tick           uint32
	CycleTime      time.Time
	StartedAt      time.Time
	Skipped        bool // already covered (this cycle or a later one of the region is committed): nothing was done
	Sources        int
	SourcesOK      int
	SourcesFailed  int // sources that failed (not counting Blocked)
	SourcesSuspect int // sources read with far fewer reqs than they carried: their reqs stay open (guardDrops)
	Blocked        int // sources robots.txt kept from being read (disallowed, or unavailable this time): unknown like failed ones
	NotFetched     int // sources not read this cycle (paused by an operator): unknown like failed ones
	// SourcesCarried counts the sources whose chain of pages was read in part this window and goes
	// on in the next (StatusPartial): their reqs seen count, none of theirs closes; neither ok nor
	// failed (the cycles row's sources_carried).
	SourcesCarried int
	// Pages is the pages read in this cycle's window: of a chain carried across windows, the pages
	// this window read of it (SourceRead), so each page counts once, in the window that read it.
	Pages         int
	NotModified   int // pages answered 304, or with a body as kept (BodyUnchanged), and replayed from the page cache
	BodyUnchanged int // of NotModified: 200s whose body hashed as the one kept (hosts that send no validator)
	Throttled     int // 429s answered to page requests (each halves the host's rate when one is set)
	CacheEvicted  int // pages the page cache evicted (not read for two cycles) to make room
	CacheRefused  int // pages the full page cache did not keep (next cycle reads them in full): raise --page-cache-mib
	// Postings is the postings on the pages read this cycle (a carried chain: on the pages this
	// window read of it, though its read carries the sightings of the whole chain so far).
	Postings       int
	Malformed      int
	Unresolved     int
	SalaryDropped  int // postings whose published pay was not served: implausible, or an unknown currency or period (normalize.YearlyUSD)
	ReqsLive       int
	Events         int
	ByType         map[string]int
	FailedSources  []string       // keys of the sources that failed this cycle, sorted
	FailedVendors  map[string]int // failed sources per vendor (greenhouse, lever, a board's name, ...)
	SuspectSources []string       // keys of the sources read suspect this cycle, sorted
	UnreadSources  []string       // keys of the sources blocked or not fetched this cycle, sorted
	CarriedSources []string       // keys of the sources whose chain is carried to the next window, sorted
	// FailedReasons says why each source not read (failed or blocked) was not, by source key
	// ("status 404", "robots.txt disallows /jobs", "source deadline exceeded"), for the first
	// maxFailedReasons of them in directory order.
	FailedReasons map[string]string
	SeqFrom       uint64
	SeqTo         uint64
	Duration      time.Duration
	CollectTook   time.Duration // fetch → dedup, shared by the regions of one pass
	EmitTook      time.Duration
}

// row is the cycles row that commits the cycle. Its sources_failed counts every source not read
// (failed, blocked or not fetched); its sources_carried the sources whose chain goes on in the
// next window, which were read, in part, and failed nothing.
func (s *CycleStats) row() analytics.Cycle {
	return analytics.Cycle{Region: s.Region, Tick: s.Tick, CycleTime: s.CycleTime, StartedAt: s.StartedAt,
		SourcesTotal: uint32(s.Sources), SourcesOK: uint32(s.SourcesOK), SourcesFailed: uint32(s.SourcesFailed + s.Blocked + s.NotFetched),
		SourcesCarried: uint32(s.SourcesCarried), Pages: uint32(s.Pages), Postings: uint64(s.Postings), Malformed: uint64(s.Malformed), Unresolved: uint64(s.Unresolved),
		ReqsLive: uint64(s.ReqsLive), Events: uint64(s.Events), SeqFrom: s.SeqFrom, SeqTo: s.SeqTo}
}

// pageMsg carries one page from the fetch stage to the normalize stage: parsed postings, or an
// unchanged page (304, or a body hashed as before) whose sightings the normalize stage replays
// from the page cache. refresh: the unchanged page came with new validators, to keep.
type pageMsg struct {
	src      *Source
	url      string
	val      validators
	next     string
	postings []ats.Posting
	cached   *cachedPage
	refresh  bool
}

// obsMsg carries a page's sightings to the dedup stage.
type obsMsg struct {
	src    *Source
	full   []observation
	cached []cachedObs
}

// Crawler runs cycles against one ClickHouse database. It holds the ledger state in memory;
// cycles are serialised (event_seq is global), while each cycle's stages run concurrently.
type Crawler struct {
	ch      driver.Conn
	fetch   *Fetcher
	log     *slog.Logger
	batch   int
	workers int
	onObs   func(sourceKey, sourceID, reqKey string)
	onSight func(Sighting)
	lock    func(ctx context.Context) (unlock func(), err error)
	head    LedgerHead // nil: ClickHouse's head alone

	mu        sync.Mutex // one cycle at a time
	state     *State
	descs     *descLog  // the descriptions req_descriptions holds (describe.go)
	descGroup descGroup // the description writes of ReadSources, grouped (describe.go)
	// eagerFacts: tests; a cycle reads every posting's facts in the normalize stage, as a
	// worker's read does, not only those of the postings its deduper takes.
	eagerFacts bool
	pages      *pageCache
	suspects   map[string]suspectMark // sources whose last read was a suspect drop (guardDrops), under mu

	readMu  sync.Mutex // guards readIdx (ReadSources may run beside a commit, and beside itself)
	readIdx *readIndex // of the last directory ReadSources read
}

// Config configures a Crawler.
type Config struct {
	Fetch            FetchConfig
	NormalizeWorkers int // default GOMAXPROCS
	InsertBatch      int // rows per INSERT block (default 50,000)
	// PageCacheBytes bounds the page cache that replays 304s (default 256 MiB, approximate);
	// beyond it the least recently used pages are evicted and fetched in full next time.
	PageCacheBytes int64
	// OnObservation, when set, is called (concurrently) for every posting resolved to a req: tests
	// use it to score dedup against the simulator's ground truth.
	OnObservation func(sourceKey, sourceID, reqKey string)
	// OnSighting, when set, is called (from one goroutine) for every posting of a freshly parsed
	// page resolved to a req, with the attributes it gives the req: tests use it to measure what
	// each source format delivers (url, country, pay).
	OnSighting func(Sighting)
	// CommitLock, when set, is held from each cycle's diff to its commit: with it, any number of
	// crawler processes share one ledger without two ever numbering events from the same head.
	// Without it (one crawler, tests) the head is still checked before each diff.
	CommitLock func(ctx context.Context) (unlock func(), err error)
	// Ledger, when set, keeps the committed head and the commit in flight beside ClickHouse
	// (LedgerHead), so a write that gave up and lands later is never numbered over: it is sent
	// again as it was, and the next cycle numbers after it. Without it (tests) the head is
	// ClickHouse's.
	Ledger LedgerHead
	Log    *slog.Logger // default: discard
}

func (c *Config) defaults() {
	if c.NormalizeWorkers <= 0 {
		c.NormalizeWorkers = runtime.GOMAXPROCS(0)
	}
	if c.InsertBatch <= 0 {
		c.InsertBatch = 50_000
	}
	if c.PageCacheBytes <= 0 {
		c.PageCacheBytes = 256 << 20
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// NewCrawler loads the committed ledger state and returns a crawler.
func NewCrawler(ctx context.Context, ch driver.Conn, cfg Config) (*Crawler, error) {
	st, err := LoadState(ctx, ch)
	if err != nil {
		return nil, err
	}
	return newCrawler(ch, st, cfg)
}

func newCrawler(ch driver.Conn, st *State, cfg Config) (*Crawler, error) {
	cfg.defaults()
	f, err := NewFetcher(cfg.Fetch)
	if err != nil {
		return nil, err
	}
	c := &Crawler{ch: ch, fetch: f, log: cfg.Log, batch: cfg.InsertBatch, workers: cfg.NormalizeWorkers,
		onObs: cfg.OnObservation, onSight: cfg.OnSighting, lock: cfg.CommitLock, head: cfg.Ledger, state: st, pages: newPageCache(cfg.PageCacheBytes),
		suspects: map[string]suspectMark{}, descs: newDescLog()}
	c.descs.seed(st)
	return c, nil
}

// Fetcher exposes the crawler's HTTP side (for the directory).
func (c *Crawler) Fetcher() *Fetcher { return c.fetch }

// PageCacheStats reports the pages the page cache keeps, their approximate bytes, and the
// evictions since the crawler started.
func (c *Crawler) PageCacheStats() (pages int, bytes int64, evictions, refused uint64) {
	return c.pages.stats()
}

// State returns the in-memory ledger state (read-only use, between cycles).
func (c *Crawler) State() *State { return c.state }

// Committed reports whether region's history already covers tick: that cycle, or a later one,
// is committed. The ledger is append-only in cycle order, so a cycle older than the region's
// latest committed one is never run (diffing old pages against newer state would invent closes
// and reopenings); backfilling earlier history needs a fresh database.
func (c *Crawler) Committed(ctx context.Context, region string, tick uint32) (bool, error) {
	return analytics.CycleCommitted(ctx, c.ch, region, tick)
}

// RunCycle crawls one region of dir. A cycle already committed is skipped.
func (c *Crawler) RunCycle(ctx context.Context, dir *Directory, region string) (CycleStats, error) {
	out, err := c.RunRegions(ctx, dir, []string{region})
	if len(out) == 0 {
		return CycleStats{Region: region, Tick: uint32(dir.Tick)}, err
	}
	return out[0], err
}

// RunRegions crawls the given regions of dir: one concurrent fetch → parse → normalize → dedup
// pass over all their sources, then diff, emit and commit region by region. Regions already
// committed at this tick are skipped.
func (c *Crawler) RunRegions(ctx context.Context, dir *Directory, regions []string) ([]CycleStats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fresh(ctx, c, dir.Tick, func() ([]CycleStats, error) { return c.runRegions(ctx, dir, regions) })
}

// fresh runs a cycle (run) and, when another crawler committed since this one read the ledger
// (ErrStaleState), reloads the state and runs it again, twice at most. A commit left in unknown
// state is settled first (settle), so that its resend does not make the cycle run twice. The
// caller holds c.mu.
func fresh[T any](ctx context.Context, c *Crawler, tick int, run func() (T, error)) (T, error) {
	if err := c.settle(ctx); err != nil {
		var none T
		return none, err
	}
	for attempt := 0; ; attempt++ {
		out, err := run()
		if !errors.Is(err, ErrStaleState) || attempt == 2 {
			return out, err
		}
		if err := c.reload(ctx); err != nil {
			return out, err
		}
		c.log.Info("another crawler committed since this one read the ledger: state reloaded, cycle rerun", "tick", tick, "cause", err)
	}
}

// ErrStaleState is why a cycle stops before its diff: the committed head is no longer the one
// the crawler's state was built on (another crawler committed). The crawler reloads its state
// and reruns the cycle.
var ErrStaleState = errors.New("the committed ledger moved past this crawler's state")

// reload rebuilds the ledger state from the committed ledger and forgets the page cache: the
// pass that found the state stale filled it with this tick's pages, and a rerun would replay
// them as unchanged, dropping every req the reloaded state does not know (a second crawler's
// ledger then lost openings a single crawler's had). The caller holds c.mu.
func (c *Crawler) reload(ctx context.Context) error {
	st, err := LoadState(ctx, c.ch)
	if err != nil {
		return fmt.Errorf("cannot reload the ledger state: %w", err)
	}
	c.state = st
	c.descs.seed(st)
	c.pages.reset()
	return nil
}

// lockHead takes the commit lock (Config.CommitLock), settles the ledger head (checkHead: a
// commit left in unknown state is sent again first) and checks that the committed head is the
// one the state was built on; ErrStaleState otherwise. The caller holds c.mu and calls unlock
// once the cycle is committed and applied, or abandoned.
func (c *Crawler) lockHead(ctx context.Context) (unlock func(), err error) {
	unlock = func() {}
	if c.lock != nil {
		if unlock, err = c.lock(ctx); err != nil {
			return nil, fmt.Errorf("cannot take the crawl's commit lock: %w", err)
		}
	}
	wm, err := c.checkHead(ctx)
	if err != nil {
		unlock()
		return nil, err
	}
	if wm+1 != c.state.nextSeq {
		unlock()
		return nil, fmt.Errorf("%w: the committed head is event %d, this crawler's state ends at %d", ErrStaleState, wm, c.state.nextSeq-1)
	}
	return unlock, nil
}

func (c *Crawler) runRegions(ctx context.Context, dir *Directory, regions []string) ([]CycleStats, error) {
	p, err := c.newPass(ctx, dir, regions)
	if err != nil || len(p.todo) == 0 {
		return p.out(), err
	}
	tc := time.Now()
	seenAll, status, err := c.collect(ctx, p.sources, p.res, p.stats)
	if err != nil {
		return p.out(), err
	}
	refused := 0
	for _, st := range p.stats {
		st.CollectTook = time.Since(tc)
		refused += st.CacheRefused
	}
	if refused > 0 {
		pages, bytes, _, _ := c.pages.stats()
		c.log.Warn("page cache full: pages not kept are read in full next cycle, without If-None-Match; raise --page-cache-mib (HS_PAGE_CACHE_MIB)",
			"not_kept", refused, "kept", pages, "kept_mib", bytes>>20, "bound_mib", c.pages.maxBytes>>20, "tick", p.tick)
	}
	err = c.decide(ctx, p, seenAll, status)
	return p.out(), err
}

// pass is one cycle of some regions of a directory: the regions left to run (todo, those not
// already committed), their sources, and what the decide half needs of the directory.
type pass struct {
	dir           *Directory
	tick          uint32
	cycleTime     time.Time
	started       time.Time
	regions       []string
	todo          []string
	stats         map[string]*CycleStats
	sources       []*Source // of the todo regions
	res           *resolver
	companyRegion map[uint64]string
	inDirectory   map[string]bool
	refetched     map[string]time.Time // reads that are a worker's refetch of a drop: the first read's time (CommitReads)
}

// newPass plans a cycle of regions of dir, skipping the regions already committed at its tick.
func (c *Crawler) newPass(ctx context.Context, dir *Directory, regions []string) (*pass, error) {
	p := &pass{dir: dir, tick: uint32(dir.Tick), cycleTime: dir.CycleTime.UTC(), started: time.Now().UTC(), regions: regions,
		stats: make(map[string]*CycleStats, len(regions))}
	c.pages.advance(p.tick)
	for _, r := range regions {
		p.stats[r] = &CycleStats{Region: r, Tick: p.tick, CycleTime: p.cycleTime, StartedAt: p.started, ByType: map[string]int{}}
	}
	for _, r := range regions {
		st := p.stats[r]
		done, err := c.Committed(ctx, r, p.tick)
		if err != nil {
			return p, err
		}
		if done {
			st.Skipped = true
			continue
		}
		p.todo = append(p.todo, r)
	}
	if len(p.todo) == 0 {
		return p, nil
	}
	want := map[string]bool{}
	for _, r := range p.todo {
		want[r] = true
	}
	for i := range dir.Sources {
		if want[dir.Sources[i].Region] {
			p.sources = append(p.sources, &dir.Sources[i])
			p.stats[dir.Sources[i].Region].Sources++
		}
	}
	p.res = newResolver(dir.Companies)
	p.companyRegion = make(map[uint64]string, len(dir.Companies))
	for _, co := range dir.Companies {
		p.companyRegion[CompanyID(co.Domain)] = co.Region
	}
	p.inDirectory = make(map[string]bool, len(dir.Sources))
	for i := range dir.Sources {
		p.inDirectory[dir.Sources[i].Key] = true
	}
	return p, nil
}

// out is the stats of every region of the pass, in the order asked.
func (p *pass) out() []CycleStats {
	res := make([]CycleStats, 0, len(p.regions))
	for _, r := range p.regions {
		res = append(res, *p.stats[r])
	}
	return res
}

// decide is the half of a cycle after the reads: the mass-drop guard, then diff, emit and commit
// region by region.
func (c *Crawler) decide(ctx context.Context, p *pass, seenAll map[string]*reqAgg, status map[string]sourceStatus) error {
	c.countSuspects(c.guardDrops(ctx, p.sources, seenAll, status, p.cycleTime, p.refetched), p.sources, p.stats)
	// One pass each over the reqs seen and the ledger state, split by region: a region's diff,
	// emit and apply touch only its own reqs, so what later regions see of the state is as it
	// was here.
	seenBy := make(map[string]map[string]*reqAgg, len(p.todo))
	for _, r := range p.todo {
		seenBy[r] = map[string]*reqAgg{}
	}
	for k, a := range seenAll {
		if m := seenBy[p.companyRegion[a.companyID]]; m != nil {
			m[k] = a
		}
	}
	liveBefore := c.liveByRegion(p.companyRegion)
	for _, region := range p.todo {
		if err := c.commitRegion(ctx, p.dir, region, p.sources, p.stats[region], seenBy[region], status, p.inDirectory, p.companyRegion, liveBefore[region]); err != nil {
			return err
		}
		p.stats[region].Duration = time.Since(p.started)
	}
	return nil
}

// commitRegion diffs, numbers, writes and applies one region's cycle under the commit lock.
func (c *Crawler) commitRegion(ctx context.Context, dir *Directory, region string, sources []*Source, st *CycleStats, seen map[string]*reqAgg,
	status map[string]sourceStatus, inDirectory map[string]bool, companyRegion map[uint64]string, liveBefore int) error {
	tick, cycleTime := uint32(dir.Tick), dir.CycleTime.UTC()
	unlock, err := c.lockHead(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	var gapFrom time.Time
	if last, ok := c.state.lastCycle[region]; ok && tick > last.Tick+1 {
		gapFrom = last.CycleTime
	}
	retired := make(map[string]bool, len(dir.Retired))
	for _, k := range dir.Retired {
		retired[k] = true
	}
	events, err := diff(c.state, region, tick, cycleTime, gapFrom, seen, status, inDirectory, retired,
		func(id uint64) bool { return companyRegion[id] == region }, c.attrs(ctx))
	if err != nil {
		return fmt.Errorf("cycle %s/%d: %w", region, tick, err)
	}
	for _, a := range seen {
		a.release() // the events hold what they need; free the attribute copies before emit
	}
	w := &analytics.CycleWrite{Events: events}
	c.number(w, st)
	var regionSources []*Source
	for _, s := range sources {
		if s.Region == region {
			regionSources = append(regionSources, s)
		}
	}
	c.sightings(w, seen, cycleTime, dir, region, regionSources, status)
	st.ReqsLive = c.liveAfter(region, companyRegion, liveBefore, events)
	w.Cycle = st.row()
	te := time.Now()
	if err := c.write(ctx, w); err != nil {
		return fmt.Errorf("cycle %s/%d: %w", region, tick, err)
	}
	st.EmitTook = time.Since(te)
	c.apply(w, seen)
	return nil
}

// collect runs the fetch → parse → normalize → dedup stages and returns the reqs seen and each
// source's status. The stages run concurrently, joined by channels: fetchStage's pages feed
// normalizeStage, whose sightings feed dedupStage in this goroutine.
func (c *Crawler) collect(ctx context.Context, sources []*Source, res *resolver, stats map[string]*CycleStats) (map[string]*reqAgg, map[string]sourceStatus, error) {
	var countMu sync.Mutex // guards the counters in stats
	pages, status, reasons := c.fetchStage(ctx, sources, stats, &countMu, nil)
	descs := c.newDescWriter(ctx)
	obs := c.normalizeStage(pages, res, stats, &countMu, c.state.needAttrs(tickOf(stats)), descs)
	reqs, err := c.dedupStage(ctx, obs, tickOf(stats))
	for range obs { // drain: dedup stops early only on an error
	}
	if _, derr := descs.close(); err == nil {
		err = derr
	}
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("cycle cancelled: %w", err)
	}
	countSources(sources, status, reasons, stats)
	return reqs, status, nil
}

// fetchStage fetches and parses every source's pages onto the channel it returns, one worker
// per source at a time (pages of a source are sequential), and closes it once every source is
// done. The status map it returns, and the reasons of the sources not read, are written until
// then: read them only after the channel is drained. span, when set, is the part of its chain
// to read of the one source a worker reads in parts (ReadSegment).
func (c *Crawler) fetchStage(ctx context.Context, sources []*Source, stats map[string]*CycleStats, countMu *sync.Mutex,
	span *chainSpan) (<-chan pageMsg, map[string]sourceStatus, map[string]string) {
	pages := make(chan pageMsg, 64)
	status := make(map[string]sourceStatus, len(sources))
	reasons := map[string]string{}
	var statusMu sync.Mutex
	fetchers := pool.New().WithMaxGoroutines(c.fetch.cfg.Workers)
	go func() {
		for _, src := range sources {
			if src.Status == "paused" {
				// An operator paused it: not read, so the reqs it carried are unknown, never closed.
				statusMu.Lock()
				status[src.Key], reasons[src.Key] = sourceNotFetched, "paused by an operator"
				statusMu.Unlock()
				continue
			}
			fetchers.Go(func() {
				s, why := c.fetchSource(ctx, src, pages, countMu, stats[src.Region], span)
				statusMu.Lock()
				status[src.Key] = s
				if s != sourceOK {
					reasons[src.Key] = why
				}
				statusMu.Unlock()
			})
		}
		fetchers.Wait()
		close(pages)
	}()
	return pages, status, reasons
}

// normalizeStage normalizes the pages (normalizePage) with c.workers goroutines onto the
// channel it returns, closed once pages is drained. It cleans the descriptions of the postings
// of reqs need says may have an event (a raw text met again lately once: the stage's
// cleanMemo) and queues them on descs, their facts left for the deduper to read of the postings
// it takes (describeLater); when need is nil (a worker's read, whose committer reads the facts
// it carries) it reads every posting's facts.
func (c *Crawler) normalizeStage(pages <-chan pageMsg, res *resolver, stats map[string]*CycleStats, countMu *sync.Mutex,
	need func(reqKey string) bool, descs *descWriter) <-chan obsMsg {
	obs := make(chan obsMsg, 64)
	memo := newCleanMemo()
	var wg sync.WaitGroup
	for range c.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range pages {
				obs <- c.normalizePage(m, res, stats[m.src.Region], countMu, need, descs, memo)
			}
		}()
	}
	go func() { wg.Wait(); close(obs) }()
	return obs
}

// normalizePage resolves a page's postings to reqs and remembers its sightings and validators
// in the page cache for a later 304 or unchanged body; an unchanged page's sightings are
// replayed from the cache (and its new validators kept). It counts the page into st under
// countMu.
func (c *Crawler) normalizePage(m pageMsg, res *resolver, st *CycleStats, countMu *sync.Mutex, need func(string) bool, descs *descWriter,
	memo *cleanMemo) obsMsg {
	if m.cached != nil {
		evicted, refused := 0, 0
		if m.refresh {
			var kept bool
			if evicted, kept = c.pages.put(m.url, &cachedPage{validators: m.val, next: m.cached.next, obs: m.cached.obs}); !kept {
				refused = 1
			}
		}
		countMu.Lock()
		st.Postings += len(m.cached.obs)
		st.CacheEvicted += evicted
		st.CacheRefused += refused
		countMu.Unlock()
		return obsMsg{src: m.src, cached: m.cached.obs}
	}
	out := make([]observation, 0, len(m.postings))
	keep := make([]cachedObs, 0, len(m.postings))
	unresolved, salDropped := 0, 0
	for i := range m.postings {
		o, ok := res.observe(m.src, &m.postings[i])
		if !ok {
			unresolved++
			continue
		}
		if o.salaryDropped {
			salDropped++
		}
		switch {
		case need == nil: // a worker's read: the committer reads the facts it carries
			descs.add(&o, describe(&o, &m.postings[i], memo))
		case need(o.reqKey):
			descs.add(&o, c.describe(&o, &m.postings[i], memo)) // the deduper reads the facts it takes
		}
		out = append(out, o)
		keep = append(keep, cachedObs{reqKey: o.reqKey, sourceID: o.sourceID})
	}
	evicted, kept := c.pages.put(m.url, &cachedPage{validators: m.val, next: m.next, obs: keep})
	refused := 0
	if !kept {
		refused = 1
	}
	countMu.Lock()
	st.CacheEvicted += evicted
	st.CacheRefused += refused
	st.Postings += len(m.postings)
	st.Unresolved += unresolved
	st.SalaryDropped += salDropped
	countMu.Unlock()
	return obsMsg{src: m.src, full: out}
}

// dedupStage merges every sighting into the reqs of the pass at tick. It runs in one goroutine,
// which owns the map, and reads the ledger state, which no one writes until the cycle commits.
// A sighting replayed from an unchanged page whose req will have an event this cycle
// (reobserved is due) takes its attributes from the ledger.
func (c *Crawler) dedupStage(ctx context.Context, obs <-chan obsMsg, tick uint32) (map[string]*reqAgg, error) {
	need := c.state.needAttrs(tick)
	d := newDeduper(need)
	add := func(o *observation) {
		d.add(o)
		if c.onObs != nil {
			c.onObs(o.sourceKey, o.sourceID, o.reqKey)
		}
	}
	var pending []pendingObs
	for m := range obs {
		for i := range m.full {
			add(&m.full[i])
			if c.onSight != nil {
				c.onSight(m.full[i].sighting())
			}
		}
		for _, co := range m.cached {
			prev := c.state.reqs[co.reqKey]
			if prev == nil {
				continue // cannot happen: an unchanged page carried reqs the state saw last cycle
			}
			if need(co.reqKey) {
				pending = append(pending, pendingObs{src: m.src, co: co}) // attributes read back below
				continue
			}
			o := observation{companyID: prev.companyID, reqKey: co.reqKey, sourceKey: m.src.Key, sourceID: co.sourceID,
				board: m.src.BoardName(), sourceType: m.src.SourceType()}
			add(&o)
		}
	}
	if len(pending) == 0 {
		d.readFacts(c.workers)
		return d.reqs, nil
	}
	keys := make([]string, 0, len(pending))
	for _, p := range pending {
		keys = append(keys, p.co.reqKey)
	}
	last, err := analytics.LatestEvents(ctx, c.ch, c.state.nextSeq-1, keys)
	if err != nil {
		return nil, err
	}
	for _, p := range pending {
		o := obsFromEvent(last[p.co.reqKey], p.src, p.co.sourceID)
		add(&o)
	}
	d.readFacts(c.workers)
	return d.reqs, nil
}

// countSuspects moves the sources guardDrops made suspect from ok to suspect in their region's
// stats.
func (c *Crawler) countSuspects(keys []string, sources []*Source, stats map[string]*CycleStats) {
	if len(keys) == 0 {
		return
	}
	region := make(map[string]string, len(sources))
	for _, s := range sources {
		region[s.Key] = s.Region
	}
	for _, k := range keys {
		st := stats[region[k]]
		st.SourcesOK--
		st.SourcesSuspect++
		st.SuspectSources = append(st.SuspectSources, k)
	}
	for _, st := range stats {
		sort.Strings(st.SuspectSources)
	}
}

// maxFailedReasons bounds CycleStats.FailedReasons.
const maxFailedReasons = 100

// countSources counts every source as ok, blocked or failed in its region's stats, the failed
// ones by key (sorted) and by vendor, and keeps why the first sources not read were not.
func countSources(sources []*Source, status map[string]sourceStatus, reasons map[string]string, stats map[string]*CycleStats) {
	for _, src := range sources {
		st := stats[src.Region]
		switch status[src.Key] {
		case sourceOK:
			st.SourcesOK++
			continue
		case sourceBlocked:
			st.Blocked++
			st.UnreadSources = append(st.UnreadSources, src.Key)
		case sourceNotFetched:
			st.NotFetched++
			st.UnreadSources = append(st.UnreadSources, src.Key)
		case sourcePartial:
			st.SourcesCarried++
			st.CarriedSources = append(st.CarriedSources, src.Key)
			continue
		default:
			st.SourcesFailed++
			st.FailedSources = append(st.FailedSources, src.Key)
			if st.FailedVendors == nil {
				st.FailedVendors = map[string]int{}
			}
			st.FailedVendors[src.Vendor]++
		}
		if len(st.FailedReasons) < maxFailedReasons {
			if st.FailedReasons == nil {
				st.FailedReasons = map[string]string{}
			}
			why := reasons[src.Key]
			if why == "" {
				why = "not fetched"
			}
			st.FailedReasons[src.Key] = why
		}
	}
	for _, st := range stats {
		sort.Strings(st.FailedSources)
		sort.Strings(st.UnreadSources)
		sort.Strings(st.CarriedSources)
	}
}

// errSourceDeadline is why a source's fetches stop at FetchConfig.SourceDeadline.
var errSourceDeadline = errors.New("source deadline exceeded")

// fetchSource walks a source's pages and returns its status: ok, or failed or blocked (the
// source is unknown) when any page was, with a short reason. All its pages and retries share one
// deadline, which each page read moves on by the per-page budget up to its bound
// (Fetcher.sourceDeadline), and every next page must be on the scheme, host and port of the
// first page, as given or as redirected. Where its pages are numbered the next ones are read
// ahead on spare fetch slots (chain.go); the pages taken are the same. A chain longer than
// FetchConfig.MaxPages fails the source (its reqs unknown: the pages past the cap were not read).
//
// With span (a worker's read in parts: ReadSegment) it starts from span.from (the chain's first
// page when it has no next page), reads at most span.limit pages, none once span.until has
// passed, and tells where it stopped in span.at; a chain stopped with pages left is partial. The
// deadline counts from this read's start and its pages only (a part of a long chain is bounded as
// a read of its own), and the cap counts the chain's pages, whichever parts read them.
func (c *Crawler) fetchSource(ctx context.Context, src *Source, out chan<- pageMsg, mu *sync.Mutex, st *CycleStats, span *chainSpan) (sourceStatus, string) {
	ad, ok := ats.For(src.Vendor)
	if !ok {
		c.log.Warn("no adapter for vendor; source skipped", "source", src.Key, "vendor", src.Vendor)
		return sourceFailed, "no adapter for vendor " + src.Vendor
	}
	c.fetch.busy.Add(1)
	defer c.fetch.busy.Add(-1)
	vctx := withVendor(ctx, src.Vendor)
	start := time.Now()
	scope := redirectScope(src)
	home := src.URL // where the first page was read, after redirects
	url, prev, before := src.URL, "", ""
	maxPages := c.fetch.cfg.MaxPages
	n := 0
	if span != nil && span.from.Next != "" {
		url, prev, before, n = span.from.Next, span.from.Prev, span.from.Before, span.from.Pages
		if span.from.Home != "" {
			home = span.from.Home
		}
	}
	first, end := n, maxPages // this read's first page, and the page it stops before
	if span != nil && span.limit > 0 {
		end = min(maxPages, first+span.limit)
	}
	onOrigin := func(u string) bool { return sameOrigin(src.URL, u) || sameOrigin(home, u) }
	ahead := c.newReadAhead(vctx, ad, scope, start, first, end)
	defer ahead.stop()
	stopped := false // a span's end: pages left for a later read
	for ; url != "" && n < maxPages; n++ {
		if span != nil && (n >= end || !span.until.IsZero() && !time.Now().Before(span.until)) {
			stopped = true
			break
		}
		if n > 0 && !onOrigin(url) {
			c.log.Warn("next page off the source's host refused; source failed", "source", src.Key, "url", url)
			return sourceFailed, "next page off the source's host refused"
		}
		ahead.plan(before, prev, url, n, onOrigin)
		pr, ok := ahead.take(n, url)
		if !ok {
			pr = c.readPage(vctx, ad, url, scope, start, n-first)
		}
		res, cp, err := pr.res, pr.cp, pr.err
		if res.throttled > 0 {
			mu.Lock()
			st.Throttled += res.throttled
			mu.Unlock()
		}
		if err != nil {
			c.log.Debug("source not read this cycle", "source", src.Key, "url", url, "err", err)
			return statusOf(err), failReason(err)
		}
		if n == 0 {
			home = res.url
		}
		msg := pageMsg{src: src, url: url, val: res.val, next: res.page.NextURL, postings: res.page.Postings}
		if res.notModified {
			msg = pageMsg{src: src, url: url, val: res.val, next: cp.next, cached: cp,
				refresh: res.val.etag != cp.etag || res.val.lastModified != cp.lastModified}
		}
		mu.Lock()
		st.Pages++
		st.Malformed += res.page.Malformed
		if res.notModified {
			st.NotModified++
		}
		if res.bodyUnchanged {
			st.BodyUnchanged++
		}
		mu.Unlock()
		select {
		case out <- msg: // waiting on the later stages is not the source's time: ctx, not sctx
		case <-ctx.Done():
			return sourceFailed, "cycle cancelled"
		}
		before, prev, url = prev, url, msg.next
	}
	if span != nil {
		span.at = ChainPlace{Pages: n}
		if stopped {
			span.at = ChainPlace{Next: url, Prev: prev, Before: before, Home: home, Pages: n}
			return sourcePartial, fmt.Sprintf("chain carried: %d pages read, more to come", n)
		}
	}
	if url != "" {
		c.log.Warn("source has more pages than the crawl reads of one source: failed for this cycle, its reqs unknown (none closed); "+
			"raise --fetch-max-pages (HS_FETCH_MAX_PAGES)", "source", src.Key, "pages_read", n, "max_pages", maxPages)
		if c.fetch.cfg.OnPageCap != nil {
			c.fetch.cfg.OnPageCap(src.Key, src.Vendor)
		}
		return sourceFailed, fmt.Sprintf("more than %d pages (--fetch-max-pages)", maxPages)
	}
	return sourceOK, ""
}

// statusOf is the status of a source whose page failed with err: blocked by robots.txt, or failed.
func statusOf(err error) sourceStatus {
	var b errBlocked
	if errors.As(err, &b) {
		return sourceBlocked
	}
	return sourceFailed
}

// failReason is a short reason for a source that failed with err, for operators.
func failReason(err error) string {
	var b errBlocked
	var r errRefused
	var p errPermanent
	switch {
	case errors.Is(err, errSourceDeadline):
		return "source deadline exceeded"
	case errors.As(err, &b):
		return b.reason
	case errors.As(err, &r):
		return r.reason
	case errors.As(err, &p):
		return p.Error()
	}
	return shortError(err)
}

// sightings adds new board sightings, changed companies and new ATS tenants to w.
func (c *Crawler) sightings(w *analytics.CycleWrite, seen map[string]*reqAgg, cycleTime time.Time, dir *Directory, region string, sources []*Source, status map[string]sourceStatus) {
	c.boardSightings(w, seen, cycleTime)
	vendor := map[uint64]string{}
	for _, s := range sources {
		if s.Kind != "ats_tenant" || s.CompanyDomain == "" {
			continue
		}
		id := CompanyID(s.CompanyDomain)
		vendor[id] = s.Vendor
		if status[s.Key] != sourceOK {
			continue
		}
		if _, ok := c.state.ats[atsKey(id, s.Vendor, s.Tenant)]; !ok {
			w.ATS = append(w.ATS, analytics.VendorSighting{CompanyID: id, Vendor: s.Vendor, Tenant: s.Tenant, FirstSeen: cycleTime})
		}
	}
	for _, co := range dir.Companies {
		if co.Region != region {
			continue
		}
		id := CompanyID(co.Domain)
		row := analytics.Company{CompanyID: id, Domain: co.Domain, Name: co.Name, NameKey: nameKey(co.Name), HQCountry: co.HQCountry,
			Region: co.Region, Industry: co.Industry, HeadcountBand: co.HeadcountBand, AgencyKind: co.AgencyKind, ATSVendor: vendor[id],
			Covered: vendor[id] != "", UpdatedAt: cycleTime}
		if prev, ok := c.state.companies[id]; !ok || !prev.SameAs(row) {
			w.Companies = append(w.Companies, row)
		}
	}
}

// liveByRegion counts the live reqs of the ledger state per region.
func (c *Crawler) liveByRegion(companyRegion map[uint64]string) map[string]int {
	out := map[string]int{}
	for _, e := range c.state.reqs {
		if e.live {
			out[companyRegion[e.companyID]]++
		}
	}
	return out
}

// liveAfter counts the region's live reqs once events are applied, from live, the count before
// (liveByRegion). An event's req is of the region (its company's).
func (c *Crawler) liveAfter(region string, companyRegion map[uint64]string, live int, events []Event) int {
	changed := make(map[string]*Event, len(events))
	for i := range events {
		changed[events[i].ReqKey] = &events[i]
	}
	for k, e := range changed {
		if prev := c.state.reqs[k]; prev != nil && companyRegion[prev.companyID] == region && prev.live {
			live--
		}
		if e.Live() {
			live++
		}
	}
	return live
}

// apply advances the in-memory state after a commit. Reqs seen without an event keep their last
// event but take this cycle's sources, so the closing rule waits for the sources that carry them now.
func (c *Crawler) apply(w *analytics.CycleWrite, seen map[string]*reqAgg) {
	for i := range w.Events {
		c.state.reqs[w.Events[i].ReqKey] = stateOf(&w.Events[i])
	}
	for key, a := range seen {
		if e := c.state.reqs[key]; e != nil && e.tick != w.Cycle.Tick && !sameSet(e.sources, a.sources) {
			e.sources = sortedCopy(a.sources)
		}
	}
	for _, b := range w.Boards {
		c.state.boardsSeen[b.ReqKey] = append(c.state.boardsSeen[b.ReqKey], b.Board)
	}
	for _, co := range w.Companies {
		c.state.companies[co.CompanyID] = co
	}
	for _, a := range w.ATS {
		c.state.ats[atsKey(a.CompanyID, a.Vendor, a.Tenant)] = struct{}{}
	}
	if n := len(w.Events); n > 0 {
		c.state.nextSeq = w.Events[n-1].Seq + 1
	}
	c.state.lastCycle[w.Cycle.Region] = analytics.LastCycle{Tick: w.Cycle.Tick, CycleTime: w.Cycle.CycleTime}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// sameSet reports whether sorted holds exactly the elements of xs (in any order, no duplicates).
func sameSet(sorted, xs []string) bool {
	if len(sorted) != len(xs) {
		return false
	}
	for _, x := range xs {
		if !contains(sorted, x) {
			return false
		}
	}
	return true
}

// tickOf is the tick a collect pass serves (all stats of one pass share it).
func tickOf(stats map[string]*CycleStats) uint32 {
	for _, st := range stats {
		return st.Tick
	}
	return 0
}

// pendingObs is a sighting on an unchanged page whose req needs its attributes read back.
type pendingObs struct {
	src *Source
	co  cachedObs
}

// attrs reads the latest committed events of keys (see analytics.LatestEvents).
func (c *Crawler) attrs(ctx context.Context) func(keys []string) (map[string]*Event, error) {
	return func(keys []string) (map[string]*Event, error) {
		return analytics.LatestEvents(ctx, c.ch, c.state.nextSeq-1, keys)
	}
}

// number gives the cycle's events their event_seq, following the committed watermark, and
// counts them in st.
func (c *Crawler) number(w *analytics.CycleWrite, st *CycleStats) {
	st.SeqFrom = c.state.nextSeq
	for i := range w.Events {
		w.Events[i].Seq = c.state.nextSeq + uint64(i)
		st.ByType[w.Events[i].Type]++
	}
	st.Events = len(w.Events)
	st.SeqTo = st.SeqFrom + uint64(len(w.Events)) - 1
}

// boardSightings adds to w every board seen carrying a req for the first time.
func (c *Crawler) boardSightings(w *analytics.CycleWrite, seen map[string]*reqAgg, at time.Time) {
	for key, a := range seen {
		have := c.state.boardsSeen[key]
		for _, b := range a.boards {
			if contains(have, b) {
				continue
			}
			st := "board"
			if contains(a.atsBoards, b) {
				st = "ats_tenant"
			}
			w.Boards = append(w.Boards, analytics.ReqBoard{ReqKey: key,
				BoardSighting: analytics.BoardSighting{CompanyID: a.companyID, Board: b, SourceType: st, FirstSeen: at}})
		}
	}
}
