package searchindex

import "time"

// RoleDemand returns the market-wide weekly series of the given taxonomy ids (summed) in the given
// countries (canonical names; nil: every country), oldest first, zero-filled from the first week
// of the ledger to the week of the latest committed cycle. A week is partial when it began before
// observation started, a gap in any crawl region's cycles touches it, or it has not ended.
func (x *Index) RoleDemand(functions, countries []string) []Week {
	n := int(x.demandLast.Sub(x.demandFirst)/(7*24*time.Hour)) + 1
	if n < 1 {
		n = 1
	}
	out := make([]Week, n)
	for i := range out {
		out[i].BucketStart = x.demandFirst.AddDate(0, 0, 7*i)
		end := out[i].BucketStart.AddDate(0, 0, 7)
		out[i].Partial = out[i].BucketStart.Before(x.observedFrom) || end.After(x.CycleTime)
		for _, g := range x.gaps {
			if !out[i].Partial && g.Touches(out[i].BucketStart, end) {
				out[i].Partial = true
			}
		}
	}
	add := func(ws []Week) {
		for _, w := range ws {
			i := int(w.BucketStart.Sub(x.demandFirst) / (7 * 24 * time.Hour))
			if i < 0 || i >= n {
				continue
			}
			out[i].Opened += w.Opened
			out[i].Reposted += w.Reposted
			out[i].Closed += w.Closed
		}
	}
	for k, ws := range x.demand {
		if !containsStr(functions, k.function) {
			continue
		}
		if countries != nil && !containsStr(countries, k.country) {
			continue
		}
		add(ws)
	}
	return out
}
