package sources

import (
	"context"
	"time"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
)

// DefaultOnDemandWait is how long an on-demand crawl waits for the sources of its company that a
// crawl worker is reading (Crawl.OnDemandWait).
const DefaultOnDemandWait = time.Minute

// onDemandPoll is how often an on-demand crawl asks again for the sources a worker holds.
const onDemandPoll = 200 * time.Millisecond

// CrawlCompany is the on-demand crawl of the company at domain (a `crawling` job) through the
// registry's leases: it leases the company's active and suspect sources as a worker claims
// sources (oltp.ClaimCompanySources), waits up to c.OnDemandWait for those a worker is reading
// (a worker gives a lease back when it stores its read), reads and commits the ones it holds
// (pipeline.Crawler.RunCompanySources: a source it could not lease is not fetched, its reqs stay
// unknown) and gives the leases back without storing a read, so each source keeps its read in
// the window. A worker and an on-demand crawl thus never read one source at once, and the
// on-demand reads go through the crawler's fetcher like any other: robots.txt, and the host
// turns every worker shares.
func (c *Crawl) CrawlCompany(ctx context.Context, dir *pipeline.Directory, domain string, now time.Time) (pipeline.CycleStats, error) {
	c.defaults()
	owner := c.Owner + " on-demand"
	var held []string
	defer func() {
		if err := oltp.ReleaseSources(context.WithoutCancel(ctx), c.Pool, owner, held); err != nil {
			c.Log.Warn("cannot give back an on-demand crawl's leases; they lapse", "company", domain, "err", err)
		}
	}()
	until := time.Now().Add(c.OnDemandWait)
	waited := false
	for {
		claimed, busy, err := oltp.ClaimCompanySources(ctx, c.Pool, owner, domain, c.Lease)
		if err != nil {
			return pipeline.CycleStats{}, err
		}
		held = claimed // a claim renews the leases this crawl holds already
		if len(busy) == 0 {
			break
		}
		if !time.Now().Before(until) {
			c.Log.Info("on-demand crawl goes without the sources a crawl worker still reads: their reqs stay as they are",
				"company", domain, "sources", busy)
			break
		}
		if !waited {
			waited = true
			c.Log.Info("on-demand crawl waits for sources a crawl worker is reading", "company", domain, "sources", busy)
		}
		select {
		case <-ctx.Done():
			return pipeline.CycleStats{}, ctx.Err()
		case <-time.After(onDemandPoll):
		}
	}
	mine := make(map[string]bool, len(held))
	for _, k := range held {
		mine[k] = true
	}
	defer c.keepLeases(ctx, owner, func() []string { return held })()
	return c.Crawler.RunCompanySources(ctx, dir, domain, func(key string) bool { return mine[key] }, now)
}
