package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// The crawl split in two halves, so any number of worker processes can read sources while one
// committer decides each window: a worker fetches, parses and normalizes the sources it claimed
// (ReadSources) and stores what each showed; the committer loads every read of the window and
// runs the second half of a cycle on them (CommitReads): dedup, the mass-drop guard, diff,
// numbering and the commit, exactly as a whole cycle does.

// ReadSources reads the sources of dir named by keys in window tick and returns what each showed:
// its status, the sightings of its parsed pages and the (req, posting) pairs of its unchanged
// ones, in dir's order. It does not touch the ledger, and may run while the crawler commits. A
// key not in dir is skipped. A worker calls it once per claimed batch with the same dir, which it
// must not change in between: what ReadSources derives from dir (readIndex) is built once per
// directory.
func (c *Crawler) ReadSources(ctx context.Context, dir *Directory, tick uint32, keys []string) ([]SourceRead, error) {
	return c.readSources(ctx, dir, tick, keys, nil)
}

// ChainPlace is where a read of a source's chain of pages stopped with pages left, for a later
// read to go on from (ReadSegment): the next page's URL, the two pages before it (the read-ahead
// steps by them), where the chain's first page was read after redirects (every next page must be
// on its origin or the source's), and the pages of the chain read so far. A chain that ended has
// no Next.
type ChainPlace struct {
	Next   string `json:"next,omitempty"`
	Prev   string `json:"prev,omitempty"`
	Before string `json:"before,omitempty"`
	Home   string `json:"home,omitempty"`
	Pages  int    `json:"pages"`
}

// chainSpan is the part of a source's chain fetchSource reads for ReadSegment: from a place, at
// most limit pages (0: to the cap), none once until has passed (zero: no time bound); at is where
// it stopped.
type chainSpan struct {
	from  ChainPlace
	limit int
	until time.Time
	at    ChainPlace
}

// ReadSegment reads part of the chain of pages of source key of dir in window tick, as
// ReadSources reads a whole source: from `from` (the chain's first page when from.Next is empty),
// at most pages pages (0: up to FetchConfig.MaxPages), and no page once until has passed (zero:
// no time bound). The read is StatusOK when the chain ended, StatusPartial when it stopped with
// pages left (at is where, for the next part to go on from), or failed or blocked as a read of
// the whole source would be; its Pages and sightings are this part's, at.Pages the chain's so
// far. The source's deadline counts from this part's start and its pages, and the cap the chain's
// pages. found is false when key is not in dir.
func (c *Crawler) ReadSegment(ctx context.Context, dir *Directory, tick uint32, key string, from ChainPlace, pages int,
	until time.Time) (r SourceRead, at ChainPlace, found bool, err error) {
	span := &chainSpan{from: from, limit: pages, until: until}
	reads, err := c.readSources(ctx, dir, tick, []string{key}, span)
	if err != nil || len(reads) == 0 {
		return SourceRead{}, ChainPlace{}, false, err
	}
	return reads[0], span.at, true, nil
}

// readSources is ReadSources, with span applied to its source when set (one key).
func (c *Crawler) readSources(ctx context.Context, dir *Directory, tick uint32, keys []string, span *chainSpan) ([]SourceRead, error) {
	c.pages.advance(tick)
	idx := c.readIndexOf(dir)
	at := make([]int, 0, len(keys))
	for _, k := range keys {
		if i, ok := idx.at[k]; ok {
			at = append(at, i)
		}
	}
	slices.Sort(at)
	at = slices.Compact(at)
	sources := make([]*Source, 0, len(at))
	stats := map[string]*CycleStats{}
	for _, i := range at {
		s := &dir.Sources[i]
		sources = append(sources, s)
		if stats[s.Region] == nil {
			stats[s.Region] = &CycleStats{Region: s.Region, Tick: tick, ByType: map[string]int{}}
		}
	}
	res := idx.res
	var countMu sync.Mutex
	pages, status, reasons := c.fetchStage(ctx, sources, stats, &countMu, span)
	descs := c.newReadDescWriter(ctx)
	obs := c.normalizeStage(pages, res, stats, &countMu, nil, descs) // which reqs will have an event is the committer's to know: every posting is read
	reads := make(map[string]*SourceRead, len(sources))
	for _, s := range sources {
		reads[s.Key] = &SourceRead{SourceKey: s.Key, Tick: tick}
	}
	for m := range obs {
		r := reads[m.src.Key]
		r.Pages++
		r.Full = append(r.Full, m.full...)
		r.Unchanged = append(r.Unchanged, m.cached...)
	}
	if _, err := descs.close(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reads cancelled: %w", err)
	}
	now := time.Now().UTC()
	out := make([]SourceRead, 0, len(sources))
	for _, s := range sources {
		r := reads[s.Key]
		r.ReadAt = now
		r.Status = statusName(status[s.Key])
		r.Reason = reasons[s.Key]
		r.Postings = len(r.Full) + len(r.Unchanged)
		out = append(out, *r)
	}
	return out, nil
}

// readIndex is what ReadSources needs of a directory beyond the claimed keys: where each source
// is, and the resolver of its companies. Both cost O(companies + sources) to build (the resolver
// normalizes every company's domain and name: about 140 ms and 200,000 allocations at 100,000
// companies), so they are built once per directory, not once per claimed batch of a window.
type readIndex struct {
	dir *Directory
	at  map[string]int // source key → index in dir.Sources
	res *resolver
}

// readIndexOf is dir's index: the one kept when dir is the last directory read, else a new one
// (which replaces it).
func (c *Crawler) readIndexOf(dir *Directory) *readIndex {
	c.readMu.Lock()
	defer c.readMu.Unlock()
	if c.readIdx != nil && c.readIdx.dir == dir {
		return c.readIdx
	}
	idx := &readIndex{dir: dir, at: make(map[string]int, len(dir.Sources)), res: newResolver(dir.Companies)}
	for i := range dir.Sources {
		if _, dup := idx.at[dir.Sources[i].Key]; !dup {
			idx.at[dir.Sources[i].Key] = i
		}
	}
	c.readIdx = idx
	return idx
}

func statusName(s sourceStatus) string {
	switch s {
	case sourceOK:
		return StatusOK
	case sourceBlocked:
		return StatusBlocked
	case sourceNotFetched:
		return StatusNotFetched
	case sourceSuspect:
		return StatusSuspect
	case sourcePartial:
		return StatusPartial
	}
	return StatusFailed
}

func statusFromName(name string) sourceStatus {
	switch name {
	case StatusOK:
		return sourceOK
	case StatusBlocked:
		return sourceBlocked
	case StatusNotFetched:
		return sourceNotFetched
	case StatusSuspect:
		return sourceSuspect
	case StatusPartial:
		return sourcePartial
	}
	return sourceFailed
}

// CommitReads commits every region of dir's window from the workers' reads (by source key): a
// source of dir with no read was not fetched this window and is unknown, like a failed one. A
// read kept packed (ReadCodec.Defer) is decoded when its source's turn comes, and dropped once
// merged. The regions already committed are skipped, so a committer rerun after a crash finishes
// the window without doubling anything.
func (c *Crawler) CommitReads(ctx context.Context, dir *Directory, reads map[string]*SourceRead) ([]CycleStats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fresh(ctx, c, dir.Tick, func() ([]CycleStats, error) { return c.commitReads(ctx, dir, reads) })
}

func (c *Crawler) commitReads(ctx context.Context, dir *Directory, reads map[string]*SourceRead) ([]CycleStats, error) {
	p, err := c.newPass(ctx, dir, dir.Regions)
	if err != nil || len(p.todo) == 0 {
		return p.out(), err
	}
	tc := time.Now()
	for k, r := range reads {
		if !r.RefetchOf.IsZero() {
			if p.refetched == nil {
				p.refetched = map[string]time.Time{}
			}
			p.refetched[k] = r.RefetchOf
		}
	}
	status := make(map[string]sourceStatus, len(p.sources))
	reasons := map[string]string{}
	msgs := make(chan obsMsg, 64)
	var decodeErr error // the sender's, read once msgs is drained
	go func() {
		defer close(msgs)
		for _, s := range p.sources {
			r := reads[s.Key]
			if r == nil {
				status[s.Key], reasons[s.Key] = sourceNotFetched, "not read this window"
				continue
			}
			status[s.Key] = statusFromName(r.Status)
			if r.Reason != "" {
				reasons[s.Key] = r.Reason
			}
			st := p.stats[s.Region]
			st.Pages += r.Pages
			st.Postings += r.Postings
			st.Malformed += r.Malformed
			full, unchanged, err := r.sightings()
			if err != nil {
				decodeErr = fmt.Errorf("cannot commit the read of %s: %w", s.Key, err)
				return
			}
			select {
			case msgs <- obsMsg{src: s, full: full, cached: unchanged}:
			case <-ctx.Done():
				return
			}
		}
	}()
	seenAll, err := c.dedupStage(ctx, msgs, p.tick)
	for range msgs { // drain: the sender stops on ctx, on a read that does not decode, or at the end
	}
	if err != nil {
		return p.out(), err
	}
	if decodeErr != nil {
		return p.out(), decodeErr
	}
	if err := ctx.Err(); err != nil {
		return p.out(), fmt.Errorf("commit cancelled: %w", err)
	}
	countSources(p.sources, status, reasons, p.stats)
	for _, st := range p.stats {
		st.CollectTook = time.Since(tc)
	}
	err = c.decide(ctx, p, seenAll, status)
	return p.out(), err
}
