package pipeline

import (
	"context"
	"net/http"
	"time"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

// The mass-drop guard: a read that answers 200 but carries far fewer reqs than the source
// carried before is more often a broken board, a login wall or a half-migrated tenant than a
// company that closed every opening at once. Such a read is suspect: its source's reqs stay
// open (unknown) until a later read confirms the drop.
const (
	// suspectMinPrev is the fewest live reqs a source must have carried for a drop to be suspect.
	suspectMinPrev = 5
	// suspectConfirmAfter is how long after the first suspect read a read showing the same drop
	// confirms it.
	suspectConfirmAfter = 15 * time.Minute
)

// suspectMark is a source whose last read was suspect: since when, and how many live reqs it
// carried then.
type suspectMark struct {
	since time.Time
	prev  int
}

// MassDrop reports whether cur read now, against prev carried before, is a mass drop: to zero,
// or by more than 80%, from 5 or more. The guard applies it to a source's reqs against the
// ledger; a registry worker applies it to a read's postings against the source's last ok read,
// to ask for a refetch inside the window (pipeline/sources).
func MassDrop(prev, cur int) bool {
	return prev >= suspectMinPrev && (cur == 0 || cur*5 < prev)
}

// guardDrops turns the ok status of every source of the pass whose read is a mass drop into
// sourceSuspect, unless it confirms an earlier suspect read of that source and the tenant's board
// endpoint still answers: a read this crawler judged suspect at least suspectConfirmAfter before
// now, or, for a read that is the refetch a worker made after a read that fell (refetched: the
// first read's time by source key; SourceRead.RefetchOf), that read. It returns the keys it made
// suspect. The caller holds c.mu.
func (c *Crawler) guardDrops(ctx context.Context, sources []*Source, seen map[string]*reqAgg, status map[string]sourceStatus, now time.Time,
	refetched map[string]time.Time) []string {
	want := make(map[string]bool, len(sources))
	for _, s := range sources {
		if status[s.Key] == sourceOK {
			want[s.Key] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	prev := map[string]int{}
	for _, e := range c.state.reqs {
		if !e.live {
			continue
		}
		for _, s := range e.sources {
			if want[s] {
				prev[s]++
			}
		}
	}
	cur := map[string]int{}
	for _, a := range seen {
		for _, s := range a.sources {
			if want[s] {
				cur[s]++
			}
		}
	}
	var suspect []string
	for _, src := range sources {
		key := src.Key
		if !want[key] {
			continue
		}
		if !MassDrop(prev[key], cur[key]) {
			delete(c.suspects, key)
			continue
		}
		m, marked := c.suspects[key]
		first, refetch := refetched[key]
		if (refetch || marked && now.Sub(m.since) >= suspectConfirmAfter) && c.boardExists(ctx, src) {
			delete(c.suspects, key)
			since := m.since
			if refetch {
				since = first
			}
			c.log.Info("source fell empty and a later read confirmed it; its reqs close", "source", key,
				"carried", prev[key], "now", cur[key], "suspect_since", since.Format(time.RFC3339), "refetch", refetch)
			continue
		}
		if !marked {
			since := now
			if refetch {
				since = first
			}
			c.suspects[key] = suspectMark{since: since, prev: prev[key]}
		}
		status[key] = sourceSuspect
		suspect = append(suspect, key)
		c.log.Warn("source read far fewer reqs than it carried: suspect, its reqs stay open until a later read confirms",
			"source", key, "carried", prev[key], "now", cur[key])
	}
	return suspect
}

// boardExists asks the tenant's board-level endpoint (atsurl.BoardURL) whether the tenant still
// exists, for the vendors that have one distinct from the feed (Greenhouse); for the others the
// feed's own 200 is the answer. A source whose URL is not a vendor's real one is judged by its
// feed alone.
func (c *Crawler) boardExists(ctx context.Context, src *Source) bool {
	b, ok := atsurl.Recognize(src.URL)
	if !ok || b.Vendor != atsurl.Greenhouse {
		return true
	}
	u, err := atsurl.BoardURL(b.Vendor, b.Tenant, b.Variant)
	if err != nil {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, c.fetch.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, u, nil)
	if err != nil {
		return false
	}
	resp, err := c.fetch.Client().Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
