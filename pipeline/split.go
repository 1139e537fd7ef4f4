package pipeline

import (
	"context"
	"fmt"
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
// ones. It does not touch the ledger, and may run while the crawler commits. A key not in dir is
// skipped.
func (c *Crawler) ReadSources(ctx context.Context, dir *Directory, tick uint32, keys []string) ([]SourceRead, error) {
	c.pages.advance(tick)
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	var sources []*Source
	stats := map[string]*CycleStats{}
	for i := range dir.Sources {
		s := &dir.Sources[i]
		if !want[s.Key] {
			continue
		}
		sources = append(sources, s)
		if stats[s.Region] == nil {
			stats[s.Region] = &CycleStats{Region: s.Region, Tick: tick, ByType: map[string]int{}}
		}
	}
	res := newResolver(dir.Companies)
	var countMu sync.Mutex
	pages, status, reasons := c.fetchStage(ctx, sources, stats, &countMu)
	obs := c.normalizeStage(pages, res, stats, &countMu)
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
	}
	return sourceFailed
}

// CommitReads commits every region of dir's window from the workers' reads (by source key): a
// source of dir with no read was not fetched this window and is unknown, like a failed one. The
// regions already committed are skipped, so a committer rerun after a crash finishes the window
// without doubling anything.
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
	status := make(map[string]sourceStatus, len(p.sources))
	reasons := map[string]string{}
	msgs := make(chan obsMsg, 64)
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
			select {
			case msgs <- obsMsg{src: s, full: r.Full, cached: r.Unchanged}:
			case <-ctx.Done():
				return
			}
		}
	}()
	seenAll, err := c.dedupStage(ctx, msgs, p.tick)
	for range msgs { // drain: the sender stops on ctx or at the end
	}
	if err != nil {
		return p.out(), err
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
