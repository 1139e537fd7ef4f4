package search

import (
	"slices"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// freshness says what an answer reflects: the data's as_of and the caller's freshness floor.
type freshness struct {
	AsOf            string  `json:"as_of"`
	FreshnessFloorS int     `json:"freshness_floor_s"`
	FirstSeenCutoff *string `json:"first_seen_cutoff"`
}

func freshnessOf(c *api.Call, x *searchindex.Index) freshness {
	f := freshness{AsOf: x.CycleTime.UTC().Format(time.RFC3339), FreshnessFloorS: c.Caller.Plan().FreshnessFloorS}
	if cut := freshBefore(c, x); !cut.IsZero() {
		f.FirstSeenCutoff = api.RFC3339(cut)
	}
	return f
}

// paging says whether more pages follow and how many rows match in all (free: not metered).
type paging struct {
	HasMore    bool `json:"has_more"`
	Total      int  `json:"total"`
	TotalExact bool `json:"total_exact"`
}

func pagingOf(more bool, n searchindex.Count) paging {
	return paging{HasMore: more, Total: n.N, TotalExact: n.Exact}
}

// metaProps adds the freshness and paging members to a list answer's schema properties.
func metaProps(p map[string]any, counted string) map[string]any {
	metaFreshness(p)
	p["has_more"] = map[string]any{"type": "boolean", "description": "another page follows (next_cursor is the way to it)"}
	p["total"] = map[string]any{"type": "integer", "minimum": 0,
		"description": counted + ", after the freshness floor; not metered. Exact up to 1,000; past that an estimate (total_exact false)"}
	p["total_exact"] = map[string]any{"type": "boolean", "description": "total is the exact count; false: counting stopped at 1,000 matches and total extrapolates them over the share of candidates examined"}
	return p
}

// metaFreshness adds the freshness members to an answer's schema properties.
func metaFreshness(p map[string]any) map[string]any {
	p["as_of"] = map[string]any{"type": "string", "format": "date-time",
		"description": "the latest committed crawl cycle this answer reflects (every row, count and pulse is as of it)"}
	p["freshness_floor_s"] = map[string]any{"type": "integer", "minimum": 0,
		"description": "your plan's freshness floor in seconds (Free 86400, paid 0): reqs first seen less than this before as_of are not served, and pulses do not count them"}
	p["first_seen_cutoff"] = api.Nullable(map[string]any{"type": "string", "format": "date-time",
		"description": "as_of minus the floor: reqs first seen after it are hidden; null without a floor"})
	return p
}

// Heavy parts a caller can ask for with include (reqs/search and jobs/search query, reqs/qualified
// body): momentum, each pulse's full weekly history; description, each req row's description.
const (
	includeMomentum    = "momentum"
	includeDescription = "description"
)

// includes is the heavy parts the caller asked for.
type includes struct{ momentum, description bool }

func includesOf(vals []string) includes {
	return includes{momentum: slices.Contains(vals, includeMomentum), description: slices.Contains(vals, includeDescription)}
}

// flooredPulse is the company's pulse as the call may see it: without momentum unless asked,
// and without the reqs its freshness floor hides (Snapshot.PulseUnder), so the pulse counts
// exactly the reqs the caller's rows may show. nil when the read model does not know the company.
func flooredPulse(snap *snapshot.Snapshot, cutoff time.Time, id uint64, inc includes) *readmodel.Pulse {
	c := snap.Model.Company(id)
	if c == nil {
		return nil
	}
	p := snap.PulseUnder(c, inc.momentum, cutoff)
	return &p
}
