package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/planehq/hiringsignal/analytics"
)

// RunCompany crawls one company's own sources now (its ATS tenants and careers sites), between
// scheduled cycles (the on-demand crawl behind a `crawling` job). Boards are not re-read, so a req they alone carry is unknown,
// never closed. Observation time is `now`; the cycle is committed under region
// analytics.CompanyRegion(id) at the directory's tick, so it is idempotent like any cycle.
func (c *Crawler) RunCompany(ctx context.Context, dir *Directory, domain string, now time.Time) (CycleStats, error) {
	return c.RunCompanySources(ctx, dir, domain, nil, now)
}

// RunCompanySources is RunCompany reading only those of the company's own sources that read
// reports true for (nil: every one): the others are not fetched, so the reqs they carry are
// unknown, never closed. The registry's on-demand crawl reads the sources it holds the leases of
// (pipeline/sources), so a crawl worker never reads one at the same time.
func (c *Crawler) RunCompanySources(ctx context.Context, dir *Directory, domain string, read func(key string) bool, now time.Time) (CycleStats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fresh(ctx, c, dir.Tick, func() (CycleStats, error) { return c.runCompany(ctx, dir, domain, read, now) })
}

func (c *Crawler) runCompany(ctx context.Context, dir *Directory, domain string, read func(string) bool, now time.Time) (CycleStats, error) {
	id := CompanyID(domain)
	region := analytics.CompanyRegion(id)
	tick := uint32(dir.Tick)
	c.pages.advance(tick)
	now = now.UTC().Truncate(time.Second)
	st := &CycleStats{Region: region, Tick: tick, CycleTime: now, StartedAt: time.Now().UTC(), ByType: map[string]int{}}
	var homeRegion string
	known := false
	for _, co := range dir.Companies {
		if co.Domain == domain {
			homeRegion, known = co.Region, true
		}
	}
	if !known {
		return *st, fmt.Errorf("company %s is not in the source directory", domain)
	}
	var sources, unread []*Source
	inDirectory := make(map[string]bool, len(dir.Sources))
	for i := range dir.Sources {
		s := &dir.Sources[i]
		inDirectory[s.Key] = true
		if (s.Kind == "ats_tenant" || s.Kind == "careers_site") && s.CompanyDomain == domain {
			if read != nil && !read(s.Key) {
				unread = append(unread, s)
				continue
			}
			sources = append(sources, s)
		}
	}
	st.Sources = len(sources) + len(unread)
	stats := map[string]*CycleStats{}
	for _, s := range sources {
		stats[s.Region] = st
	}
	seen, status, err := c.collect(ctx, sources, newResolver(dir.Companies), stats)
	if err != nil {
		return *st, err
	}
	for _, s := range unread {
		status[s.Key] = sourceNotFetched // unknown: its reqs stay open
		st.NotFetched++
		st.UnreadSources = append(st.UnreadSources, s.Key)
	}
	slices.Sort(st.UnreadSources)
	c.countSuspects(c.guardDrops(ctx, sources, seen, status, now, nil), sources, stats)
	unlock, err := c.lockHead(ctx)
	if err != nil {
		return *st, err
	}
	defer unlock()
	events, err := diff(c.state, homeRegion, tick, now, time.Time{}, seen, status, inDirectory, nil, func(cid uint64) bool { return cid == id }, c.attrs(ctx))
	if err != nil {
		return *st, err
	}
	for _, a := range seen {
		a.release()
	}
	w := &analytics.CycleWrite{Events: events}
	c.number(w, st)
	c.boardSightings(w, seen, now)
	w.Cycle = st.row()
	if err := c.write(ctx, w); err != nil {
		return *st, fmt.Errorf("on-demand crawl of %s: %w", domain, err)
	}
	c.apply(w, seen)
	st.Duration = time.Since(st.StartedAt)
	return *st, nil
}
