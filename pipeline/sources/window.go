package sources

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
)

// DefaultWindowLength is one crawl window unless the operator sets another (Clock.Length,
// `crawl --window-length`): every source is read once in each.
const DefaultWindowLength = 3 * time.Hour

// MinWindowLength is the shortest window a clock takes: below it the retry margin (a twelfth)
// is under 5 s, less than one fetch attempt's timeout.
const MinWindowLength = time.Minute

// marginShare is the retry margin's share of a window, and the default refetch's: 15 minutes of
// the default 3 hours.
const marginShare = 12

// DefaultRefetchAfter is Crawl.RefetchAfter's default in a window of DefaultWindowLength: how long
// after a read that fell far below its source's last ok read (pipeline.MassDrop) the source is
// read again in the same window, to confirm or clear the drop before the window is committed. In
// a window of another length it is the same share of it (Clock.RefetchAfter).
const DefaultRefetchAfter = DefaultWindowLength / marginShare

// Clock numbers the crawl windows from Epoch: window t is [Epoch+L·t, Epoch+L·(t+1)) for the
// window length L (Length; DefaultWindowLength when zero). The window is the ledger's tick.
type Clock struct {
	Epoch  time.Time
	Length time.Duration // one window; zero: DefaultWindowLength
}

// Window is the clock's window length.
func (c Clock) Window() time.Duration {
	if c.Length <= 0 {
		return DefaultWindowLength
	}
	return c.Length
}

// RetryMargin is the end of each window kept free of first reads (a twelfth of it: 15 minutes of
// 3 hours), so a read that fails or whose worker dies early enough can be read again before the
// window is committed.
func (c Clock) RetryMargin() time.Duration { return c.Window() / marginShare }

// RefetchAfter is the default wait before a mass drop's refetch in this clock's windows: the
// retry margin's length (DefaultRefetchAfter in a 3-hour window).
func (c Clock) RefetchAfter() time.Duration { return c.Window() / marginShare }

// Check refuses a window that leaves no room: shorter than MinWindowLength, or whose retry
// margin cannot hold a claim that lapses (lease) and the read again of its source (deadline),
// so a source claimed by a worker that died at the last offset would miss the window.
func (c Clock) Check(lease, deadline time.Duration) error {
	w := c.Window()
	if w < MinWindowLength {
		return fmt.Errorf("a crawl window of %s is too short: give at least %s", w, MinWindowLength)
	}
	if m := c.RetryMargin(); lease+deadline > m {
		return fmt.Errorf("a crawl window of %s keeps its last %s (a twelfth) for retries, less than a claim's lease (%s) and a source's read deadline (%s): "+
			"give a window of at least %s, or a shorter lease or deadline", w, m, lease, deadline, marginShare*(lease+deadline))
	}
	return nil
}

// Tick is the window t falls in.
func (c Clock) Tick(t time.Time) int {
	if t.Before(c.Epoch) {
		return -1
	}
	return int(t.Sub(c.Epoch) / c.Window())
}

// Start is the beginning of window tick.
func (c Clock) Start(tick int) time.Time { return c.Epoch.Add(time.Duration(tick) * c.Window()) }

// Due is when a source whose last read took pages is due in window tick: at its Offset, unless
// it is long (oltp.LongSourcePages pages or more), when it is the window's start. A long source
// is a chain of pages that no number of workers reads faster (a job-page board's pages each link
// the next), so it starts when its window does rather than wherever its key's hash falls, and a
// claim takes it before the short sources due with it (oltp.ClaimSources).
func (c Clock) Due(tick int, key string, pages int) time.Time {
	if pages >= oltp.LongSourcePages {
		return c.Start(tick)
	}
	return c.Start(tick).Add(c.Offset(key))
}

// Offset is a source's stable place inside every window (as Prometheus spreads scrapes): the
// hash of its key over the window less the retry margin, so the reads of a fleet spread over
// the window instead of all landing at its start.
func (c Clock) Offset(key string) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return time.Duration(h.Sum64() % uint64(c.Window()-c.RetryMargin()))
}

// Crawl runs the registry crawl's two halves for one process: ReadDue, a worker that claims the
// due sources of a window through leases in Postgres, reads them and stores what each showed
// (the store applies each source's health rule: oltp.StoreCrawlReads); and Commit, the committer
// that loads every read of a window, commits it to the ledger and tells OnWindow what operators
// see of it. Any number of processes may run ReadDue at once; Commit holds the crawl's commit
// lock (the Crawler's Config.CommitLock), so one window is committed once, whoever runs it.
type Crawl struct {
	Pool    *pgxpool.Pool
	Crawler *pipeline.Crawler
	Codec   *pipeline.ReadCodec
	Clock   Clock
	Owner   string        // this worker's name in leases (host and pid)
	Batch   int           // most sources a worker holds claimed at once, read or waiting for a fetch slot (default 64)
	Lease   time.Duration // how long a claim holds before another worker may take it (default oltp.CrawlReadLease)
	// RefetchAfter is how long after a read whose postings fell far below the source's last ok
	// read (pipeline.MassDrop: to zero, or by more than 80 %, from 5 or more) the source is due
	// again in the same window, for any worker to claim; a refetch that would fall past the
	// window's end is not asked, and the next window's read confirms instead (default
	// Clock.RefetchAfter: DefaultRefetchAfter in a 3-hour window).
	RefetchAfter time.Duration
	// ClaimEvery is how often ReadDue claims again after a claim found nothing due while sources
	// are still being read (default 10 s).
	ClaimEvery time.Duration
	// OnDemandWait is how long an on-demand crawl (CrawlCompany) waits for its company's sources
	// a worker is reading before it reads without them (default DefaultOnDemandWait).
	OnDemandWait time.Duration
	Log          *slog.Logger // default: discard
	// OnWindow, when set, is told what operators see of each window Commit commits (a region or
	// more; a rerun that finds every region committed tells nothing).
	OnWindow func(WindowHealth)
	// Discovery, when set, runs queued discoveries between feed reads (ReadDue), through this
	// worker's fetcher, within its per-window budget.
	Discovery *DiscoveryRunner
	// StoreBatch, StoreEvery and StoreQueue shape how ReadDue stores its finished reads
	// (readStore): a store of up to StoreBatch reads (one transaction), once the first waited
	// StoreEvery, with at most StoreQueue waiting while a store is under way (defaults
	// DefaultStoreBatch, DefaultStoreEvery, DefaultStoreQueue; StoreBatch 1 stores each read on
	// its own).
	StoreBatch int
	StoreEvery time.Duration
	StoreQueue int
	// ChainPart is the pages of a source's chain read before the worker records where the chain
	// stands (chains.go; default DefaultChainPart): a killed worker's successor goes on from
	// there. WindowPages, when above 0, is the most pages of one chain read in one window: a chain
	// with more left is carried to the next window there, as it is at its window's end.
	ChainPart   int
	WindowPages int

	once      sync.Once    // defaults, once: a process runs ReadDue, Commit and CrawlCompany at once
	stores    atomic.Int64 // batches of reads stored
	overflows atomic.Int64 // reads that waited for room in a full read store
}

// Stores is how many batches of reads this worker stored (each one transaction), and
// StoreOverflows how many finished reads waited for room in its full read store
// (StoreQueue): operator metrics.
func (c *Crawl) Stores() int64 { return c.stores.Load() }

// StoreOverflows: see Stores.
func (c *Crawl) StoreOverflows() int64 { return c.overflows.Load() }

// WindowHealth is what operators see of one committed window.
type WindowHealth struct {
	Tick int
	// Sources counts the sources of the regions committed by vendor and read status:
	// pipeline.StatusOK, StatusFailed, StatusBlocked, StatusNotFetched (no read: workers behind,
	// the source paused or cooling down), StatusSuspect (read ok, far fewer reqs than it
	// carried: the mass-drop guard's) and StatusPartial (a chain of pages read in part, carried to
	// the next window).
	Sources map[VendorStatus]int
	// HeldOpen is the live reqs of the ledger none of whose sources was read ok this window
	// (pipeline.Crawler.HeldOpenUnread): kept open only because their sources could not be read.
	HeldOpen int
	// Registry counts the registry's sources by status and Cooling those cooling down, after the
	// commit; Registry is nil when they could not be counted (logged).
	Registry map[string]int
	Cooling  int
	// Carried is the chains of pages carried to a later window after the commit (crawl_chains:
	// read in part, going on from where they stopped); -1 when they could not be counted (logged).
	Carried int
}

// VendorStatus is a vendor and a read status, WindowHealth.Sources' key.
type VendorStatus struct{ Vendor, Status string }

func (c *Crawl) defaults() { c.once.Do(c.setDefaults) }

func (c *Crawl) setDefaults() {
	if c.Batch <= 0 {
		c.Batch = 64
	}
	if c.Lease <= 0 {
		c.Lease = oltp.CrawlReadLease
	}
	if c.RefetchAfter <= 0 {
		c.RefetchAfter = c.Clock.RefetchAfter()
	}
	if c.ClaimEvery <= 0 {
		c.ClaimEvery = 10 * time.Second
	}
	if c.OnDemandWait <= 0 {
		c.OnDemandWait = DefaultOnDemandWait
	}
	if c.StoreBatch <= 0 {
		c.StoreBatch = DefaultStoreBatch
	}
	if c.StoreEvery <= 0 {
		c.StoreEvery = DefaultStoreEvery
	}
	if c.StoreQueue <= 0 {
		c.StoreQueue = DefaultStoreQueue
	}
	if c.ChainPart <= 0 {
		c.ChainPart = DefaultChainPart
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// ReadDue claims and reads the due sources of window tick until none is left to claim, and
// returns how many it read. With all, every active or suspect source without a read of the window
// is due (`crawl --once`); otherwise a source is due at its offset in the window, and whenever
// none is due and nothing is being read the worker runs one queued discovery (c.Discovery, within
// its budget) before it claims again, so a feed source waits for at most one discovery.
//
// The worker keeps its fetch slots busy: it reads up to the fetcher's Workers sources at once and
// holds at most c.Batch claimed (read or waiting for a slot), and claims again as reads finish
// (once a quarter of c.Batch is free), so a slow source holds one slot, not the others' claims.
// What it may hold is bounded so that a source waiting for a slot still starts and ends inside
// its lease (holdable), and it renews the leases it holds while it reads (keepLeases), so a read
// longer than a lease (a chain of pages on its per-page budget) keeps its source. A claim that
// finds nothing due is tried again every c.ClaimEvery while sources are still being read.
//
// Each source is read in parts of c.ChainPart pages (chains.go): a chain with pages left when
// the window ends (or after c.WindowPages pages) is stored partial and carried to the next window.
//
// Finished reads are stored in batches by size or age (readStore: c.StoreBatch reads, or the
// first waited c.StoreEvery; oltp.StoreCrawlReads, which gives their leases back), and every one
// queued is stored before the worker runs a discovery or returns. A read is acknowledged once
// stored: until then its lease is renewed, and one lost with its process is read again once its
// lease lapses. Each read is stored with the source's next due time: its time in the next window
// (Clock.Due: its offset, or the window's start for a long source), unless the read fell far
// below the source's last ok read (pipeline.MassDrop on postings) and the window has room for a
// refetch c.RefetchAfter later (not with all: `--once` commits at once), when it is that
// refetch's time; a refetch is claimed like
// any due source, by any worker, and what it reads is the window's read (row). A store with a
// read that answered 404 or 410 queues the re-discovery of broken sources' companies at once
// (DiscoveryRunner.Rediscover), so a company that moved vendor is found in the window its old
// tenant went.
func (c *Crawl) ReadDue(ctx context.Context, tick int, all bool) (int, error) {
	c.defaults()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hold := c.holdable()
	readers := min(hold, c.Crawler.Fetcher().Workers())
	type job struct {
		dir *pipeline.Directory
		cl  oltp.ClaimedSource
	}
	type done struct {
		job
		read  sourceRead // read.read nil: the source is not in the job's directory
		moved bool       // another worker went on with the source's chain: nothing to store
		err   error
	}
	jobs := make(chan job, hold)
	results := make(chan done, hold)
	var heldMu sync.Mutex
	held := make(map[string]bool, hold) // claimed, not finished: their leases are renewed
	defer c.keepLeases(ctx, c.Owner, func() []string {
		heldMu.Lock()
		defer heldMu.Unlock()
		return slices.Collect(maps.Keys(held))
	})()
	var wg sync.WaitGroup
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				sr, found, err := c.readSource(rctx, j.dir, tick, j.cl)
				d := done{job: j, read: sr, err: err}
				if !found {
					d.read.read = nil
				}
				if chainMoved(err) {
					d.moved, d.err = true, nil
				}
				results <- d
			}
		}()
	}
	defer func() {
		close(jobs)
		cancel()
		go func() { wg.Wait(); close(results) }()
		for range results { // the readers stop on rctx; what they finish now is not stored
		}
	}()

	var (
		dir      *pipeline.Directory
		inflight int  // claimed and not finished
		drained  bool // the last claim found nothing due
		retry    <-chan time.Time
		fail     error
	)
	release := func(keys ...string) { // read and stored, or not to be read: its lease is not renewed
		heldMu.Lock()
		defer heldMu.Unlock()
		for _, k := range keys {
			delete(held, k)
		}
	}
	reads := c.newReadStore(ctx, tick, func(keys []string) { release(keys...) })
	end := func(err error) (int, error) { // stores what is queued, stops the store
		if cerr := reads.close(); err == nil && ctx.Err() == nil {
			err = cerr // shutting down: reads not stored are read again once their leases lapse
		}
		return int(reads.n.Load()), err
	}
	dispatch := func(j job) {
		heldMu.Lock()
		held[j.cl.Key] = true
		heldMu.Unlock()
		inflight++
		jobs <- j
	}
	finish := func(d done) error {
		inflight--
		if d.err != nil {
			release(d.cl.Key)
			return d.err
		}
		if d.moved {
			release(d.cl.Key)
			c.Log.Warn("another worker went on with the source's chain of pages (this worker's lease lapsed); its read is dropped", "source", d.cl.Key)
			return nil
		}
		if d.read.read == nil {
			if d.dir == dir { // claimed after the directory was read (an import since): read it again
				dir = nil
			}
			if dir == nil {
				var err error
				if dir, err = Directory(ctx, c.Pool, tick, time.Now().UTC()); err != nil {
					return err
				}
			}
			if d.dir != dir {
				dispatch(job{dir: dir, cl: d.cl})
				return nil
			}
			release(d.cl.Key)
			c.Log.Warn("claimed source is not in the registry's directory; left to its lease", "source", d.cl.Key)
			return nil
		}
		row, err := c.row(tick, d.read, d.cl, all)
		if err != nil {
			release(d.cl.Key)
			return err
		}
		return reads.put(row)
	}
	for {
		if fail == nil && !drained && ctx.Err() == nil && (inflight == 0 || hold-inflight >= max(1, hold/4)) {
			claims, err := oltp.ClaimSources(ctx, c.Pool, c.Owner, tick, hold-inflight, c.Lease, all)
			switch {
			case err != nil && ctx.Err() == nil:
				fail = err
			case len(claims) == 0:
				drained = true
				if inflight > 0 && !all {
					retry = time.After(c.ClaimEvery)
				}
			default:
				if dir == nil {
					if dir, err = Directory(ctx, c.Pool, tick, time.Now().UTC()); err != nil {
						fail = err
						break
					}
				}
				for _, cl := range claims {
					dispatch(job{dir: dir, cl: cl})
				}
				continue
			}
		}
		select { // every finished read, as long as one is ready
		case d := <-results:
			if err := finish(d); err != nil && fail == nil {
				fail = err
			}
			continue
		default:
		}
		if inflight == 0 {
			if fail != nil || ctx.Err() != nil {
				return end(fail) // shutting down is no error: the leases lapse
			}
			if !drained {
				continue
			}
			if all {
				return end(nil)
			}
			if err := reads.sync(); err != nil { // the window's reads stored before a discovery runs
				return end(err)
			}
			ran, err := c.Discovery.RunOne(ctx, tick)
			if err != nil {
				c.Log.Warn("cannot run a discovery; will retry", "err", err)
			}
			if !ran {
				return end(nil)
			}
			dir, drained = nil, false // a discovery may have added sources
			continue
		}
		if fail != nil {
			cancel() // the reads under way stop; their sources' leases lapse
		}
		select {
		case d := <-results:
			if err := finish(d); err != nil && fail == nil {
				fail = err
			}
		case <-retry:
			drained, retry = false, nil
		}
	}
}

// keepLeases renews, every c.Lease/3 until the returned stop is called, the leases owner holds on
// the keys held returns (oltp.RenewLeases): a read that outlasts its lease, a board whose chain
// of pages its per-page budget keeps going, is not claimed by another worker while this one
// lives.
func (c *Crawl) keepLeases(ctx context.Context, owner string, held func() []string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(c.Lease/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := oltp.RenewLeases(ctx, c.Pool, owner, held(), c.Lease); err != nil && ctx.Err() == nil {
					c.Log.Warn("cannot renew the leases of the sources being read; they may lapse", "err", err)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// holdable is how many sources a worker holds claimed at once: c.Batch, but never more than its
// fetch slots can read before the leases lapse. With W slots and a per-source deadline D, a
// source waiting behind q others starts within ⌈q/W⌉·D and ends D later, inside a lease L while
// it waits behind at most W·(⌊L/D⌋ − 1): so at most W·⌊L/D⌋ are held (the W read and those
// waiting); that bound is never below W. D is the deadline before pages add to it: a chain read
// longer keeps its lease through keepLeases.
func (c *Crawl) holdable() int {
	w := c.Crawler.Fetcher().Workers()
	rounds := max(1, int(c.Lease/c.Crawler.Fetcher().SourceDeadline()))
	return max(1, min(c.Batch, w*rounds))
}

// row is the stored form of read sr of a source claimed as cl in window tick (the pages and
// postings this window read; of a chain read in parts, the whole chain's so far for the source's
// schedule and health: CrawlRead.Chain): next due at its time in the next window (Clock.Due, by
// the most of its pages now and last window, a chain's whole: a read that failed partway through a
// long chain keeps it long; a chain carried on at the next window's start), or,
// when it is a first read whose postings fell far below the source's last ok read and the window
// has room (not with all, nor for a chain read in parts, which the next window's read confirms),
// asking for a refetch c.RefetchAfter later.
func (c *Crawl) row(tick int, sr sourceRead, cl oltp.ClaimedSource, all bool) (oltp.CrawlRead, error) {
	r := sr.read
	b := sr.sightings
	if b == nil {
		var err error
		if b, err = c.Codec.Encode(r); err != nil {
			return oltp.CrawlRead{}, err
		}
	}
	pages := r.Pages
	var chain *oltp.ChainSize
	if sr.parted {
		pages, chain = sr.chain.Pages, &sr.chain
	}
	next := c.Clock.Due(tick+1, r.SourceKey, max(pages, cl.LastPages))
	if r.Status == pipeline.StatusPartial {
		next = c.Clock.Start(tick + 1)
	}
	row := oltp.CrawlRead{Tick: tick, SourceKey: r.SourceKey, ReadAt: r.ReadAt, Worker: c.Owner, Status: r.Status,
		Reason: r.Reason, Pages: r.Pages, Postings: r.Postings, Malformed: r.Malformed, Sightings: b,
		NextDue: next, Refetch: cl.Refetch, EndsChain: sr.endsChain, Chain: chain}
	if cl.Refetch || all || sr.parted || r.Status != pipeline.StatusOK || cl.LastOKCount < 0 || !pipeline.MassDrop(cl.LastOKCount, r.Postings) {
		return row, nil
	}
	if due := r.ReadAt.Add(c.RefetchAfter); due.Before(c.Clock.Start(tick + 1)) {
		row.RefetchDue, row.NextDue = due, due
		c.Log.Info("source read far fewer postings than its last read: refetched in this window before its drop is believed",
			"source", r.SourceKey, "tick", tick, "last", cl.LastOKCount, "now", r.Postings, "refetch_at", due.Format(time.RFC3339))
	}
	return row, nil
}

// gone reports whether a read answered 404 or 410 (pipeline's failure reasons, oltp's broken
// sources).
func gone(rows []oltp.CrawlRead) bool {
	for _, r := range rows {
		if r.Status == pipeline.StatusFailed && (r.Reason == "status 404" || r.Reason == "status 410") {
			return true
		}
	}
	return false
}

// Commit commits window tick from the reads stored for it, observed at cycleTime (the time of
// the window's latest read when zero, never past the window's end), and prunes the reads of the
// windows before it. Regions already committed are skipped, so a rerun after a crash finishes
// the window and doubles nothing. A window with no read at all is not committed (nil stats): it
// stays a gap in the history. A read that is a refetch (oltp.CrawlRead.SuspectReadAt) confirms or
// ends its source's drop in this window; a read still waiting for its refetch is committed as it
// is, never waited for: the guard finds it suspect, and the next window's read confirms.
func (c *Crawl) Commit(ctx context.Context, tick int, cycleTime time.Time) ([]pipeline.CycleStats, error) {
	c.defaults()
	reads := map[string]*pipeline.SourceRead{}
	var latest time.Time
	err := oltp.CrawlReads(ctx, c.Pool, tick, func(row oltp.CrawlRead) error {
		r := &pipeline.SourceRead{SourceKey: row.SourceKey, Tick: uint32(tick), ReadAt: row.ReadAt, Status: row.Status, Reason: row.Reason,
			Pages: row.Pages, Postings: row.Postings, Malformed: row.Malformed, RefetchOf: row.SuspectReadAt}
		c.Codec.Defer(r, row.Sightings) // decoded one at a time as the commit merges them
		reads[r.SourceKey] = r
		if row.ReadAt.After(latest) {
			latest = row.ReadAt
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(reads) == 0 {
		return nil, nil // nothing was read: the window stays a gap, never an empty cycle
	}
	if cycleTime.IsZero() {
		cycleTime = latest
		if cycleTime.IsZero() {
			cycleTime = c.Clock.Start(tick)
		}
	}
	if end := c.Clock.Start(tick + 1).Add(-time.Second); cycleTime.After(end) {
		cycleTime = end
	}
	dir, err := Directory(ctx, c.Pool, tick, cycleTime.UTC().Truncate(time.Second))
	if err != nil {
		return nil, err
	}
	stats, err := c.Crawler.CommitReads(ctx, dir, reads)
	if err != nil {
		return stats, fmt.Errorf("cannot commit window %d: %w", tick, err)
	}
	var suspect, okAgain []string
	isSuspect := map[string]bool{}
	for _, st := range stats {
		for _, k := range st.SuspectSources {
			isSuspect[k] = true
			suspect = append(suspect, k)
		}
	}
	for k, r := range reads {
		if r.Status == pipeline.StatusOK && !isSuspect[k] {
			okAgain = append(okAgain, k)
		}
	}
	if err := oltp.SyncCrawlSuspects(ctx, c.Pool, suspect, okAgain,
		"read far fewer reqs than it carried: its reqs stay open until a later read confirms the drop"); err != nil {
		c.Log.Warn("cannot record the window's suspect sources in the registry", "err", err)
	}
	// A company that moved vendor: its old source retires once this committed window read the new
	// one ok, so the reqs both carried are the new one's before the old leaves the directory.
	readOK := make(map[string]time.Time, len(okAgain))
	for _, k := range okAgain {
		readOK[k] = reads[k].ReadAt
	}
	if retired, err := oltp.RetireReplaced(ctx, c.Pool, readOK); err != nil {
		c.Log.Warn("cannot retire the sources of companies that moved vendor; retried at the next window", "err", err)
	} else if len(retired) > 0 {
		c.Log.Info("sources retired: their companies moved vendor", "tick", tick, "sources", retired)
	}
	if _, err := oltp.PruneCrawlReads(ctx, c.Pool, tick); err != nil {
		c.Log.Warn("cannot prune old crawl reads; they are pruned at the next commit", "err", err)
	}
	if c.OnWindow != nil {
		if h, ok := c.health(ctx, tick, dir, reads, stats); ok {
			c.OnWindow(h)
		}
	}
	return stats, nil
}

// health is what operators see of window tick once committed: each source of the regions
// committed now by vendor and status, the reqs held open by sources not read ok, and the
// registry's counts. ok is false when every region was committed before (a rerun).
func (c *Crawl) health(ctx context.Context, tick int, dir *pipeline.Directory, reads map[string]*pipeline.SourceRead,
	stats []pipeline.CycleStats) (WindowHealth, bool) {
	committed := map[string]bool{}
	suspect := map[string]bool{}
	for _, st := range stats {
		if st.Skipped {
			continue
		}
		committed[st.Region] = true
		for _, k := range st.SuspectSources {
			suspect[k] = true
		}
	}
	if len(committed) == 0 {
		return WindowHealth{}, false
	}
	h := WindowHealth{Tick: tick, Sources: map[VendorStatus]int{}}
	for _, s := range dir.Sources {
		if !committed[s.Region] {
			continue
		}
		status := pipeline.StatusNotFetched
		if r := reads[s.Key]; r != nil {
			status = r.Status
		}
		if suspect[s.Key] {
			status = pipeline.StatusSuspect
		}
		h.Sources[VendorStatus{s.Vendor, status}]++
	}
	h.HeldOpen = c.Crawler.HeldOpenUnread(func(key string) bool {
		r := reads[key]
		return r != nil && r.Status == pipeline.StatusOK && !suspect[key]
	})
	byStatus, cooling, err := oltp.RegistryHealth(ctx, c.Pool)
	if err != nil {
		c.Log.Warn("cannot count the registry's sources for the metrics; counted again at the next window", "err", err)
	} else {
		h.Registry, h.Cooling = byStatus, cooling
	}
	if h.Carried, err = oltp.CarriedChains(ctx, c.Pool); err != nil {
		h.Carried = -1
		c.Log.Warn("cannot count the carried chains for the metrics; counted again at the next window", "err", err)
	}
	return h, true
}
